// WebSocket connections on an app's path, once upgraded (the server's HTTP layer does the
// upgrade, for a known app only): the subprotocol the client asked for picks the protocol
// (graphql-transport-ws through the graphql-ws library, or either protocol of the older
// subscriptions-transport-ws), and shutdown closes every connection with 1001 (going away).

import type { IncomingMessage } from 'node:http';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer } from 'graphql-ws';
import type { ExecutionArgs, ExecutionResult, FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';
import type { DeliveryBatch } from './batch.js';
import { GRAPHQL_SUBSCRIPTIONS_DIALECT, GRAPHQL_WS_DIALECT, LEGACY_CLOSE_REFUSED, dialectOf, serveLegacy } from './legacy.js';
import { CLOSE_GOING_AWAY, CLOSE_TRY_AGAIN_LATER, authorizationOf } from './session.js';
import type { OperationOutcome, SocketSession, StreamSocket } from './session.js';
import { socketSinks } from './sink.js';
import type { EventSink, EventStream } from './stream.js';

export interface RealtimeSocketsOptions {
  /** Reports a failure inside the protocol handling (never sent to the client). */
  onError(err: unknown): void;
  /** Holds frames back while the hub works through a backlog (see DeliveryBatch). */
  batch?: DeliveryBatch | undefined;
}

/** The subprotocol to answer an upgrade with: the newest offered of graphql-transport-ws and the two of subscriptions-transport-ws. */
export function selectProtocol(protocols: ReadonlySet<string>): string | false {
  if (protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL)) return GRAPHQL_TRANSPORT_WS_PROTOCOL;
  if (protocols.has(GRAPHQL_WS_DIALECT.protocol)) return GRAPHQL_WS_DIALECT.protocol;
  if (protocols.has(GRAPHQL_SUBSCRIPTIONS_DIALECT.protocol)) return GRAPHQL_SUBSCRIPTIONS_DIALECT.protocol;
  return false;
}

const KEEP_ALIVE_MS = 12_000;
/** A socket whose unsent data exceeds this is a subscriber too slow to serve. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * An error already formatted for the client (coded, masked), carried through graphql-ws, which
 * sends what an error's toJSON gives: it goes out exactly as it was formatted.
 */
class FormattedError extends GraphQLError {
  readonly #formatted: GraphQLFormattedError;
  constructor(formatted: GraphQLFormattedError) {
    super(formatted.message, formatted.extensions ? { extensions: formatted.extensions } : {});
    this.#formatted = formatted;
  }
  override toJSON(): GraphQLFormattedError {
    return this.#formatted;
  }
}

/** A formatted result as graphql-ws takes results (its errors sent as formatted). */
function toExecutionResult(result: FormattedExecutionResult): ExecutionResult {
  const { errors, ...rest } = result;
  return errors ? { ...rest, errors: errors.map((e) => new FormattedError(e)) } : rest;
}

/**
 * A subscription as graphql-ws reads streams: once graphql-ws starts reading (the subscription
 * is registered), the stream writes its events to the connection itself, as
 * graphql-transport-ws `next` messages, and the iterator only tells graphql-ws when it has ended
 * (graphql-ws then sends `complete`). Ending the iterator ends the stream at once.
 */
function piped(stream: EventStream, sink: EventSink): AsyncIterableIterator<ExecutionResult> {
  const results: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      stream.pipe(sink);
      await stream.finished;
      return { done: true, value: undefined };
    },
    async return() {
      stream.end();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => results,
  };
  return results;
}

/** A session's outcome, handed from onSubscribe to execute/subscribe as the operation's root value. */
class Operated {
  constructor(
    readonly outcome: OperationOutcome,
    /** Where a subscription's stream writes its events. */
    readonly sink: EventSink,
  ) {}
}

function outcomeOf(args: ExecutionArgs): OperationOutcome | undefined {
  return args.rootValue instanceof Operated ? args.rootValue.outcome : undefined;
}

interface Connection {
  session: SocketSession;
  socket: WebSocket;
  handle: StreamSocket;
  /** A graphql-transport-ws subscription's sink, writing `next` messages with its id. */
  sink(id: string): EventSink;
}

