// WebSocket connections on an app's path: the upgrade is answered only for a known app, the
// subprotocol the client asks for picks the protocol (graphql-transport-ws through the
// graphql-ws library, or either protocol of the older subscriptions-transport-ws), and shutdown
// closes every connection with 1001 (going away).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer } from 'graphql-ws';
import type { ExecutionArgs, ExecutionResult, FormattedExecutionResult } from 'graphql';
import { GraphQLError } from 'graphql';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { GRAPHQL_SUBSCRIPTIONS_DIALECT, GRAPHQL_WS_DIALECT, LEGACY_CLOSE_REFUSED, dialectOf, serveLegacy } from './legacy.js';
import { CLOSE_GOING_AWAY, CLOSE_TRY_AGAIN_LATER, authorizationOf, toExecutionResult } from './session.js';
import type { OperationOutcome, SocketSession, StreamSocket } from './session.js';

export interface RealtimeSocketsOptions {
  /** A session for an upgrade request, or the HTTP status and message that refuse it. */
  open(request: IncomingMessage): Promise<SocketSession | { status: number; message: string }>;
  /** The largest message a client may send, in bytes. */
  maxPayload: number;
  /** Reports a failure inside the protocol handling (never sent to the client). */
  onError(err: unknown): void;
}

const KEEP_ALIVE_MS = 12_000;
/** A socket whose unsent data exceeds this is a subscriber too slow to serve. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

interface Connection {
  session: SocketSession;
  socket: WebSocket;
  handle: StreamSocket;
}

/** The `Authorization` query parameter of the upgrade URL (older clients cannot set headers). */
function urlAuthorization(request: IncomingMessage): string | undefined {
  const url = new URL(request.url ?? '/', 'http://localhost');
  return url.searchParams.get('Authorization') ?? url.searchParams.get('authorization') ?? undefined;
}

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code: status === 404 ? 'NOT_FOUND' : 'BAD_USER_INPUT' } }] });
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export class RealtimeSockets {
  readonly #options: RealtimeSocketsOptions;
  readonly #wss: WebSocketServer;
  readonly #connections = new Set<Connection>();
  readonly #server;
  #closing = false;

  constructor(options: RealtimeSocketsOptions) {
    this.#options = options;
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload,
      // The newest protocol offered: graphql-transport-ws, then the two of subscriptions-transport-ws.
      handleProtocols: (protocols) => {
        if (protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL)) return GRAPHQL_TRANSPORT_WS_PROTOCOL;
        if (protocols.has(GRAPHQL_WS_DIALECT.protocol)) return GRAPHQL_WS_DIALECT.protocol;
        if (protocols.has(GRAPHQL_SUBSCRIPTIONS_DIALECT.protocol)) return GRAPHQL_SUBSCRIPTIONS_DIALECT.protocol;
        return false;
      },
    });
    this.#server = makeServer<Record<string, unknown> | undefined, { connection: Connection; request: IncomingMessage }>({
      onConnect: async (ctx) => {
        const authorization = authorizationOf(ctx.connectionParams) ?? urlAuthorization(ctx.extra.request);
        // false closes the connection with 4403 Forbidden, graphql-transport-ws's refusal.
        const { session, handle } = ctx.extra.connection;
        return session.connect(authorization, handle);
      },
      onSubscribe: async (ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const { session, handle } = ctx.extra.connection;
        const outcome = await session.operate(payload, handle);
        if (outcome.kind === 'errors') {
          return outcome.errors.map((e) => new GraphQLError(e.message, { ...(e.path ? { path: e.path } : {}), ...(e.extensions ? { extensions: e.extensions } : {}) }));
        }
        return { schema: outcome.schema, document: outcome.document, contextValue: outcome, ...(payload.operationName ? { operationName: payload.operationName } : {}) };
      },
      // Results are formatted (errors coded and masked) by the session: sent as they are.
      onNext: (_ctx, _id, _payload, _args, result) => result as unknown as FormattedExecutionResult,
      execute: (args) => {
        const outcome = args.contextValue as OperationOutcome;
        return outcome.kind === 'result' ? toExecutionResult(outcome.result) : { errors: [new GraphQLError('Unexpected operation')] };
      },
      subscribe: (args) => {
        const outcome = args.contextValue as OperationOutcome;
        if (outcome.kind === 'stream') return outcome.stream;
        return outcome.kind === 'result' ? toExecutionResult(outcome.result) : ({ errors: [] } as ExecutionResult);
      },
    });
  }

  get connections(): number {
    return this.#connections.size;
  }

  /** Handles an HTTP upgrade request already matched to an app's path. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.#closing) {
      refuse(socket, 503, 'The server is shutting down');
      return;
    }
    void this.#options.open(request).then(
      (opened) => {
        if ('status' in opened) {
          refuse(socket, opened.status, opened.message);
          return;
        }
        this.#wss.handleUpgrade(request, socket, head, (ws) => this.#serve(ws, request, opened));
      },
      (err: unknown) => {
        this.#options.onError(err);
        refuse(socket, 500, 'Internal error');
      },
    );
  }

  #serve(socket: WebSocket, request: IncomingMessage, session: SocketSession): void {
    const legacy = dialectOf(socket.protocol);
    const handle: StreamSocket = {
      close: (code, reason) => socket.close(code, reason),
      refuse: (reason) => socket.close(legacy ? LEGACY_CLOSE_REFUSED : CloseCode.Forbidden, reason),
    };
    const connection: Connection = { session, socket, handle };
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
      serveLegacy(socket, legacy, session, handle, urlAuthorization(request), (err) => this.#options.onError(err));
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
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}
