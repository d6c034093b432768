// Keeps derived index and constraint names in step with renames: after a table or column is
// renamed, every object named after the old table/column gets the name derived from the new one.

import { ident, sql } from '../../sql/index.js';
import type { DdlContext } from './context.js';
import { NAME_SUFFIXES, derivedName } from './names.js';
import type { NameSuffix } from './names.js';

interface Rename {
  fromTable: string;
  toTable: string;
  /** Set for a column rename; a table rename leaves columns as they are. */
  column?: { from: string; to: string };
}

/** The table's current columns, constraints and indexes not backing a constraint. */
async function tableObjects(ctx: DdlContext, table: string) {
  const columns = await ctx.tx.query<{ name: string }>(sql`
    SELECT a.attname AS name FROM pg_attribute a
      JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = ${ctx.schema} AND t.relname = ${table} AND a.attnum > 0 AND NOT a.attisdropped`);
  const constraints = await ctx.tx.query<{ name: string }>(sql`
    SELECT c.conname AS name FROM pg_constraint c
      JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = ${ctx.schema} AND t.relname = ${table}`);
  const indexes = await ctx.tx.query<{ name: string }>(sql`
    SELECT i.relname AS name FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = ${ctx.schema} AND t.relname = ${table}
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`);
  return {
    columns: columns.rows.map((r) => r.name),
    constraints: new Set(constraints.rows.map((r) => r.name)),
    indexes: new Set(indexes.rows.map((r) => r.name)),
  };
}

/** Every (old name, new name) pair a rename can affect, for the columns the table has now. */
function candidates(rename: Rename, columns: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  const add = (before: string[], after: string[], suffix: NameSuffix) =>
    pairs.push([derivedName(rename.fromTable, before, suffix), derivedName(rename.toTable, after, suffix)]);
  const { column } = rename;
  // Columns are listed under their current (new) names; map them back for the old names.
  const old = (c: string) => (column && c === column.to ? column.from : c);
  for (const c of columns) {
    if (column && c !== column.to) continue;
    for (const suffix of NAME_SUFFIXES) if (suffix !== 'pkey') add([old(c)], [c], suffix);
    // PostgreSQL 18 (the embedded store) records NOT NULL as constraints named like ours.
    const notNull = (t: string, col: string) => `${t}_${col}_not_null`;
    const after = notNull(rename.toTable, c);
    if (Buffer.byteLength(after, 'utf8') <= 63) pairs.push([notNull(rename.fromTable, old(c)), after]);
  }
  for (const a of columns) {
    for (const b of columns) {
      if (a === b || (column && a !== column.to && b !== column.to)) continue;
      add([old(a), old(b)], [a, b], 'key');
    }
  }
  if (!column) add([], [], 'pkey');
  return pairs.filter(([before, after]) => before !== after);
}

/** Renames the derived objects of `rename.toTable` (already renamed itself, if it was). */
export async function renameDerivedNames(ctx: DdlContext, rename: Rename): Promise<void> {
  const table = rename.toTable;
  const objects = await tableObjects(ctx, table);
  for (const [before, after] of candidates(rename, objects.columns)) {
    if (objects.constraints.has(before)) {
      await ctx.tx.query(sql`ALTER TABLE ${ident(ctx.schema, table)} RENAME CONSTRAINT ${ident(before)} TO ${ident(after)}`);
    } else if (objects.indexes.has(before)) {
      await ctx.tx.query(sql`ALTER INDEX ${ident(ctx.schema, before)} RENAME TO ${ident(after)}`);
    }
  }
}
