// The PostgreSQL driver: a `pg` pool for statements, a checked-out client per transaction
// (pgTransaction.ts), read lanes for the data API's reads and its one-statement writes, the
// writes sent in batches committed as one (lanes.ts), and one dedicated client for LISTEN.
// Sessions run in UTC, like the embedded store, and under a statement timeout: the store's
// default, or the one a call asks for (an app's setting).

import pg from 'pg';
import type { ClientConfig, PoolClient } from 'pg';
import { isTesseraError } from '../errors/index.js';
import { LruMap } from '../lru/index.js';
import { DEFAULT_SETTINGS } from '../model/index.js';
import { compile } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { connectionBroken, connectionLost, sessionEnded, statementError, unreachable } from './errors.js';
import { ReadLanes } from './lanes.js';
import type { LaneOutcome } from './lanes.js';
import { PgListener } from './listener.js';
import { primeAllocator } from './pgAllocator.js';
import { run, toResult } from './pgRun.js';
import { PostgresTransaction } from './pgTransaction.js';
import { pgTypes } from './pgTypes.js';
import { notifyStatement, setStatementTimeout } from './statements.js';
import type { ListenOptions, NotificationHandler, QueryResult, StatementOptions, Store, Transaction } from './types.js';

export interface PostgresOptions {
  databaseUrl: string;
  /** Pool size (default 10). */
  maxConnections?: number;
  /**
   * Statement timeout of every connection when a call asks for none, in ms (0: none). The
   * default is an app's default `statementTimeoutMs`, so that the data API's statements of an
   * app that keeps it need no `SET` of their own.
   */
  statementTimeoutMs?: number;
  /**
   * Uses that may bring new tables into a pooled connection before it is replaced (default
   * CONNECTION_USES; 0: never). A PostgreSQL backend keeps the catalog entries of every table it
   * has touched for its whole life, about 100 KiB per app: with thousands of apps a long-lived
   * connection would grow to gigabytes (docs/scaling.md). A statement or transaction counts
   * unless all it ran were recurring statements already prepared on the connection: those touch
   * only tables the connection has cached since it first ran them, so a connection kept busy by
   * a few apps' recurring statements is never replaced for them.
   */
  connectionUses?: number;
  /**
   * The cluster this store is (errors name it). A connection that cannot be made within the
   * statement timeout is answered `UNAVAILABLE` with a `Retry-After` of a second.
   */
  cluster?: string;
  /**
   * Keep recurring statements prepared on each connection (default true): parsed once per
   * connection, not once per call. Off for a connection pooler that cannot carry named
   * prepared statements from one transaction to the next (PgBouncer before 1.21 in transaction
   * mode).
   */
  preparedStatements?: boolean;
  /**
   * Connections of `maxConnections` kept as read lanes (lanes.ts), on which recurring reads are
   * pipelined, and standalone writes sent in batches committed as one (default: 2 of a pool of
   * 4 or more, none of a smaller one; 0: none). Lanes need prepared statements.
   */
  readLanes?: number;
  /** How long a read lane may stay idle before it is closed, in ms (default LANE_IDLE_MS, as the pool's idle connections). */
  laneIdleMs?: number;
}

/** How long a new connection may take when no statement timeout bounds it. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Default counted uses of a pooled connection (`connectionUses`): at most ~200 MiB of catalog
 * caches per backend, one reconnect per 2,000 statements that may touch tables new to it.
 */
export const CONNECTION_USES = 2_000;

/**
 * Recurring statements a connection keeps prepared, at most. A full connection runs further
 * ones unnamed until it is replaced (CONNECTION_USES): PostgreSQL keeps each one's parse tree
 * and plans in the backend's memory, 30–100 KiB for the data API's reads (docs/performance.md),
 * so at most about 10 MiB per connection.
 */
export const PREPARED_PER_CONNECTION = 100;

/**
 * Recurring texts the store has named, the most recently used kept: the texts its connections
 * can hold at once many times over (a name is shared by every connection). A text let go and
 * seen again gets a new name, prepared again.
 */
