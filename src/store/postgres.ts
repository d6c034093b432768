// The PostgreSQL driver: a `pg` pool for statements, a checked-out client per transaction, and
// one dedicated client for LISTEN. Sessions run in UTC, like the embedded store.

import pg from 'pg';
import type { ClientConfig, PoolClient } from 'pg';
import { compile } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { databaseError } from './errors.js';
import { PgListener } from './listener.js';
import { pgTypes } from './pgTypes.js';
import { advisoryLockStatement, notifyStatement } from './statements.js';
import type { NotificationHandler, QueryResult, Store, Transaction } from './types.js';

export interface PostgresOptions {
  databaseUrl: string;
  /** Pool size (default 10). */
  maxConnections?: number;
}

function toResult<R>(result: pg.QueryResult): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #listener: PgListener;
  #closing: Promise<void> | undefined;

  constructor(options: PostgresOptions) {
    const config: ClientConfig = {
      connectionString: options.databaseUrl,
      types: pgTypes,
      // Same session time zone as PGlite, so date arithmetic and casts agree between stores.
      options: '-c TimeZone=UTC',
    };
    this.#pool = new pg.Pool({ ...config, max: options.maxConnections ?? 10 });
    // An idle client whose connection dies is dropped by the pool; the next checkout gets a new one.
    this.#pool.on('error', () => undefined);
    this.#listener = new PgListener(config);
  }

  async query<R = Record<string, unknown>>(statement: SqlFragment): Promise<QueryResult<R>> {
    this.#checkOpen();
    const { text, values } = compile(statement);
    try {
      return toResult<R>(await this.#pool.query({ text, values }));
    } catch (err) {
      throw databaseError(err);
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    this.#checkOpen();
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw databaseError(err);
    }
    // A client whose ROLLBACK failed is in an unknown state: the pool must not reuse it.
    let broken: Error | undefined;
    const tx = new PostgresTransaction(client);
    try {
      await tx.run('BEGIN');
      const result = await fn(tx);
      await tx.run('COMMIT');
      return result;
    } catch (err) {
      await tx.run('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw err;
    } finally {
      tx.finish();
      client.release(broken);
    }
  }

  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    this.#checkOpen();
    return this.#listener.listen(channel, handler);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query(notifyStatement(channel, payload));
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
      await this.#pool.end();
    })();
    return this.#closing;
  }

  #checkOpen(): void {
    if (this.#closing) throw new Error('The store is closed');
  }
}

class PostgresTransaction implements Transaction {
  readonly #client: PoolClient;
  #finished = false;

  constructor(client: PoolClient) {
    this.#client = client;
  }

  finish(): void {
    this.#finished = true;
  }

  /** Transaction control statements, bypassing the "already ended" check of `query`. */
  async run(text: 'BEGIN' | 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      await this.#client.query(text);
    } catch (err) {
      throw databaseError(err);
    }
  }

  async query<R = Record<string, unknown>>(statement: SqlFragment): Promise<QueryResult<R>> {
    if (this.#finished) throw new Error('The transaction has already ended');
    const { text, values } = compile(statement);
    try {
      return toResult<R>(await this.#client.query({ text, values }));
    } catch (err) {
      throw databaseError(err);
    }
  }

  async advisoryLock(key: string): Promise<void> {
    await this.query(advisoryLockStatement(key));
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query(notifyStatement(channel, payload));
  }
}
