// OpenTelemetry tracing through the real start-up path (TESSERA_TRACING=on and the standard
// OTEL_* variables), with a plain node:http server as the OTLP/HTTP collector: operations over
// HTTP and WebSocket become SERVER spans that continue the caller's `traceparent`, statements
// and transactions become CLIENT spans under them, and no value a client sent reaches a span.

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, startServer } from '../../src/server/index.js';
import type { RunningServer } from '../../src/server/index.js';
import { client, subscribe } from '../realtime/harness.js';

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean }
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number };
  attributes?: { key: string; value: OtlpValue }[];
}
interface Received { service: string | undefined; span: OtlpSpan }

const SERVER = 2;
const CLIENT = 3;
const attr = (span: OtlpSpan, key: string) => {
  const v = span.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue ?? v?.boolValue;
};

/** An OTLP/HTTP traces collector: every span posted to /v1/traces, decoded from OTLP JSON. */
async function collector(): Promise<{ server: Server; url: string; spans: Received[] }> {
  const spans: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          for (const ss of rs.scopeSpans) for (const span of ss.spans) spans.push({ service, span });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

describe('tracing (TESSERA_TRACING=on)', () => {
  let sink: Awaited<ReturnType<typeof collector>>;
  let running: RunningServer;
  let dir: string;
  let appId: string;
  let token: string;
  let endpoint: string;
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  const SECRET = 'value-no-span-may-hold';

  beforeAll(async () => {
    sink = await collector();
    dir = await mkdtemp(join(tmpdir(), 'tessera-trace-'));
    const config = loadConfig({ port: 0 }, {
      TESSERA_DATA_DIR: dir,
      TESSERA_LOG_LEVEL: 'silent',
      TESSERA_TRACING: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_SERVICE_NAME: 'tessera-under-test',
    });
    running = await startServer(config, { handleSignals: false });
    const admin = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(`${running.url}/admin/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${running.platformKey.key}` }, body: JSON.stringify({ query, variables }) });
      return ((await response.json()) as { data: Record<string, { app?: { id: string }; token?: string }> }).data;
    };
    appId = (await admin('mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'traced', schema: 'type Note @model @permission(scope: EVERYONE, read: true) { text: String }' } })).createApp!.app!.id;
    token = (await admin('mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: 't' } })).createAdminToken!.token!;
    endpoint = `${running.url}/graphql/${appId}`;
    const post = (query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
      fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) }).then((r) => r.json());
    await post('mutation Add($t: String) { createNote(input: { text: $t }) { changedNote { id } } }', { t: SECRET }, { authorization: `Bearer ${token}` });
    // A payload that reads the type's table again takes a transaction.
    await post('mutation AddAndList { createNote(input: { text: "y" }) { viewer { allNotes(first: 1) { edges { node { id } } } } } }', {}, { authorization: `Bearer ${token}` });
    await post('query Notes($t: String) { viewer { allNotes(where: { text: { eq: $t } }) { edges { node { text } } } } }', { t: SECRET }, { traceparent: `00-${traceId}-${callerSpan}-01` });
    await post('mutation Denied { createNote(input: { text: "x" }) { changedNote { id } } }', {}, {});
    const c = client(endpoint, token);
    const overSocket = subscribe(c, 'query OverSocket { viewer { allNotes { edges { node { id } } } } }');
    await overSocket.take(1);
    await c.dispose();
    // Stopping flushes the spans still buffered.
    await running.stop();
  });
  afterAll(async () => {
    await new Promise((resolve) => sink?.server.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const serverSpan = (name: string) => {
    const found = sink.spans.find((r) => r.span.name === name && r.span.kind === SERVER);
    expect(found, `a SERVER span "${name}" among ${sink.spans.map((r) => r.span.name).join(', ')}`).toBeDefined();
    return found!.span;
  };
  const childrenOf = (span: OtlpSpan) => sink.spans.map((r) => r.span).filter((s) => s.parentSpanId === span.spanId && s.traceId === span.traceId);

  it("names each operation's span after it, under the service name, and continues the caller's trace", () => {
    const notes = serverSpan('query Notes');
    expect(notes.traceId).toBe(traceId);
    expect(notes.parentSpanId).toBe(callerSpan);
    expect(attr(notes, 'graphql.operation.type')).toBe('query');
    expect(attr(notes, 'graphql.operation.name')).toBe('Notes');
    expect(attr(notes, 'tessera.app.id')).toBe(appId);
    expect(attr(notes, 'tessera.outcome')).toBe('ok');
    expect(new Set(sink.spans.map((r) => r.service))).toEqual(new Set(['tessera-under-test']));
    // A request without traceparent starts a trace of its own.
    expect(serverSpan('mutation Add').traceId).not.toBe(traceId);
  });

  it('puts the statements of a query under its span, with their SQL and no values', () => {
    const statements = childrenOf(serverSpan('query Notes'));
    const select = statements.find((s) => s.name === 'SELECT');
    expect(select?.kind).toBe(CLIENT);
    expect(attr(select!, 'db.system.name')).toBe('postgresql');
    expect(String(attr(select!, 'db.query.text'))).toMatch(/^SELECT/);
    expect(JSON.stringify(sink.spans)).not.toContain(SECRET);
  });

  it("puts a mutation's one statement under its span, and a transaction's statements under the transaction's", () => {
    const add = childrenOf(serverSpan('mutation Add'));
    expect(add.map((s) => s.name)).not.toContain('transaction');
    expect(add.some((s) => s.kind === CLIENT && /^INSERT INTO .* RETURNING /.test(String(attr(s, 'db.query.text'))))).toBe(true);
    const transaction = childrenOf(serverSpan('mutation AddAndList')).find((s) => s.name === 'transaction');
    expect(transaction?.kind).toBe(CLIENT);
    const inside = childrenOf(transaction!).map((s) => s.name);
    expect(inside).toContain('INSERT');
  });

  it('records a refusal as the outcome, not as a server error', () => {
    const denied = serverSpan('mutation Denied');
    expect(['FORBIDDEN', 'UNAUTHENTICATED']).toContain(attr(denied, 'tessera.outcome'));
    expect(denied.status?.code ?? 0).not.toBe(2);
  });

  it('traces operations over WebSocket too', () => {
    const socket = serverSpan('query OverSocket');
    expect(attr(socket, 'tessera.transport')).toBe('websocket');
    expect(childrenOf(socket).some((s) => s.name === 'SELECT')).toBe(true);
  });
});

describe('tracing configuration', () => {
  it('is off unless TESSERA_TRACING is on, and reads the standard OpenTelemetry variables', () => {
    expect(loadConfig({}, {}).tracing).toBeUndefined();
    expect(loadConfig({}, { TESSERA_TRACING: 'on' }).tracing).toEqual({ endpoint: 'http://localhost:4318/v1/traces', serviceName: 'tessera', ratio: 1 });
    expect(loadConfig({}, { TESSERA_TRACING: 'on', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/', TESSERA_TRACING_RATIO: '0.25' }).tracing).toMatchObject({ endpoint: 'http://c:4318/v1/traces', ratio: 0.25 });
    expect(loadConfig({}, { TESSERA_TRACING: 'on', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/x' }).tracing?.endpoint).toBe('https://t.example/x');
    expect(() => loadConfig({}, { TESSERA_TRACING: 'on', TESSERA_TRACING_RATIO: '2' })).toThrow(/TESSERA_TRACING_RATIO/);
    expect(() => loadConfig({}, { TESSERA_TRACING: 'on', OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://c' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});
