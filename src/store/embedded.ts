// The embedded driver: PGlite (PostgreSQL compiled to WASM) in this process, persisted to a data
// directory or kept in memory. One connection: statements and transactions run one at a time.
// A statement runs synchronously on the event loop, so no timer can cancel it: PGlite ignores
// `statement_timeout`, and this driver ignores the timeouts callers ask for (docs/security.md).

import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction as PGliteTransaction } from '@electric-sql/pglite';
import { compile } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { ChannelHandlers, listenStatement, unlistenStatement } from './channels.js';
import { databaseError } from './errors.js';
import { advisoryLockStatement, notifyStatement } from './statements.js';
import { OID, parseDate, parseInt8 } from './typeParsers.js';
import type { NotificationHandler, QueryResult, StatementOptions, Store, Transaction } from './types.js';

interface PGliteResult {
  rows: unknown[];
  affectedRows?: number;
  rowCount?: number;
}

function toResult<R>(result: PGliteResult): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
}

/**
 * PostgreSQL settings of the embedded store, after PGlite's own (`PGlite.defaultStartParams`).
 * PGlite touches all of `shared_buffers` as it starts, and its WASM memory never shrinks, so
 * the PostgreSQL defaults would keep 128 MiB of buffers resident for any database, and up to
 * 64 MiB more for good after the first large `CREATE INDEX`. Pages outside the buffers come from
 * the operating system's file cache instead (docs/performance.md measures both). Durability
 * settings are PGlite's, untouched.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
};

const START_PARAMS = [...PGlite.defaultStartParams, ...Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`])];

/**
 * Creates the database in an empty `dataDir` in a worker thread. PGlite's initdb snapshots and
 * rewrites its whole WASM memory; in this process some 400 MiB of it would stay resident for
 * good, garbage collections notwithstanding. A worker's memory goes with the worker.
 */
async function createInWorker(dataDir: string): Promise<void> {
  // The CommonJS build by path: an evaluated worker resolves no package names of its own.
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const code = `const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
PGlite.create({ dataDir: workerData.dataDir, startParams: workerData.startParams }).then(
  (db) => db.close(),
  (err) => parentPort.postMessage(err instanceof Error ? err.message : err && err.errno !== undefined ? 'file system error (errno ' + err.errno + ')' : String(err)),
);`;
  const worker = new Worker(code, { eval: true, workerData: { pglite, dataDir, startParams: START_PARAMS } });
  let failure: string | undefined;
  worker.on('message', (reason: string) => (failure = reason));
  worker.once('error', (err) => (failure = err.message));
  const exitCode = await new Promise<number>((resolve) => worker.once('exit', resolve));
  if (failure !== undefined || exitCode !== 0) {
    throw new Error(`cannot create the embedded database in ${dataDir}: ${failure ?? `exit code ${exitCode}`}`);
  }
}

/** Marks the async context of a running transaction callback, to catch store calls made inside it. */
const insideTransaction = new AsyncLocalStorage<{ store: EmbeddedStore; done: boolean }>();

export class EmbeddedStore implements Store {
  readonly kind = 'embedded' as const;
  readonly #db: PGlite;
  readonly #handlers = new ChannelHandlers();
  #closing: Promise<void> | undefined;
  /** Calls in progress: PGlite runs one at a time on its single connection, the rest wait. */
  #inFlight = 0;

  private constructor(db: PGlite) {
    this.#db = db;
    db.onNotification((channel, payload) => this.#handlers.dispatch(channel, payload));
  }

  /** Opens (creating if need be) the database in `dataDir`, or an in-memory one without it. */
  static async open(dataDir?: string): Promise<EmbeddedStore> {
    if (dataDir !== undefined) {
      mkdirSync(dataDir, { recursive: true });
      if (!existsSync(join(dataDir, 'PG_VERSION'))) await createInWorker(dataDir);
    }
    const db = await PGlite.create({
      ...(dataDir === undefined ? {} : { dataDir }),
      startParams: START_PARAMS,
      parsers: { [OID.int8]: parseInt8, [OID.date]: parseDate },
    });
    return new EmbeddedStore(db);
  }

  async query<R = Record<string, unknown>>(statement: SqlFragment, _options?: StatementOptions): Promise<QueryResult<R>> {
    this.#checkUsable();
    const { text, values } = compile(statement);
    this.#inFlight += 1;
    try {
      // PGlite queues a statement behind a running transaction instead of running it inside.
      return toResult<R>(await this.#db.query(text, values));
    } catch (err) {
      throw databaseError(err);
    } finally {
      this.#inFlight -= 1;
    }
  }

  connections(): { idle: number; used: number; waiting: number } {
    return { idle: this.#inFlight > 0 ? 0 : 1, used: this.#inFlight > 0 ? 1 : 0, waiting: Math.max(0, this.#inFlight - 1) };
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: StatementOptions): Promise<T> {
    this.#inFlight += 1;
    try {
      return await this.#transaction(fn, options);
    } finally {
      this.#inFlight -= 1;
    }
  }

  async #transaction<T>(fn: (tx: Transaction) => Promise<T>, _options?: StatementOptions): Promise<T> {
    this.#checkUsable();
    const context = { store: this, done: false };
    let failure: { error: unknown } | undefined;
    try {
      return await this.#db.transaction((ptx) =>
        insideTransaction.run(context, async () => {
          const tx = new EmbeddedTransaction(ptx);
          try {
            return await fn(tx);
          } catch (error) {
            failure = { error };
            throw error;
          } finally {
            tx.finish();
            context.done = true;
          }
        }),
      );
    } catch (err) {
      // The callback's own error leaves as thrown; BEGIN/COMMIT failures are the database's.
      if (failure && failure.error === err) throw err;
      throw databaseError(err);
    }
  }

  // In one process with its database: nothing is ever missed, so `resumed` is never called.
  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    this.#checkUsable();
    const listen = listenStatement(channel);
    return this.#handlers.add(
      channel,
      handler,
      () => this.#db.exec(listen),
      async () => {
        if (!this.#closing) await this.#db.exec(unlistenStatement(channel));
      },
    );
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.query(notifyStatement(channel, payload));
  }

  async ping(): Promise<boolean> {
    if (this.#closing) return false;
    try {
      await this.#db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#handlers.clear();
      await this.#db.close();
    })();
    return this.#closing;
  }

  #checkUsable(): void {
    if (this.#closing) throw new Error('The store is closed');
    const context = insideTransaction.getStore();
    if (context?.store === this && !context.done) {
      // One connection: waiting for the transaction from inside it would never end.
      throw new Error('Use the transaction, not the store, for statements inside a transaction of the embedded store');
    }
  }
}

class EmbeddedTransaction implements Transaction {
  readonly #tx: PGliteTransaction;
  #finished = false;

  constructor(tx: PGliteTransaction) {
    this.#tx = tx;
  }

  finish(): void {
    this.#finished = true;
  }

  async query<R = Record<string, unknown>>(statement: SqlFragment): Promise<QueryResult<R>> {
    if (this.#finished) throw new Error('The transaction has already ended');
    const { text, values } = compile(statement);
    try {
      return toResult<R>(await this.#tx.query(text, values));
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
