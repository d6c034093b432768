// The two protocols of subscriptions-transport-ws, which older clients speak: its `graphql-ws`
// subprotocol (0.6 and later, older Apollo clients: connection_init / connection_ack /
// connection_error, start / data / error / complete / stop, connection_terminate, `ka`) and its
// first one, `graphql-subscriptions` (0.3–0.5, which the original service's own starter kits pin:
// init / init_success / init_fail, subscription_start / subscription_success /
// subscription_data / subscription_fail / subscription_end, `keepalive`). They differ in the
// names and shapes of their messages only, so one engine serves both, each a dialect.

import type { GraphQLFormattedError } from 'graphql';
import type { WebSocket } from 'ws';
import type { OperationPayload, SocketSession, StreamSocket } from './session.js';
import { authorizationOf } from './session.js';
import type { EventSink } from './stream.js';

/** subscriptions-transport-ws closes a refused connection with 1011 after telling it why. */
export const LEGACY_CLOSE_REFUSED = 1011;
const KEEP_ALIVE_MS = 12_000;
const INIT_TIMEOUT_MS = 10_000;

interface LegacyMessage {
  type?: unknown;
  id?: unknown;
  payload?: unknown;
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

type Message = Record<string, unknown>;

/** The names and shapes of one protocol's messages. */
export interface Dialect {
  /** The subprotocol that selects it. */
  protocol: string;
  init: string;
  start: string;
  stop: string;
  /** The client's "I am done with this connection", when the protocol has one. */
  terminate?: string;
  /** Answers to an accepted connection_init. */
  accepted: Message[];
  /** The answer to a refused one (the connection then closes with 1011). */
  refused(message: string): Message;
  keepAlive: Message;
  /** The operation a start message carries. */
  operation(message: LegacyMessage): Partial<OperationPayload> | undefined;
  /** Sent once an operation runs (the oldest protocol confirms each subscription). */
  started(id: string): Message | undefined;
  data(id: string, payload: unknown): Message;
  /** A data message's JSON up to its payload, for events written straight to the socket. */
  dataPrefix(id: string): string;
  /** An operation refused before it ran, with coded errors. */
  failed(id: string, errors: readonly GraphQLFormattedError[]): Message[];
  /** The end of an operation's results, when the protocol has a message for it. */
  done(id: string): Message | undefined;
  /** A message the protocol does not accept. */
  error(id: string | undefined, message: string): Message;
}

const withId = (id: string | undefined): Message => (id === undefined ? {} : { id });

/** A dialect's data messages, whole and as the prefix of an event written straight to the socket. */
function dataMessages(type: string): Pick<Dialect, 'data' | 'dataPrefix'> {
  return {
    data: (id, payload) => ({ type, id, payload }),
    dataPrefix: (id) => `{"type":${JSON.stringify(type)},"id":${JSON.stringify(id)},"payload":`,
  };
}

/** subscriptions-transport-ws 0.6+: `graphql-ws`. */
export const GRAPHQL_WS_DIALECT: Dialect = {
  protocol: 'graphql-ws',
  init: 'connection_init',
  start: 'start',
  stop: 'stop',
  terminate: 'connection_terminate',
  accepted: [{ type: 'connection_ack' }, { type: 'ka' }],
  refused: (message) => ({ type: 'connection_error', payload: { message } }),
  keepAlive: { type: 'ka' },
  operation: (m) => (m.payload !== null && typeof m.payload === 'object' ? (m.payload as Partial<OperationPayload>) : undefined),
  started: () => undefined,
  ...dataMessages('data'),
  failed: (id, errors) => [{ type: 'data', id, payload: { errors } }, { type: 'complete', id }],
  done: (id) => ({ type: 'complete', id }),
  error: (id, message) => ({ type: 'error', ...withId(id), payload: { message } }),
};

/** subscriptions-transport-ws 0.3–0.5: `graphql-subscriptions`; the operation sits in the message itself. */
export const GRAPHQL_SUBSCRIPTIONS_DIALECT: Dialect = {
  protocol: 'graphql-subscriptions',
  init: 'init',
  start: 'subscription_start',
  stop: 'subscription_end',
  accepted: [{ type: 'init_success' }],
  refused: (message) => ({ type: 'init_fail', payload: { error: message } }),
  keepAlive: { type: 'keepalive' },
  operation: (m) => ({
    query: m.query as string,
    ...(m.variables !== null && typeof m.variables === 'object' ? { variables: m.variables as Record<string, unknown> } : {}),
    ...(typeof m.operationName === 'string' ? { operationName: m.operationName } : {}),
  }),
  started: (id) => ({ type: 'subscription_success', id }),
  ...dataMessages('subscription_data'),
  failed: (id, errors) => [{ type: 'subscription_fail', id, payload: { errors } }],
  done: () => undefined,
  error: (id, message) => ({ type: 'subscription_fail', ...withId(id), payload: { errors: [{ message }] } }),
};

/** The dialect a subprotocol selects, if it is one of these two. */
export function dialectOf(protocol: string): Dialect | undefined {
  return [GRAPHQL_WS_DIALECT, GRAPHQL_SUBSCRIPTIONS_DIALECT].find((d) => d.protocol === protocol);
}

/** A frame's message: a JSON object, or undefined for anything else (`null`, `[]`, `5`, not JSON). */
function parseMessage(text: string): LegacyMessage | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as LegacyMessage) : undefined;
  } catch {
    return undefined;
  }
}

