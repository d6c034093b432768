// The time a row was last linked: every table holding a relation column (a foreign key that
// empties on delete) has a column `tessera$linked`, the id of the transaction that made the row
// or last pointed one of those columns at a row (a trigger, whatever the path of the write:
// a mutation, an edge mutation, a nested create, an import). A subscription's event statement
// reads such a row as it is at delivery, and counts its links only if that transaction had
// committed by the event's (src/compile/subscription.ts, docs/realtime.md). Emptying a column
// grants nothing, so it leaves the time as it was.

import { LINK_TIME_COLUMN } from '../../model/index.js';
import { ident, join, sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

/** The trigger of a table's link time (one per table, named like no index or constraint Tessera makes). */
const TRIGGER = ident(LINK_TIME_COLUMN);
const COLUMN = ident(LINK_TIME_COLUMN);

/** The relation columns of each table of `schema`, as the database has them now. */
async function relationColumns(q: Queryable, schema: string): Promise<Map<string, string[]>> {
  const { rows } = await q.query<{ table: string; columns: string[] }>(sql`
    SELECT t.relname AS table, array_agg(a.attname::text ORDER BY a.attname) AS columns
      FROM pg_constraint c
      JOIN pg_class t ON t.oid = c.conrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
     WHERE n.nspname = ${schema} AND c.contype = 'f' AND c.confdeltype = 'n'
     GROUP BY t.relname`);
  return new Map(rows.map((r) => [r.table, r.columns]));
}

async function linkTime(q: Queryable, schema: string, table: string, columns: readonly string[]): Promise<void> {
  const ref = ident(schema, table);
  // The default set apart from the column: a volatile default would rewrite the table.
  await q.query(sql`ALTER TABLE ${ref} ADD COLUMN IF NOT EXISTS ${COLUMN} xid8, ALTER COLUMN ${COLUMN} SET DEFAULT pg_current_xact_id()`);
  const cols = columns.map((c) => ident(c));
  const linked = join(
    cols.map((c) => sql`(NEW.${c} IS NOT NULL AND NEW.${c} IS DISTINCT FROM OLD.${c})`),
    sql` OR `,
  );
  await q.query(sql`CREATE OR REPLACE TRIGGER ${TRIGGER} BEFORE UPDATE OF ${join(cols)} ON ${ref} FOR EACH ROW WHEN (${linked}) EXECUTE FUNCTION tessera.link_time()`);
}

/** Drops the table's link trigger, which holds on to its columns (the column it sets stays). */
export async function dropLinkTrigger(q: Queryable, schema: string, table: string): Promise<void> {
  await q.query(sql`DROP TRIGGER IF EXISTS ${TRIGGER} ON ${ident(schema, table)}`);
}

/**
 * Gives every table of `schema` that holds relation columns its link time, over the relation
 * columns it holds now: the column (no value for rows already there, which then count as linked
 * before any event; the transaction's id for rows made from now on) and the trigger. Run after
 * relation columns are added or dropped (dropping one needs `dropLinkTrigger` first), and for an
 * app made before link times were kept.
 */
export async function syncLinkTimes(q: Queryable, schema: string): Promise<void> {
  for (const [table, columns] of await relationColumns(q, schema)) await linkTime(q, schema, table, columns);
}
