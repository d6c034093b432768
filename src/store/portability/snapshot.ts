// A consistent snapshot of the database read in batches: what an export streams from while
// writes go on. PostgreSQL: one read-only repeatable-read transaction holds the snapshot for
// the whole read, on a connection of its own. Embedded (one connection for everything): the
// cursors are declared WITH HOLD in a repeatable-read transaction, which PostgreSQL materialises
// when it commits — a point in time — so other statements run between the batches.

import { randomBytes } from 'node:crypto';
import { ident, literal, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { UNBOUNDED_TRANSACTION } from '../statements.js';
import type { Queryable, Store, Transaction } from '../types.js';

export interface SnapshotCursor<R> {
  /** The next rows (at most `count`); none once the statement's rows are all read. */
  next(count: number): Promise<R[]>;
}

/** Declares a cursor over a statement's rows, read later from the same snapshot. */
export type DeclareCursor = <R>(statement: SqlFragment) => Promise<SnapshotCursor<R>>;

/**
 * Runs `open` in a snapshot (reads, and cursors declared for later), then `read` with what it
 * returned, its cursors still on that snapshot. Cursors are closed once `read` ends, however.
 */
export async function readSnapshot<O, T>(store: Store, open: (tx: Transaction, declare: DeclareCursor) => Promise<O>, read: (opened: O) => Promise<T>): Promise<T> {
  const prefix = `tessera_snapshot_${randomBytes(6).toString('hex')}`;
  let count = 0;
  const cursorOf = <R>(name: string, on: Queryable): SnapshotCursor<R> => ({
    async next(n) {
      return (await on.query<R>(sql`FETCH FORWARD ${literal(n)} FROM ${ident(name)}`)).rows;
    },
  });

  if (store.kind === 'postgres') {
    return store.transaction(async (tx) => {
      await tx.query(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      await tx.query(UNBOUNDED_TRANSACTION);
      const declare: DeclareCursor = async <R>(statement: SqlFragment) => {
        const name = `${prefix}_${count++}`;
        await tx.query(sql`DECLARE ${ident(name)} NO SCROLL CURSOR FOR ${statement}`);
        return cursorOf<R>(name, tx);
      };
      return read(await open(tx, declare));
    });
  }

  const names: string[] = [];
  const opened = await store.transaction(async (tx) => {
    await tx.query(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    const declare: DeclareCursor = async <R>(statement: SqlFragment) => {
      const name = `${prefix}_${count++}`;
      await tx.query(sql`DECLARE ${ident(name)} NO SCROLL CURSOR WITH HOLD FOR ${statement}`);
      names.push(name);
      return cursorOf<R>(name, store);
    };
    return open(tx, declare);
  });
  try {
    return await read(opened);
  } finally {
    for (const name of names) await store.query(sql`CLOSE ${ident(name)}`).catch(() => undefined);
  }
}
