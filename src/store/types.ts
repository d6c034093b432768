// The Store interface: the only way Tessera talks to PostgreSQL. Two drivers implement it
// (embedded PGlite and a `pg` pool); they differ in how they connect, never in the SQL.

import type { SqlFragment } from '../sql/index.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Something that runs SQL fragments: a store, or a transaction of one. */
export interface Queryable {
  query<R = Record<string, unknown>>(statement: SqlFragment, options?: Pick<StatementOptions, 'recurring'>): Promise<QueryResult<R>>;
}

export interface Transaction extends Queryable {
  /** Takes a transaction-scoped advisory lock, released at commit or rollback. */
  advisoryLock(key: string): Promise<void>;
  /** Queues a notification, delivered on commit like PostgreSQL's NOTIFY. */
  notify(channel: string, payload: string): Promise<void>;
}

export type NotificationHandler = (payload: string) => void;

/** What a listener is told besides its channel's notifications. */
export interface ListenOptions {
  /**
   * The store listens again after its connection to the database was lost: notifications sent
   * meanwhile were missed, so whatever they keep up to date must be read afresh.
   */
  resumed?: (() => void) | undefined;
}

/** How a statement, or every statement of a transaction, may run. */
export interface StatementOptions {
  /**
   * Cancel a statement that runs longer than this many milliseconds, and answer it with
   * `LIMIT_EXCEEDED` (an app's `statementTimeoutMs`). Without it the store's own default holds,
   * and a cancelled statement is an internal error. The embedded store cannot cancel a running
   * statement and ignores it (docs/security.md).
   */
  timeoutMs?: number;
  /**
   * The statement's text recurs: compiled once and run again for every request of its shape,
   * only its values changing. PostgreSQL then parses it once per connection and may keep its
   * plan (a named prepared statement); the embedded store runs it as any other.
   */
  recurring?: boolean;
  /**
   * The statement only reads: no write, no lock, no notification. With `recurring`, the
   * PostgreSQL store may pipeline it on a connection it shares with other such reads (lanes.ts).
   */
  readOnly?: boolean;
  /**
   * The statement is a write committed on its own, outside any transaction, whose lock waits are
   * its own (an `INSERT`, `UPDATE` or `DELETE … RETURNING`). With `recurring`, the PostgreSQL
   * store may send it on a read lane in a batch of such writes committed together; a batch that
   * fails runs each of its writes again on its own (lanes.ts).
   */
  standalone?: boolean;
}

export interface Store extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  query<R = Record<string, unknown>>(statement: SqlFragment, options?: StatementOptions): Promise<QueryResult<R>>;
  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: StatementOptions): Promise<T>;
  /** Subscribes to a channel; resolves to an unsubscribe function. */
  listen(channel: string, handler: NotificationHandler, options?: ListenOptions): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  /** Connections by state, for metrics: idle, in use, and calls waiting for one. */
  connections(): { idle: number; used: number; waiting: number };
  close(): Promise<void>;
}
