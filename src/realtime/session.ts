// What a WebSocket protocol needs from the rest of the server for one connection: checking
// its credentials and running its operations. The protocols (graphql-transport-ws and the
// older subscriptions-transport-ws) only carry messages; the server decides everything else.

import type { DocumentNode, FormattedExecutionResult, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { EventStream } from './stream.js';

export interface OperationPayload {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
}

/** What the session may do to its connection. */
export interface StreamSocket {
  /** Closes it (a subscriber too slow, a schema change). */
  close(code: number, reason: string): void;
  /** Closes it as the protocol closes a connection whose credentials are refused. */
  refuse(reason: string): void;
}

export type OperationOutcome =
  /** A query or mutation: one result. */
  | { kind: 'result'; schema: GraphQLSchema; document: DocumentNode; result: FormattedExecutionResult }
  /** A subscription: a result per event until the stream ends. */
  | { kind: 'stream'; schema: GraphQLSchema; document: DocumentNode; stream: EventStream }
  /** Refused before it ran (syntax, validation, limits, bad variables): coded errors. */
  | { kind: 'errors'; errors: GraphQLFormattedError[] };

export interface SocketSession {
  /**
   * Checks the connection's credentials (`Authorization` from the connection_init payload or,
   * for older clients, the URL); resolves false when they are refused.
   */
  connect(authorization: string | undefined, socket: StreamSocket): Promise<boolean>;
  operate(payload: OperationPayload, socket: StreamSocket): Promise<OperationOutcome>;
  /** The connection closed: its subscriptions end. */
  closed(): void;
}

/** Close codes this server uses beyond the protocols' own. */
export const CLOSE_GOING_AWAY = 1001;
/** A subscriber too slow to take its events (its queue filled up); clients reconnect. */
export const CLOSE_TRY_AGAIN_LATER = 1013;
/** The app's schema changed: subscriptions have to be made again against the new one. */
export const CLOSE_SERVICE_RESTART = 1012;

/** The `Authorization` value of a connection_init payload, its key in any case. */
export function authorizationOf(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  for (const [key, value] of Object.entries(params)) {
    if (key.toLowerCase() === 'authorization' && typeof value === 'string') return value;
  }
  // Some clients nest it under `headers`, as on HTTP.
  const headers = (params as { headers?: unknown }).headers;
  return headers !== params ? authorizationOf(headers) : undefined;
}
