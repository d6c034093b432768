// Creates or upgrades the `tessera` catalog schema to this code's version. Idempotent, and safe
// when several instances start at once: upgrades run under one advisory lock.

import { sql } from '../../sql/index.js';
import type { Queryable, Store } from '../types.js';
import { UNBOUNDED_TRANSACTION } from '../statements.js';
import { CATALOG_MIGRATIONS, CATALOG_VERSION } from './migrations.js';

const CATALOG_LOCK = 'tessera:catalog';

/** The catalog version recorded in the database; 0 when there is no catalog yet. */
export async function catalogVersion(q: Queryable): Promise<number> {
  const exists = await q.query<{ present: boolean }>(sql`SELECT to_regclass('tessera.meta') IS NOT NULL AS present`);
  if (!exists.rows[0]?.present) return 0;
  const { rows } = await q.query<{ version: number | null }>(sql`SELECT max(version) AS version FROM tessera.meta`);
  return rows[0]?.version ?? 0;
}

function tooNew(version: number): Error {
  return new Error(
    `The database's catalog is at version ${version}, newer than this Tessera supports (${CATALOG_VERSION}); upgrade Tessera`,
  );
}

export async function ensureCatalog(store: Store): Promise<void> {
  // Fast path without a write or a lock: every instance start after the first.
  const seen = await catalogVersion(store);
  if (seen === CATALOG_VERSION) return;
  if (seen > CATALOG_VERSION) throw tooNew(seen);

  await store.transaction(async (tx) => {
    // Catalog upgrades may wait for another instance's and rewrite tables: no statement timeout.
    await tx.query(UNBOUNDED_TRANSACTION);
    await tx.advisoryLock(CATALOG_LOCK);
    // Another instance may have upgraded while this one waited for the lock.
    await tx.query(sql`CREATE SCHEMA IF NOT EXISTS tessera`);
    await tx.query(sql`CREATE TABLE IF NOT EXISTS tessera.meta (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await catalogVersion(tx);
    if (current > CATALOG_VERSION) throw tooNew(current);
    for (const migration of CATALOG_MIGRATIONS) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query(sql`INSERT INTO tessera.meta (version, name) VALUES (${migration.version}, ${migration.name})`);
    }
  });
}
