// The Store interface: the only way Tessera talks to PostgreSQL. Two drivers implement it
// (embedded PGlite and a `pg` pool); they differ in how they connect, never in the SQL.

import type { SqlFragment } from '../sql/index.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Something that runs SQL fragments: a store, or a transaction of one. */
export interface Queryable {
  query<R = Record<string, unknown>>(statement: SqlFragment): Promise<QueryResult<R>>;
}

export interface Transaction extends Queryable {
  /** Takes a transaction-scoped advisory lock, released at commit or rollback. */
  advisoryLock(key: string): Promise<void>;
  /** Queues a notification, delivered on commit like PostgreSQL's NOTIFY. */
  notify(channel: string, payload: string): Promise<void>;
}

export type NotificationHandler = (payload: string) => void;

export interface Store extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Subscribes to a channel; resolves to an unsubscribe function. */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
