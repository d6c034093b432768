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
import { GraphQLError, getOperationAST } from 'graphql';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import type { LoginThrottle, Mailer } from '../../accounts/index.js';
import { executeOperation, planSubscription } from '../../compile/index.js';
import { isTesseraError } from '../../errors/index.js';
import type { ErrorCode } from '../../errors/index.js';
import { CLOSE_SERVICE_RESTART, CLOSE_TRY_AGAIN_LATER, EventStream, RealtimeHub, RealtimeSockets } from '../../realtime/index.js';
import type { OperationOutcome, OperationPayload, SocketSession, StreamSocket, SubscriberDirectory } from '../../realtime/index.js';
import type { Store } from '../../store/index.js';
import type { AppRegistry } from '../appRegistry.js';
import { callerLabel, callerOf } from '../callers.js';
import type { AnsweredOperation } from '../traffic.js';
import type { Caller } from '../callers.js';
import { asGraphQLError, formatErrors, prepareOperation } from '../graphqlOverHttp.js';
import type { OperationNote } from '../graphqlOverHttp.js';
import { appLimits } from '../limits/index.js';
import { generateRequestId } from '../plugins/requestId.js';
import type { PersistedQueries } from '../persisted.js';
import { mutationPorts, unknownApp } from '../appPorts.js';
import type { OidcRelyingParty } from '../../oidc/index.js';
import { errorBody } from '../clientErrors.js';
import { traceOperation } from '../tracing.js';

export interface AppSubscriptionOptions {
  /** Counts a closed WebSocket connection like an answered request (metrics). */
  onConnectionClosed?: (seconds: number) => void;
  /** Told of every operation answered on a connection (its seconds: to the first answer). */
  onOperation?: (operation: AnsweredOperation) => void;
  /** Traces each operation (a subscription until it starts) when tracing is on. */
  tracer?: Tracer | undefined;
  /** Trusted documents are enforced over WebSocket as over HTTP. */
  persisted: PersistedQueries;
  /** Whether the upgrade's Origin may open a connection (the allowed origins of the app). */
  originAllowed?: (request: FastifyRequest) => Promise<boolean>;
  store: Store;
  registry: AppRegistry;
  platformKey: string;
  throttle: LoginThrottle;
  mailer: Mailer;
  /** Where the subscription gauges are registered. */
  metrics: Registry;
  /** How often an open connection's credentials are checked again. */
  recheckMs: number;
  /** Events queued for one subscription before its subscriber counts as too slow. */
  maxPendingEvents: number;
  directory: SubscriberDirectory;
  /** Redeems OpenID sign-ins sent over the socket. */
  oidc?: OidcRelyingParty | undefined;
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
  const hub = new RealtimeHub({
    store: options.store,
    directory: options.directory,
    current: async (appId) => (await options.registry.get(appId))?.context,
    onError: (err) => app.log.error({ err }, 'realtime event delivery failed'),
    onHandled: (report) => {
      events.inc(report.events);
      deliveries.inc(report.deliveries);
      delay.observe(report.seconds);
    },
  });
  const sockets = new RealtimeSockets({ onError: (err) => app.log.warn({ err }, 'websocket failure') });
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
  const opened = await options.registry.get(appId);
  if (!opened) return { status: 404, message: unknownApp(appId) };
  let caller: Caller | undefined;
  let authorization: string | undefined;
  let recheck: NodeJS.Timeout | undefined;
  const streams = new Set<EventStream>();
  const connection: Connection = { appId, address, caller: { kind: 'anonymous' }, streams, planning: 0, closed: false };

  const identify = async (value: string | undefined): Promise<Caller | undefined> => {
    const live = await options.registry.get(appId);
    if (!live) return undefined;
    try {
      return await callerOf(options, live, value);
    } catch (err) {
      if (isTesseraError(err) && err.code === 'UNAUTHENTICATED') return undefined;
      throw err;
    }
  };

