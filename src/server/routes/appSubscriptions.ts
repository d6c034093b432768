// WebSocket connections on each app's path `/graphql/:appId`: the upgrade is matched to a live
// app, the connection's credentials are checked like a bearer token (and checked again every
// minute, so a revoked token or a changed password ends the connection), and each operation
// goes through the same parse / validate / limits as HTTP before it runs: queries and
// mutations through the compiling executor, subscriptions through the realtime hub.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Tracer } from '@opentelemetry/api';
import type { ExecutionResult } from 'graphql';
import { planSubscription } from '../../compile/index.js';
import { isTesseraError } from '../../errors/index.js';
import { CLOSE_SERVICE_RESTART, CLOSE_TRY_AGAIN_LATER, DeliveryBatch, EventStream, RealtimeHub, RealtimeSockets } from '../../realtime/index.js';
import type { OperationOutcome, OperationPayload, SocketSession, StreamSocket, SubscriberDirectory, HubOptions } from '../../realtime/index.js';
import { unknownApp } from '../appPorts.js';
import type { LiveApp } from '../appRegistry.js';
import { errorBody } from '../clientErrors.js';
import type { AppOperations } from '../operation/appOperations.js';
import { callerLabel } from '../operation/callers.js';
import type { Caller } from '../operation/callers.js';
import { asGraphQLError } from '../operation/format.js';
import type { OperationNote, SubscriptionStart } from '../operation/outcome.js';
import { generateRequestId } from '../plugins/requestId.js';
import type { AnsweredOperation } from '../traffic.js';
import { traceOperation } from '../tracing.js';

export interface AppSubscriptionOptions {
  /** Counts a closed WebSocket connection like an answered request (metrics). */
  onConnectionClosed?: (seconds: number) => void;
  /** Told of every operation answered on a connection (its seconds: to the first answer). */
  onOperation?: (operation: AnsweredOperation) => void;
  /** Traces each operation (a subscription until it starts) when tracing is on. */
  tracer?: Tracer | undefined;
  /** Whether the upgrade's Origin may open a connection (the allowed origins of the app). */
  originAllowed?: (request: FastifyRequest) => Promise<boolean>;
  /** The operation core every transport shares. */
  operations: AppOperations;
  /** Subscribes to a channel on every store apps live on (see HubOptions.listen). */
  listen: HubOptions['listen'];
  /** Where the subscription gauges are registered. */
  metrics: Registry;
  /** How often an open connection's credentials are checked again. */
  recheckMs: number;
  /** Events queued for one subscription before its subscriber counts as too slow. */
  maxPendingEvents: number;
  /** Distinct subscribers one statement evaluates an event for, at most (default: the hub's). */
  maxCallersPerStatement?: number | undefined;
  directory: SubscriberDirectory;
}

/** Subscriptions one connection may hold open at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

/** How often, by default, an open connection's credentials are checked again. */
export const DEFAULT_RECHECK_MS = 60_000;