const NAMED_TEXTS = 2_000;

/** Read lanes of a pool of `max` connections when the options name none. */
function defaultLanes(max: number): number {
  return max >= 4 ? 2 : 0;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** A pool client checked out for one statement or transaction. */
interface Checkout {
  client: PoolClient;
  /**
   * Whether it ran a statement that may touch tables new to the connection: any but a recurring
   * one already prepared on it. Such a checkout counts as a use of the connection.
   */
  counted: boolean;
  /**
   * Returns the client to the pool; drops it when its connection can no longer be trusted or
   * has served its counted uses.
   */
  release(broken?: Error): void;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #listener: PgListener;
  readonly #timeoutMs: number;
  readonly #cluster: string | undefined;
  /**
   * Each connection's session `statement_timeout` where it differs from the default (it was
   * set for a call that asked for another): reset lazily, by the next call that wants another.
   */
  readonly #sessionTimeouts = new WeakMap<PoolClient, number>();
  /** A name for each recurring text; undefined when the store prepares nothing. */
  readonly #names: LruMap<string, string> | undefined;
  #lastName = 0;
  /** The names each connection has been asked to prepare (a failed parse stays counted). */
  readonly #prepared = new WeakMap<PoolClient, Set<string>>();
  /** Counted uses a connection serves before it is replaced (Infinity: never). */
  readonly #maxUses: number;
  /** Each connection's counted uses so far. */
  readonly #uses = new WeakMap<PoolClient, number>();
  /** Connections whose 'error' events this store hears, and the error each reported, if any. */
  readonly #listened = new WeakSet<PoolClient>();
  readonly #lost = new WeakMap<PoolClient, Error>();
  /** The read lanes, when the store has any. */
  readonly #lanes: ReadLanes | undefined;
  /** The pool's size, which the lanes' connections are not part of. */
  readonly #poolMax: number;
  /**
   * Checkouts asked for and not yet released: the pool's own idle count drops only when it
   * hands a client over, a tick later, so reads sent in one turn would all see it free.
   */
  #poolUsers = 0;
  #closing: Promise<void> | undefined;

  constructor(options: PostgresOptions) {
    this.#timeoutMs = options.statementTimeoutMs ?? DEFAULT_SETTINGS.statementTimeoutMs;
    this.#cluster = options.cluster;
    this.#names = options.preparedStatements === false ? undefined : new LruMap(NAMED_TEXTS);
    const config: ClientConfig = {
      connectionString: options.databaseUrl,
      types: pgTypes,
      // Same session time zone as PGlite, so date arithmetic and casts agree between stores;
      // the default timeout comes with the connection, at no cost per statement.
      options: `-c TimeZone=UTC -c statement_timeout=${this.#timeoutMs}`,
    };
    // 0: never replaced. The store counts uses itself (#release): the pool's own count would
    // include the recurring statements that touch nothing new.
    this.#maxUses = options.connectionUses === 0 ? Infinity : (options.connectionUses ?? CONNECTION_USES);
    const max = options.maxConnections ?? 10;
    // Lanes come out of the connections allowed; the pool keeps at least one.
    const lanes = this.#names ? Math.max(0, Math.min(options.readLanes ?? defaultLanes(max), max - 1)) : 0;
    this.#poolMax = max - lanes;
    const connectMs = this.#timeoutMs > 0 ? this.#timeoutMs : CONNECT_TIMEOUT_MS;
    this.#lanes =
      lanes > 0 ? new ReadLanes({ config, count: lanes, preparedPerConnection: PREPARED_PER_CONNECTION, maxUses: this.#maxUses, connectMs, ...(options.laneIdleMs === undefined ? {} : { idleMs: options.laneIdleMs }) }) : undefined;
    this.#pool = new pg.Pool({
      ...config,
      max: this.#poolMax,
      // A server that does not answer is given up on within the statement timeout.
      connectionTimeoutMillis: connectMs,
      // Awaited before the connection's first checkout; a failure ends it and fails the checkout.
      onConnect: primeAllocator,
    });
    // An idle client whose connection dies is dropped by the pool; the next checkout gets a new one.
    this.#pool.on('error', () => undefined);
    this.#listener = new PgListener(config);
  }

  async query<R = Record<string, unknown>>(statement: SqlFragment, options: StatementOptions = {}): Promise<QueryResult<R>> {
    this.#checkOpen();
    const { text, values } = compile(statement);
    const laned = options.readOnly === true || options.standalone === true ? this.#onLane<R>(text, values, options) : undefined;
    if (laned) return laned;
    return this.#onPool<R>(text, values, options);
  }

  /**
   * A recurring read or standalone write on a lane (lanes.ts says which takes it), or undefined
   * when none does. Only statements under the store's own statement timeout go there (a lane's
   * session keeps it).
   */
  #onLane<R>(text: string, values: readonly unknown[], options: StatementOptions): Promise<QueryResult<R>> | undefined {
    const lanes = this.#lanes;
    if (!lanes || options.recurring !== true || (options.timeoutMs ?? this.#timeoutMs) !== this.#timeoutMs) return undefined;
    const outcome = lanes.send(text, this.#nameOf(text), values, options.readOnly === true ? 'read' : 'write', this.#poolUsers >= this.#poolMax);
    return outcome?.then((o) => this.#laneResult<R>(o, text, values, options));
  }

  #laneResult<R>(outcome: LaneOutcome, text: string, values: readonly unknown[], options: StatementOptions): QueryResult<R> | Promise<QueryResult<R>> {
    if ('result' in outcome) return toResult<R>(outcome.result);
    const err = outcome.error;
    if (outcome.lost || sessionEnded(err)) throw connectionLost(err, this.#cluster);
    if (outcome.again) return this.#onPool<R>(text, values, options);
    throw statementError(err, options.timeoutMs);
  }

  async #onPool<R>(text: string, values: readonly unknown[], options: StatementOptions): Promise<QueryResult<R>> {
    const checkout = await this.#checkout();
    const { client, release } = checkout;
    let broken: Error | undefined;
    try {
      const ms = options.timeoutMs ?? this.#timeoutMs;
      if (this.#sessionTimeout(client) !== ms) await this.#setSessionTimeout(client, ms);
      return await run<R>(client, text, values, this.#nameFor(checkout, text, options.recurring === true));
    } catch (err) {
      if (connectionBroken(err)) broken = asError(err);
      if (this.#wasLost(client, err)) throw connectionLost(err, this.#cluster);
      throw statementError(err, options.timeoutMs);
    } finally {
      release(broken);
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: StatementOptions = {}): Promise<T> {
    this.#checkOpen();
    const checkout = await this.#checkout();
    const { client, release } = checkout;
    // A client whose ROLLBACK failed is in an unknown state: the pool must not reuse it.
    let broken: Error | undefined;
    const wanted = options.timeoutMs ?? this.#timeoutMs;
    const tx = new PostgresTransaction(client, options.timeoutMs, (text, recurring) => this.#nameFor(checkout, text, recurring));
    try {
      // SET LOCAL rides along with BEGIN and ends with the transaction: no extra round trip.
      await tx.begin(wanted === this.#sessionTimeout(client) ? undefined : wanted);
      const result = await fn(tx);
      await tx.run('COMMIT');
      return result;
    } catch (err) {
      // A coded error of the caller's stays as it is; a failure of the connection under it is the cluster's.
      const lost = !isTesseraError(err) && this.#wasLost(client, err);
      await tx.run('ROLLBACK').catch((rollbackError: unknown) => {
        broken = asError(rollbackError);
      });
      throw lost ? connectionLost(err, this.#cluster) : err;
    } finally {
      tx.finish();
      release(broken);
    }
  }

  listen(channel: string, handler: NotificationHandler, options?: ListenOptions): Promise<() => Promise<void>> {
    this.#checkOpen();
    return this.#listener.listen(channel, handler, options);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query(notifyStatement(channel, payload));
  }

  connections(): { idle: number; used: number; waiting: number } {
    const pool = this.#pool;
    const lanes = this.#lanes?.counts() ?? { open: 0, busy: 0 };
    return { idle: pool.idleCount + lanes.open - lanes.busy, used: pool.totalCount - pool.idleCount + lanes.busy, waiting: pool.waitingCount };
  }

  async ping(): Promise<boolean> {
    if (this.#closing) return false;
    try {
      await this.#pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#listener.close();
      await this.#lanes?.close();
      await this.#pool.end();
    })();
    return this.#closing;
  }

  /**
   * Whether a statement failed because its connection was lost: the connection reported so
   * (an 'error' event, heard before the statement's own failure), or the server ended the
   * session in answer to it.
   */
  #wasLost(client: PoolClient, err: unknown): boolean {
    return this.#lost.has(client) || sessionEnded(err);
  }

  #checkOpen(): void {
    if (this.#closing) throw new Error('The store is closed');
  }

  async #checkout(): Promise<Checkout> {
    let client: PoolClient;
    this.#poolUsers += 1;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      this.#poolUsers -= 1;
      throw unreachable(err, this.#cluster);
    }
    // A connection that fails while checked out reports it as an 'error' event, which would be
    // an uncaught exception without a listener; the statement in flight fails on its own. The
    // listener stays from the connection's first checkout on, rather than being added and
    // removed around every statement; a connection that failed is never checked out again.
    if (!this.#listened.has(client)) {
      this.#listened.add(client);
      client.on('error', (err: Error) => this.#lost.set(client, err));
    }
    const checkout: Checkout = {
      client,
      counted: false,
      release: (broken) => {
        this.#poolUsers -= 1;
        // `true` makes the pool end the connection rather than keep it.
        client.release(broken ?? this.#lost.get(client) ?? (checkout.counted && this.#wornOut(client)));
      },
    };
    return checkout;
  }

  /** Counts a use of `client`; true once it has served its uses. */
  #wornOut(client: PoolClient): boolean {
    const uses = (this.#uses.get(client) ?? 0) + 1;
    this.#uses.set(client, uses);
    return uses >= this.#maxUses;
  }

  /**
   * The name `text` runs under on the checkout's connection: `pg` parses a named statement on a
   * connection the first time and binds it after that. Undefined (run unnamed) when it does not
   * recur, when the store prepares nothing or when the connection holds its share already. A
   * name stands for one text only, for the life of the store, as `pg` requires. Any statement
   * but one already prepared on the connection makes the checkout a counted use.
   */
  #nameFor(checkout: Checkout, text: string, recurring: boolean): string | undefined {
    if (!recurring || !this.#names) {
      checkout.counted = true;
      return undefined;
    }
    const name = this.#nameOf(text);
    let held = this.#prepared.get(checkout.client);
    if (!held) {
      held = new Set();
      this.#prepared.set(checkout.client, held);
    }
    if (held.has(name)) return name;
    checkout.counted = true;
    if (held.size >= PREPARED_PER_CONNECTION) return undefined;
    held.add(name);
    return name;
  }

  /** The name of a recurring text, the same on every connection (given when the text is first seen). */
  #nameOf(text: string): string {
    const names = this.#names as LruMap<string, string>;
    let name = names.get(text);
    if (name === undefined) {
      this.#lastName += 1;
      name = `tessera_${this.#lastName.toString(36)}`;
      names.set(text, name);
    }
    return name;
  }

  #sessionTimeout(client: PoolClient): number {
    return this.#sessionTimeouts.get(client) ?? this.#timeoutMs;
  }

  /** Makes the session's statement timeout `ms` (called only on a change: most statements run under the one they find). */
  async #setSessionTimeout(client: PoolClient, ms: number): Promise<void> {
    await client.query(compile(setStatementTimeout(ms)).text);
    if (ms === this.#timeoutMs) this.#sessionTimeouts.delete(client);
    else this.#sessionTimeouts.set(client, ms);
  }
}
