// A store whose statements all run under one statement timeout: what the data API executes an
// app's operation with, so that every read and every mutation transaction carries the app's
// `statementTimeoutMs` without the code below it passing it along.

import type { SqlFragment } from '../sql/index.js';
import type { QueryResult, StatementOptions, Store, Transaction } from './types.js';

export function withStatementTimeout(store: Store, timeoutMs: number): Store {
  return {
    kind: store.kind,
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: StatementOptions): Promise<QueryResult<R>> => store.query<R>(statement, { ...options, timeoutMs }),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => store.transaction(fn, { timeoutMs }),
    listen: (channel, handler, options) => store.listen(channel, handler, options),
    notify: (channel, payload) => store.notify(channel, payload),
    ping: () => store.ping(),
    connections: () => store.connections(),
    // The store belongs to whoever opened it, not to this view of it.
    close: () => Promise.reject(new Error('A view of a store with a statement timeout cannot close the store')),
  };
}