export function serveLegacy(
  socket: WebSocket,
  dialect: Dialect,
  session: SocketSession,
  handle: StreamSocket,
  options: {
    /** The `Authorization` query parameter of the upgrade URL. */
    authorization: string | undefined;
    /** The connection's event sinks, by message prefix. */
    sinks: (prefix: string) => EventSink;
    onError: (err: unknown) => void;
  },
): void {
  const { authorization: urlAuthorization, sinks, onError } = options;
  let acknowledged = false;
  /** Settles with the outcome of the init message: clients may start operations before the answer. */
  let initialised: Promise<boolean> | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  const operations = new Map<string, () => void>();
  const send = (message: Message | undefined) => {
    if (message !== undefined && socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const initTimeout = setTimeout(() => {
    if (!acknowledged) socket.close(LEGACY_CLOSE_REFUSED, 'Connection initialisation timeout');
  }, INIT_TIMEOUT_MS);

  const stop = (id: string) => {
    const end = operations.get(id);
    operations.delete(id);
    end?.();
  };

  const start = async (id: string, payload: OperationPayload) => {
    if (operations.has(id)) stop(id);
    let stopped = false;
    operations.set(id, () => {
      stopped = true;
    });
    const outcome = await session.operate(payload, handle);
    if (stopped || socket.readyState !== socket.OPEN) {
      if (outcome.kind === 'stream') outcome.stream.end();
      return;
    }
    if (outcome.kind === 'errors') {
      for (const message of dialect.failed(id, outcome.errors)) send(message);
      operations.delete(id);
      return;
    }
    send(dialect.started(id));
    if (outcome.kind === 'result') {
      send(dialect.data(id, outcome.result));
      send(dialect.done(id));
      operations.delete(id);
      return;
    }
    const stream = outcome.stream;
    operations.set(id, () => stream.end());
    // The stream writes its events itself; this waits for its end.
    stream.pipe(sinks(dialect.dataPrefix(id)));
    await stream.finished;
    if (operations.get(id)) {
      operations.delete(id);
      send(dialect.done(id));
    }
  };

  const onMessage = (raw: unknown) => {
    const message = parseMessage(String(raw));
    if (message === undefined) {
      send(dialect.error(undefined, 'Each message must be a JSON object'));
      return;
    }
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? String(message.id) : undefined;
    switch (message.type) {
      case dialect.init: {
        const authorization = authorizationOf(message.payload) ?? urlAuthorization;
        if (initialised) return send(dialect.refused(`${dialect.init} was already sent`));
        initialised = session.connect(authorization, handle).then(
          (ok) => {
            if (!ok) {
              send(dialect.refused('The token is invalid, expired or revoked'));
              setTimeout(() => socket.close(LEGACY_CLOSE_REFUSED, 'Unauthorized'), 10);
              return false;
            }
            acknowledged = true;
            clearTimeout(initTimeout);
            for (const answer of dialect.accepted) send(answer);
            keepAlive = setInterval(() => send(dialect.keepAlive), KEEP_ALIVE_MS);
            return true;
          },
          () => {
            socket.close(LEGACY_CLOSE_REFUSED, 'Internal error');
            return false;
          },
        );
        return;
      }
      case dialect.start: {
        if (id === undefined) return send(dialect.error(undefined, `${dialect.start} needs an id`));
        if (!initialised) return send(dialect.error(id, `Send ${dialect.init} first`));
        const payload = dialect.operation(message);
        if (!payload || typeof payload.query !== 'string') return send(dialect.error(id, `${dialect.start} needs a query`));
        void initialised
          .then((ok) => (ok ? start(id, payload as OperationPayload) : undefined))
          .catch(() => {
            send(dialect.error(id, 'The operation failed'));
            operations.delete(id);
          });
        return;
      }
      case dialect.stop:
        if (id !== undefined && operations.has(id)) {
          stop(id);
          send(dialect.done(id));
        }
        return;
      case dialect.terminate:
        if (dialect.terminate === undefined) break;
        socket.close(1000, 'Terminated');
        return;
      default:
        break;
    }
    send(dialect.error(id, `Unknown message type ${JSON.stringify(message.type)}`));
  };

  socket.on('message', (raw) => {
    // A listener that throws would take the whole process down: one bad frame must only ever
    // end its own connection.
    try {
      onMessage(raw);
    } catch (err) {
      onError(err);
      socket.close(LEGACY_CLOSE_REFUSED, 'Internal error');
    }
  });

  socket.once('close', () => {
    clearTimeout(initTimeout);
    clearInterval(keepAlive);
    for (const id of [...operations.keys()]) stop(id);
    session.closed();
  });
}