  return {
    async connect(value, socket) {
      caller = await identify(value);
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
        const outcome = await operate(app, options, hub, connection, payload, socket, requestId);
        const note = noteOf(outcome, payload.operationName ?? undefined);
        describe(note);
        const live = await options.registry.get(appId);
        if (live) options.onOperation?.({ ...note, ...callerLabel(live, connection.caller), appId: live.id, transport: 'websocket', seconds: (performance.now() - started) / 1000, requestId });
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

/** An operation's type and outcome, as metrics count them (a subscription counts once, when it starts). */
function noteOf(outcome: OperationOutcome, operationName: string | undefined): OperationNote {
  if (outcome.kind === 'errors') return { type: 'unknown', outcome: String(outcome.errors[0]?.extensions?.code ?? 'BAD_USER_INPUT') };
  const operation = getOperationAST(outcome.document, operationName);
  const named = { type: operation?.operation ?? 'unknown', ...(operation?.name ? { name: operation.name.value } : {}) };
  if (outcome.kind === 'stream') return { ...named, outcome: 'ok' };
  return { ...named, outcome: String(outcome.result.errors?.[0]?.extensions?.code ?? 'ok') };
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

async function operate(app: FastifyInstance, options: AppSubscriptionOptions, hub: RealtimeHub, connection: Connection, payload: OperationPayload, socket: StreamSocket, requestId: string): Promise<OperationOutcome> {
  const { appId, caller } = connection;
  const live = await options.registry.get(appId);
  if (!live) return { kind: 'errors', errors: [{ message: `No app with id "${appId}"`, extensions: { code: 'NOT_FOUND' } }] };
  const context = live.context;
  const schema = context.app.schema;
  const limits = appLimits(context.app.settings);
  const format = (errors: readonly GraphQLError[], code?: ErrorCode): GraphQLFormattedError[] =>
    formatErrors(errors, { requestId, suggestions: limits.suggestions, onInternalError: (err) => app.log.error({ err, appId, requestId }, 'websocket operation failed') }, code);
  const variables = payload.variables ?? undefined;
  const operationName = payload.operationName ?? undefined;
  const resolved = options.persisted.resolve(appId, live.trusted, !(caller.kind === 'admin' && caller.operator), { query: payload.query, persistedHash: undefined });
  if ('error' in resolved) return { kind: 'errors', errors: format([asGraphQLError(resolved.error)], resolved.error.code) };
  const prepared = prepareOperation({ query: resolved.query, operationName, variables }, {
    schema,
    documents: live.documents,
    maxTokens: limits.maxTokens,
    limitRules: limits.limitRules,
    validationRules: limits.validationRules,
    checkRequest: limits.checkRequest,
  });
  if ('response' in prepared) return { kind: 'errors', errors: [] };
  if ('errors' in prepared) return { kind: 'errors', errors: format(prepared.errors, prepared.code) };
  const { document, operation } = prepared;
  const admin = caller.kind === 'admin';
  const userId = caller.kind === 'user' ? caller.userId : undefined;

  if (operation?.operation !== 'subscription') {
    const run = await executeOperation({
      app: context,
      store: options.store,
      ports: mutationPorts(live, { throttle: options.throttle, mailer: options.mailer, oidc: options.oidc }, connection.address, app.log, options.directory),
      document,
      query: payload.query,
      operationName,
      variables,
      admin,
      userId,
    });
    if (run.data === undefined) return { kind: 'errors', errors: format(run.errors, 'BAD_USER_INPUT') };
    const errors = format(run.errors);
    return { kind: 'result', schema, document, result: { data: JSON.parse(run.data) as Record<string, unknown>, ...(errors.length > 0 ? { errors } : {}) } };
  }

  // Counted before planning (which waits on the database), so a burst cannot slip past it.
  if (connection.streams.size + connection.planning >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
    const message = `A connection holds at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions; end one or open another connection`;
    return { kind: 'errors', errors: [{ message, extensions: { code: 'LIMIT_EXCEEDED', limit: 'subscriptionsPerConnection', max: MAX_SUBSCRIPTIONS_PER_CONNECTION } }] };
  }
  let plan;
  connection.planning += 1;
  try {
    plan = await planSubscription({ app: context, document, operationName, variables, admin, userId }, options.store);
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
    deliver: (result: ExecutionResult) => stream.push(result.errors ? { data: result.data ?? null, errors: format(result.errors) as unknown as GraphQLError[] } : result),
    expire: () => {
      stream.end();
      socket.close(CLOSE_SERVICE_RESTART, "The app's schema changed: subscribe again");
    },
  });
  if (connection.closed) stream.end();
  if (stream.ended) remove();
  return { kind: 'stream', schema, document, stream };
}
