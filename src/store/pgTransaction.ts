// A transaction of the PostgreSQL store on its checked-out client: BEGIN (with the caller's
// statement timeout when it differs from the session's), its statements, COMMIT or ROLLBACK.

import type { PoolClient } from 'pg';
import { compile } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { databaseError, statementError } from './errors.js';
import { run } from './pgRun.js';
import { advisoryLockStatement, beginWithStatementTimeout, notifyStatement } from './statements.js';
import type { QueryResult, StatementOptions, Transaction } from './types.js';

export class PostgresTransaction implements Transaction {
  readonly #client: PoolClient;
  /** The timeout the caller asked for, which turns a cancelled statement into LIMIT_EXCEEDED. */
  readonly #timeoutMs: number | undefined;
  /** The name a statement runs under on this connection, if any (and counts the use). */
  readonly #nameOf: (text: string, recurring: boolean) => string | undefined;
  #finished = false;

  constructor(client: PoolClient, timeoutMs: number | undefined, nameOf: (text: string, recurring: boolean) => string | undefined) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#nameOf = nameOf;
  }

  finish(): void {
    this.#finished = true;
  }

  /** BEGIN, with the transaction's own statement timeout when it differs from the session's. */
  async begin(timeoutMs: number | undefined): Promise<void> {
    try {
      await this.#client.query(timeoutMs === undefined ? 'BEGIN' : compile(beginWithStatementTimeout(timeoutMs)).text);
    } catch (err) {
      throw databaseError(err);
    }
  }

  /** Transaction control statements, bypassing the "already ended" check of `query`. */
  async run(text: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      await this.#client.query(text);
    } catch (err) {
      throw statementError(err, this.#timeoutMs);
    }
  }

  async query<R = Record<string, unknown>>(statement: SqlFragment, options: Pick<StatementOptions, 'recurring'> = {}): Promise<QueryResult<R>> {
    if (this.#finished) throw new Error('The transaction has already ended');
    const { text, values } = compile(statement);
    const name = this.#nameOf(text, options.recurring === true);
    try {
      return await run<R>(this.#client, text, values, name);
    } catch (err) {
      throw statementError(err, this.#timeoutMs);
    }
  }

  async advisoryLock(key: string): Promise<void> {
    await this.query(advisoryLockStatement(key));
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query(notifyStatement(channel, payload));
  }
}
