// A store whose statements all run under one statement timeout: what the data API executes an
// app's operation with, so that every read and every mutation transaction carries the app's
// `statementTimeoutMs` without the code below it passing it along. One view per store and
// timeout, kept while the store lives: an operation asks for it on every request.

import type { SqlFragment } from '../sql/index.js';
import type { ListenOptions, NotificationHandler, QueryResult, StatementOptions, Store, Transaction } from './types.js';

class BoundedStore implements Store {
  readonly kind: Store['kind'];
  readonly timeoutMs: number;
  readonly #store: Store;
  /** The options every statement runs with: the timeout, whether it recurs, and whether it only reads or is a standalone write. */
  readonly #once: StatementOptions;
  readonly #recurring: StatementOptions;
  readonly #reading: StatementOptions;
  readonly #writing: StatementOptions;

  constructor(store: Store, timeoutMs: number) {
    this.kind = store.kind;
    this.timeoutMs = timeoutMs;
    this.#store = store;
    this.#once = { timeoutMs };
    this.#recurring = { recurring: true, timeoutMs };
    this.#reading = { recurring: true, readOnly: true, timeoutMs };
    this.#writing = { recurring: true, standalone: true, timeoutMs };
  }

  query<R = Record<string, unknown>>(statement: SqlFragment, options?: StatementOptions): Promise<QueryResult<R>> {
    const bound = options?.recurring !== true ? this.#once : options.readOnly === true ? this.#reading : options.standalone === true ? this.#writing : this.#recurring;
    return this.#store.query<R>(statement, bound);
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#store.transaction(fn, this.#once);
  }

  listen(channel: string, handler: NotificationHandler, options?: ListenOptions): Promise<() => Promise<void>> {
    return this.#store.listen(channel, handler, options);
  }

  notify(channel: string, payload: string): Promise<void> {
    return this.#store.notify(channel, payload);
  }

  ping(): Promise<boolean> {
    return this.#store.ping();
  }

  connections(): ReturnType<Store['connections']> {
    return this.#store.connections();
  }

  /** The store belongs to whoever opened it, not to this view of it. */
  close(): Promise<void> {
    return Promise.reject(new Error('A view of a store with a statement timeout cannot close the store'));
  }
}

const views = new WeakMap<Store, Map<number, Store>>();

/** The view of `store` whose statements run under `timeoutMs`: a view of that timeout already is itself. */
export function withStatementTimeout(store: Store, timeoutMs: number): Store {
  if (store instanceof BoundedStore && store.timeoutMs === timeoutMs) return store;
  let byTimeout = views.get(store);
  if (!byTimeout) {
    byTimeout = new Map();
    views.set(store, byTimeout);
  }
  let view = byTimeout.get(timeoutMs);
  if (!view) {
    view = new BoundedStore(store, timeoutMs);
    byTimeout.set(timeoutMs, view);
  }
  return view;
}