/** The `Authorization` query parameter of the upgrade URL (older clients cannot set headers). */
function urlAuthorization(request: IncomingMessage): string | undefined {
  const url = new URL(request.url ?? '/', 'http://localhost');
  return url.searchParams.get('Authorization') ?? url.searchParams.get('authorization') ?? undefined;
}

export class RealtimeSockets {
  readonly #options: RealtimeSocketsOptions;
  readonly #connections = new Set<Connection>();
  readonly #server;
  #closing = false;

  constructor(options: RealtimeSocketsOptions) {
    this.#options = options;
    this.#server = makeServer<Record<string, unknown> | undefined, { connection: Connection; request: IncomingMessage }>({
      onConnect: async (ctx) => {
        const authorization = authorizationOf(ctx.connectionParams) ?? urlAuthorization(ctx.extra.request);
        // false closes the connection with 4403 Forbidden, graphql-transport-ws's refusal.
        const { session, handle } = ctx.extra.connection;
        return session.connect(authorization, handle);
      },
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const { session, handle, sink } = ctx.extra.connection;
        const outcome = await session.operate(payload, handle);
        if (outcome.kind === 'errors') return outcome.errors.map((e) => new FormattedError(e));
        return { schema: outcome.schema, document: outcome.document, rootValue: new Operated(outcome, sink(id)), ...(payload.operationName ? { operationName: payload.operationName } : {}) };
      },
      execute: (args) => {
        const outcome = outcomeOf(args);
        return outcome?.kind === 'result' ? toExecutionResult(outcome.result) : { errors: [new GraphQLError('Unexpected operation')] };
      },
      subscribe: (args) => {
        const outcome = outcomeOf(args);
        if (outcome?.kind === 'stream' && args.rootValue instanceof Operated) return piped(outcome.stream, args.rootValue.sink);
        return outcome?.kind === 'result' ? toExecutionResult(outcome.result) : { errors: [new GraphQLError('Unexpected operation')] };
      },
    });
  }

  get connections(): number {
    return this.#connections.size;
  }

  /** Whether the server has started closing: upgrades are refused from then on. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Serves an upgraded connection of `session` until it closes. */
  serve(socket: WebSocket, request: IncomingMessage, session: SocketSession): void {
    const legacy = dialectOf(socket.protocol);
    const batch = this.#options.batch;
    // The connection's TCP socket (the upgraded request's), where frames are held back.
    const hold = batch ? () => batch.hold(request.socket) : () => undefined;
    const sinks = socketSinks(socket, request.socket, hold);
    const sink = (id: string) => sinks(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
    const handle: StreamSocket = {
      close: (code, reason) => socket.close(code, reason),
      refuse: (reason) => socket.close(legacy ? LEGACY_CLOSE_REFUSED : CloseCode.Forbidden, reason),
    };
    const connection: Connection = { session, socket, handle, sink };
    this.#connections.add(connection);
    socket.on('error', (err) => this.#options.onError(err));
    let alive = true;
    socket.on('pong', () => {
      alive = true;
    });
    const keepAlive = setInterval(() => {
      // A peer that did not answer the last ping is gone; one with a backlog this large is too slow.
      if (!alive) return socket.terminate();
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) return socket.close(CLOSE_TRY_AGAIN_LATER, 'Subscriber too slow');
      alive = false;
      socket.ping();
    }, KEEP_ALIVE_MS);
    socket.once('close', () => {
      clearInterval(keepAlive);
      this.#connections.delete(connection);
    });
    if (legacy) {
      serveLegacy(socket, legacy, session, handle, { authorization: urlAuthorization(request), sinks, onError: (err) => this.#options.onError(err) });
      return;
    }
    const closed = this.#server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            // A send that fails means the socket is closing; its close ends the operations.
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data) => {
            cb(String(data)).catch((err: unknown) => {
              this.#options.onError(err);
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { connection, request },
    );
    socket.once('close', (code, reason) => {
      session.closed();
      void closed(code, String(reason));
    });
  }

  /** Closes every connection with 1001 and stops taking new ones. */
  async close(): Promise<void> {
    this.#closing = true;
    const open = [...this.#connections].map(
      ({ socket }) =>
        new Promise<void>((resolve) => {
          socket.once('close', () => resolve());
          socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
          // A peer that never answers the close handshake is cut off.
          setTimeout(() => {
            socket.terminate();
            resolve();
          }, 2_000).unref();
        }),
    );
    await Promise.all(open);
  }
}
