// Optional OpenTelemetry tracing (TESSERA_TRACING=on; off by default). Each GraphQL operation of
// the data API — over HTTP or WebSocket — is a SERVER span, continuing the caller's trace when
// the request carries a W3C `traceparent`; each database statement and transaction it runs is
// a CLIENT span under it. Spans go in batches to an OTLP/HTTP collector (Jaeger, Tempo, the
// OpenTelemetry Collector…). The provider is this server's own, never registered globally; only
// the context manager is, so that a statement finds its operation's span across awaits.

import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, defaultTextMapGetter, trace } from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { StatementProbe } from '../store/index.js';
import type { OperationNote } from './operation/outcome.js';

export interface TracingConfig {
  /** Where spans go: an OTLP/HTTP traces endpoint, e.g. `http://collector:4318/v1/traces`. */
  endpoint: string;
  /** `service.name` of every span. */
  serviceName: string;
  /** Share of new traces recorded, 0 to 1; a caller's sampled `traceparent` is always followed. */
  ratio: number;
}

export interface Tracing {
  tracer: Tracer;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/** The longest SQL text a statement span carries (the text has placeholders, never values). */
const MAX_QUERY_TEXT = 2048;

let contextManager: AsyncLocalStorageContextManager | undefined;

/** The SDK and exporter load only when tracing is on: they cost a server without it start-up time and memory. */
export async function startTracing(config: TracingConfig, version: string): Promise<Tracing> {
  const [{ AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler }] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  if (!contextManager) {
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.endpoint }), { scheduledDelayMillis: 1000 })],
  });
  return { tracer: provider.getTracer('tessera', version), shutdown: () => provider.shutdown() };
}

/** Reads a caller's `traceparent`: loaded by a server given a tracer, as it gets ready (server.ts). */
let propagator: W3CTraceContextPropagator | undefined;

/** Loads the propagator traced operations continue a caller's trace with. */
export async function loadPropagator(): Promise<void> {
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  propagator ??= new W3CTraceContextPropagator();
}

/** Where an operation came from, for its span. */
export interface OperationOrigin {
  transport: 'http' | 'websocket';
  appId: string;
  /** The request's headers, whose `traceparent` (if any) the span continues. */
  headers?: IncomingHttpHeaders;
  requestId?: string;
}

/**
 * Runs one GraphQL operation in its SERVER span (or plainly, without a tracer); `describe`
 * names the span after the operation once it is known (`query Posts`) and records its outcome.
 */
export async function traceOperation<T>(tracer: Tracer | undefined, origin: OperationOrigin, fn: (describe: (note: OperationNote) => void) => Promise<T>): Promise<T> {
  if (!tracer) return fn(() => undefined);
  const parent = origin.headers && propagator ? propagator.extract(ROOT_CONTEXT, origin.headers, defaultTextMapGetter) : ROOT_CONTEXT;
  const attributes: Attributes = { 'tessera.app.id': origin.appId, 'tessera.transport': origin.transport };
  if (origin.requestId) attributes['tessera.request.id'] = origin.requestId;
  const span = tracer.startSpan('graphql', { kind: SpanKind.SERVER, attributes }, parent);
  const describe = (note: OperationNote) => describeOperation(span, note);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(describe));
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}

function describeOperation(span: Span, note: OperationNote): void {
  span.updateName(note.name ? `${note.type} ${note.name}` : note.type);
  span.setAttributes({
    'graphql.operation.type': note.type,
    ...(note.name ? { 'graphql.operation.name': note.name } : {}),
    'tessera.outcome': note.outcome,
  });
  // Failures of the server are errors of the span; a client's mistake or a refusal is not.
  if (note.outcome === 'INTERNAL' || note.outcome === 'UNAVAILABLE') span.setStatus({ code: SpanStatusCode.ERROR, message: note.outcome });
}

/** A store probe making a CLIENT span of each statement and transaction run inside a traced operation. */
export function statementSpans(tracer: Tracer): StatementProbe {
  return {
    start(kind, text) {
      const parent = context.active();
      // Statements outside any operation (cache refreshes, realtime bookkeeping) start no trace.
      if (!trace.getSpan(parent)) return { end: () => undefined };
      const query = kind === 'statement' ? text() : undefined;
      const name = kind === 'transaction' ? 'transaction' : (/^\s*(\w+)/.exec(query ?? '')?.[1]?.toUpperCase() ?? 'statement');
      const span = tracer.startSpan(name, {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'postgresql', ...(query === undefined ? {} : { 'db.query.text': query.slice(0, MAX_QUERY_TEXT) }) },
      }, parent);
      return {
        end(failed) {
          if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
        within: (fn) => context.with(trace.setSpan(parent, span), fn),
      };
    },
  };
}