/** What the app route does with a WebSocket upgrade (`request.ws`), before and after it. */
export interface WebSocketEndpoint {
  /** Before the upgrade: 404 for an unknown app, 503 while shutting down; otherwise the connection's session is made. */
  open(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** After it: serves the connection until it closes, then logs it and counts it as a request. */
  serve(socket: WebSocket, request: FastifyRequest): void;
}

export function installAppSubscriptions(app: FastifyInstance, options: AppSubscriptionOptions): WebSocketEndpoint {
  const events = new Counter({ name: 'tessera_realtime_events_total', help: 'Row events received for apps with subscribers on this instance.', registers: [options.metrics] });
  const deliveries = new Counter({ name: 'tessera_realtime_deliveries_total', help: 'Event results delivered to subscribers on this instance.', registers: [options.metrics] });
  const delay = new Histogram({
    name: 'tessera_realtime_event_delay_seconds',
    help: "Time from a change's notification reaching this instance to its results being handed to every subscriber (queueing included).",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [options.metrics],
  });
  const batch = new DeliveryBatch();
  const hub = new RealtimeHub({
    batch,
    listen: options.listen,
    directory: options.directory,
    maxCallers: options.maxCallersPerStatement,
    current: async (appId) => (await options.operations.app(appId))?.context,
    onError: (err) => app.log.error({ err }, 'realtime event delivery failed'),
    onHandled: (report) => {
      events.inc(report.events);
      deliveries.inc(report.deliveries);
      delay.observe(report.seconds);
    },
  });
  const sockets = new RealtimeSockets({ batch, onError: (err) => app.log.warn({ err }, 'websocket failure') });
  new Gauge({
    name: 'tessera_subscriptions',
    help: 'Subscriptions open on this instance.',
    registers: [options.metrics],
    collect() {
      this.set(hub.size);
    },
  });
  new Gauge({
    name: 'tessera_websocket_connections',
    help: 'WebSocket connections open on this instance.',
    registers: [options.metrics],
    collect() {
      this.set(sockets.connections);
    },
  });
  // Subscriptions end with 1001 as the server starts closing; then the hub stops listening.
  app.addHook('preClose', async () => sockets.close());
  app.addHook('onClose', async () => {
    await hub.stop();
    await options.directory.stop();
  });
  app.addHook('onReady', async () => options.directory.start());

  const sessions = new WeakMap<IncomingMessage, SocketSession>();
  return {
    async open(request, reply) {
      if (sockets.closing) {
        return reply.code(503).header('retry-after', '1').send(errorBody('UNAVAILABLE', 'The server is shutting down'));
      }
      if (options.originAllowed && !(await options.originAllowed(request))) {
        return reply.code(403).send(errorBody('FORBIDDEN', 'This origin may not open a WebSocket to this app'));
      }
      const opened = await openSession(app, options, hub, (request.params as { appId: string }).appId, request.ip);
      if ('status' in opened) return reply.code(opened.status).send(errorBody('NOT_FOUND', opened.message));
      sessions.set(request.raw, opened);
    },
    serve(socket, request) {
      const session = sessions.get(request.raw);
      if (!session) return socket.close(1011, 'No session');
      const started = performance.now();
      socket.once('close', (code) => {
        const seconds = (performance.now() - started) / 1000;
        options.onConnectionClosed?.(seconds);
        request.log.info(
          { method: request.method, path: request.url.split('?', 1)[0], statusCode: 101, address: request.ip, protocol: socket.protocol, closeCode: code, responseTime: Math.round(seconds * 100_000) / 100 },
          'websocket closed',
        );
      });
      sockets.serve(socket, request.raw, session);
    },
  };
}

/** A connection's session; `address` is the client's, as the login throttle counts it (request.ip: trusted proxies honoured). */
async function openSession(app: FastifyInstance, options: AppSubscriptionOptions, hub: RealtimeHub, appId: string, address: string): Promise<SocketSession | { status: number; message: string }> {
  const { operations } = options;
  const opened = await operations.app(appId);
  if (!opened) return { status: 404, message: unknownApp(appId) };
  let authorization: string | undefined;
  let recheck: NodeJS.Timeout | undefined;
  const streams = new Set<EventStream>();
  const connection: Connection = { appId, address, caller: { kind: 'anonymous' }, streams, planning: 0, closed: false };

  const identify = async (value: string | undefined): Promise<Caller | undefined> => {
    const live = await operations.app(appId);
    if (!live) return undefined;
    try {
      return await operations.identify(live, value);
    } catch (err) {
      if (isTesseraError(err) && err.code === 'UNAUTHENTICATED') return undefined;
      throw err;
    }
  };

  return {
    async connect(value, socket) {
      const caller = await identify(value);
      if (!caller) return false;
      connection.caller = caller;
      authorization = value;
      if (caller.kind !== 'anonymous') {
        recheck = setInterval(() => {
          identify(authorization).then(
            (now) => {
              if (!now) socket.refuse('The token is invalid, expired or revoked');
            },
            (err: unknown) => app.log.warn({ err, appId }, 'websocket credentials check failed'),
          );
        }, options.recheckMs);
        recheck.unref();
      }
      return true;
    },

    async operate(payload, socket) {
      const requestId = generateRequestId();
      return traceOperation(options.tracer, { transport: 'websocket', appId, requestId }, async (describe) => {
        const started = performance.now();
        const live = await operations.app(appId);
        if (!live) return { kind: 'errors', errors: [{ message: unknownApp(appId), extensions: { code: 'NOT_FOUND' } }] };
        const { outcome, note } = await operate(app, options, hub, live, connection, payload, socket, requestId);
        describe(note);
        options.onOperation?.({ ...note, ...callerLabel(live, connection.caller), appId: live.id, transport: 'websocket', seconds: (performance.now() - started) / 1000, requestId });
        return outcome;
      });
    },

    closed() {
      connection.closed = true;
      clearInterval(recheck);
      for (const stream of [...streams]) stream.end();
    },
  };
}

interface Connection {
  appId: string;
  address: string;
  caller: Caller;
  streams: Set<EventStream>;
  /** Subscriptions being planned, not yet streams. */
  planning: number;
  /** The socket has closed: a subscription planned meanwhile ends at once. */
  closed: boolean;
}

/** One operation of a connection through the operation core; subscriptions become streams here. */
async function operate(
  app: FastifyInstance,
  options: AppSubscriptionOptions,
  hub: RealtimeHub,
  live: LiveApp,
  connection: Connection,
  payload: OperationPayload,
  socket: StreamSocket,
  requestId: string,
): Promise<{ outcome: OperationOutcome; note: OperationNote }> {
  const runner = options.operations.runner({ live, caller: connection.caller, address: connection.address, requestId, log: app.log });
  const request = { query: payload.query, operationName: payload.operationName ?? undefined, variables: payload.variables ?? undefined };
  const { outcome, note } = await runner.run(request, { streams: true });
  switch (outcome.kind) {
    case 'early':
      return { outcome: { kind: 'errors', errors: [] }, note };
    case 'refused':
      return { outcome: { kind: 'errors', errors: outcome.errors }, note };
    case 'result': {
      const result = { data: JSON.parse(outcome.data) as Record<string, unknown>, ...(outcome.errors.length > 0 ? { errors: outcome.errors } : {}) };
      return { outcome: { kind: 'result', schema: outcome.schema, document: outcome.document, result }, note };
    }
    case 'subscription':
      return { outcome: await subscribe(options, hub, live, connection, outcome.start, socket), note };
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

/** Plans a subscription and opens its stream of events, within the connection's limit. */
async function subscribe(options: AppSubscriptionOptions, hub: RealtimeHub, live: LiveApp, connection: Connection, start: SubscriptionStart, socket: StreamSocket): Promise<OperationOutcome> {
  // Counted before planning (which waits on the database), so a burst cannot slip past it.
  if (connection.streams.size + connection.planning >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
    const message = `A connection holds at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions; end one or open another connection`;
    return { kind: 'errors', errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED', limit: 'subscriptionsPerConnection', max: MAX_SUBSCRIPTIONS_PER_CONNECTION } }] };
  }
  const { caller, document, operationName, variables, format } = start;
  let plan;
  connection.planning += 1;
  try {
    plan = await planSubscription({ app: live.context, document, operationName, variables, admin: caller.kind === 'admin', userId: caller.kind === 'user' ? caller.userId : undefined }, live.store);
  } catch (err) {
    return { kind: 'errors', errors: format([asGraphQLError(err)], 'BAD_USER_INPUT') };
  } finally {
    connection.planning -= 1;
  }
  let remove: (() => void) | undefined;
  const stream = new EventStream(
    () => {
      connection.streams.delete(stream);
      remove?.();
    },
    () => socket.close(CLOSE_TRY_AGAIN_LATER, 'Subscriber too slow'),
    options.maxPendingEvents,
  );
  connection.streams.add(stream);
  remove = await hub.add({
    plan,
    deliver: (result: ExecutionResult) => stream.push(result.errors ? { data: result.data ?? null, errors: format(result.errors) } : { data: result.data ?? null }),
    expire: () => {
      stream.end();
      socket.close(CLOSE_SERVICE_RESTART, "The app's schema changed: subscribe again");
    },
  });
  if (connection.closed) stream.end();
  if (stream.ended) remove();
  return { kind: 'stream', schema: start.schema, document, stream };
}
