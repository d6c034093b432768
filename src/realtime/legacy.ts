// The `graphql-ws` subprotocol of subscriptions-transport-ws, which older Apollo clients
// speak: connection_init / connection_ack / connection_error, start / data / error /
// complete / stop, connection_terminate, and `ka` keep-alive messages from the server.

import type { WebSocket } from 'ws';
import type { OperationPayload, SocketSession, StreamSocket } from './session.js';
import { authorizationOf } from './session.js';

/** subscriptions-transport-ws closes a refused connection with 1011 after connection_error. */
export const LEGACY_CLOSE_REFUSED = 1011;
const KEEP_ALIVE_MS = 12_000;
const INIT_TIMEOUT_MS = 10_000;

interface LegacyMessage {
  type?: unknown;
  id?: unknown;
  payload?: unknown;
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

export function serveLegacy(socket: WebSocket, session: SocketSession, handle: StreamSocket, urlAuthorization: string | undefined, onError: (err: unknown) => void): void {
  let acknowledged = false;
  /** Settles with the outcome of connection_init: clients may send start before the ack. */
  let initialised: Promise<boolean> | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  const operations = new Map<string, () => void>();
  const send = (message: Record<string, unknown>) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
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
      if (outcome.kind === 'stream') await outcome.stream.return?.();
      return;
    }
    if (outcome.kind === 'errors') {
      send({ type: 'data', id, payload: { errors: outcome.errors } });
      send({ type: 'complete', id });
      operations.delete(id);
      return;
    }
    if (outcome.kind === 'result') {
      send({ type: 'data', id, payload: outcome.result });
      send({ type: 'complete', id });
      operations.delete(id);
      return;
    }
    const stream = outcome.stream;
    operations.set(id, () => void stream.return?.());
    for await (const result of stream) send({ type: 'data', id, payload: result });
    if (operations.get(id)) {
      operations.delete(id);
      send({ type: 'complete', id });
    }
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

  const onMessage = (raw: unknown) => {
    const message = parseMessage(String(raw));
    if (message === undefined) {
      send({ type: 'error', payload: { message: 'Each message must be a JSON object' } });
      return;
    }
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? String(message.id) : undefined;
    switch (message.type) {
      case 'connection_init': {
        const authorization = authorizationOf(message.payload) ?? urlAuthorization;
        if (initialised) return send({ type: 'connection_error', payload: { message: 'connection_init was already sent' } });
        initialised = session.connect(authorization, handle).then((ok) => {
          if (!ok) {
            send({ type: 'connection_error', payload: { message: 'The token is invalid, expired or revoked' } });
            setTimeout(() => socket.close(LEGACY_CLOSE_REFUSED, 'Unauthorized'), 10);
            return false;
          }
          acknowledged = true;
          clearTimeout(initTimeout);
          send({ type: 'connection_ack' });
          send({ type: 'ka' });
          keepAlive = setInterval(() => send({ type: 'ka' }), KEEP_ALIVE_MS);
          return true;
        }, () => {
          socket.close(LEGACY_CLOSE_REFUSED, 'Internal error');
          return false;
        });
        return;
      }
      case 'start': {
        if (id === undefined) return send({ type: 'error', payload: { message: 'start needs an id' } });
        if (!initialised) return send({ type: 'error', id, payload: { message: 'Send connection_init first' } });
        const payload = message.payload as Partial<OperationPayload> | undefined;
        if (!payload || typeof payload.query !== 'string') return send({ type: 'error', id, payload: { message: 'start needs a payload with a query' } });
        void initialised
          .then((ok) => (ok ? start(id, payload as OperationPayload) : undefined))
          .catch(() => {
            send({ type: 'error', id, payload: { message: 'The operation failed' } });
            operations.delete(id);
          });
        return;
      }
      case 'stop':
        if (id !== undefined && operations.has(id)) {
          stop(id);
          send({ type: 'complete', id });
        }
        return;
      case 'connection_terminate':
        socket.close(1000, 'Terminated');
        return;
      default:
        send({ type: 'error', ...(id === undefined ? {} : { id }), payload: { message: `Unknown message type ${JSON.stringify(message.type)}` } });
    }
  };

  socket.once('close', () => {
    clearTimeout(initTimeout);
    clearInterval(keepAlive);
    for (const id of [...operations.keys()]) stop(id);
    session.closed();
  });
}
