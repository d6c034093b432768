// The transport-neutral shape of one GraphQL operation: what a transport asks (the request),
// what comes back (the outcome), and what was answered, for metrics, traces and traffic (the
// note). HTTP, WebSocket and functions are adapters around a runner of this shape.

import type { DocumentNode, GraphQLError, GraphQLFormattedError, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { ErrorCode } from '../../errors/index.js';
import type { Caller } from './callers.js';

/** An operation as a client sends it, whatever the transport. */
export interface OperationRequest {
  /** The document's text; absent when the client sends only a persisted document's hash. */
  query: string | undefined;
  /** `extensions.persistedQuery.sha256Hash`, when the client sent one. */
  persistedHash?: string | undefined;
  operationName?: string | undefined;
  variables?: Record<string, unknown> | undefined;
}

/** What an answered operation was, for metrics and traces: its type and its outcome. */
export interface OperationNote {
  /** `query`, `mutation`, `subscription`, or `unknown` before the document is read. */
  type: string;
  /** `ok`, or the code of the answer's first error. */
  outcome: string;
  /** The operation's name, when it has one. */
  name?: string;
}

/** A subscription, validated and within limits, for a transport that carries streams to plan and run. */
export interface SubscriptionStart {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  caller: Caller;
  /** Formats the errors of its events as the operation's own. */
  format: (errors: readonly GraphQLError[], code?: ErrorCode) => GraphQLFormattedError[];
}

export type OperationOutcome<E> =
  /** The transport answered itself once the operation was known (HTTP: a mutation sent with GET). */
  | { kind: 'early'; value: E }
  /** Refused before it ran (persisted documents, syntax, validation, limits, variables): coded errors, no data. */
  | { kind: 'refused'; errors: GraphQLFormattedError[] }
  /** A query or mutation that ran: `data` as JSON text, and its formatted errors. */
  | { kind: 'result'; schema: GraphQLSchema; document: DocumentNode; data: string; hasData: boolean; errors: GraphQLFormattedError[] }
  /** A subscription, for the transport to start (only when the transport asked for streams). */
  | { kind: 'subscription'; start: SubscriptionStart };

export interface Operated<E> {
  outcome: OperationOutcome<E>;
  note: OperationNote;
}

export interface RunOptions<E> {
  /** Answers for the transport once the operation is known; undefined lets it run. */
  early?: ((operation: OperationDefinitionNode | null) => E | undefined) | undefined;
  /** The transport carries streams: subscriptions come back to be started rather than run. */
  streams?: boolean | undefined;
}

/** Runs operations against one schema, for one caller and request. */
export interface OperationRunner {
  run<E = never>(request: OperationRequest, options?: RunOptions<E>): Promise<Operated<E>>;
}
