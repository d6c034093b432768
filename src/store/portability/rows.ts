// The statements that move an app's rows: each row as the text of a JSON array (export), a
// batch of such rows inserted in one statement (import), a table copied to another app inside
// the database (fork), and foreign keys checked once at the end of a load instead of per row.

import { ident, join, literal, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { appSchemaName } from '../catalog/appIds.js';
import { columnTypeSql } from '../ddl/columns.js';
import type { Transaction } from '../types.js';
import type { AppTable, ColumnKind, TableColumn } from './tables.js';

/** PostgreSQL takes at most 100 arguments per function call. */
const ARGUMENTS_PER_CALL = 90;

function typeSql(kind: ColumnKind): SqlFragment {
  return kind === 'uuid' ? sql`uuid` : columnTypeSql(kind);
}

/**
 * `SELECT <row as JSON array text> AS r FROM <table>`: values in the order of `columns`, as
 * PostgreSQL writes them in JSON (DateTime as ISO 8601 with offset, jsonb as its JSON).
 */
export function rowsAsJson(appId: string, table: string, columns: readonly TableColumn[]): SqlFragment {
  const chunks: SqlFragment[] = [];
  for (let i = 0; i < columns.length; i += ARGUMENTS_PER_CALL) {
    chunks.push(sql`json_build_array(${join(columns.slice(i, i + ARGUMENTS_PER_CALL).map((c) => ident(c.name)))})`);
  }
  const array = chunks.length === 1 ? chunks[0]! : join(chunks.map((c) => sql`${c}::jsonb`), sql` || `);
  return sql`SELECT (${array})::text AS r FROM ${ident(appSchemaName(appId), table)}`;
}

/**
 * Inserts a batch of rows, given as the text of a JSON array of row arrays whose values follow
 * `columns`: one statement, the values cast by PostgreSQL to each column's type.
 */
export function insertJsonRows(appId: string, table: string, columns: readonly TableColumn[], batch: string): SqlFragment {
  const values = columns.map((c, i) => {
    const at = literal(i);
    // JSON null is no value (the API never stores a JSON null in a jsonb column).
    return c.kind === 'jsonb' ? sql`NULLIF(r -> ${at}, 'null'::jsonb)` : sql`(r ->> ${at})::${typeSql(c.kind)}`;
  });
  return sql`INSERT INTO ${ident(appSchemaName(appId), table)} (${join(columns.map((c) => ident(c.name)))})
    SELECT ${join(values)} FROM jsonb_array_elements(${batch}::jsonb) AS r`;
}

/** Copies a table's rows to the same table of another app, in the database. */
export async function copyTable(tx: Transaction, fromApp: string, toApp: string, table: string, columns: readonly string[]): Promise<number> {
  const list = join(columns.map((c) => ident(c)));
  const { rowCount } = await tx.query(sql`INSERT INTO ${ident(appSchemaName(toApp), table)} (${list}) SELECT ${list} FROM ${ident(appSchemaName(fromApp), table)}`);
  return rowCount;
}

/** Empties the tables (of a new app: the rows its built-in types seed). */
export async function clearTables(tx: Transaction, appId: string, tables: readonly AppTable[]): Promise<void> {
  for (const t of tables) await tx.query(sql`DELETE FROM ${ident(appSchemaName(appId), t.name)}`);
}

/**
 * Makes the tables' foreign keys checked at the end of the transaction (or at `checkForeignKeys`),
 * so rows may arrive in any order: references to rows not loaded yet, self references, cycles.
 */
export async function deferForeignKeys(tx: Transaction, appId: string, tables: readonly AppTable[]): Promise<void> {
  for (const t of tables) {
    for (const fk of t.foreignKeys) {
      await tx.query(sql`ALTER TABLE ${ident(appSchemaName(appId), t.name)} ALTER CONSTRAINT ${ident(fk)} DEFERRABLE INITIALLY DEFERRED`);
    }
  }
}

/** Checks every deferred foreign key now, then makes them as the DDL stage declares them again. */
export async function checkForeignKeys(tx: Transaction, appId: string, tables: readonly AppTable[]): Promise<void> {
  await tx.query(sql`SET CONSTRAINTS ALL IMMEDIATE`);
  for (const t of tables) {
    for (const fk of t.foreignKeys) {
      await tx.query(sql`ALTER TABLE ${ident(appSchemaName(appId), t.name)} ALTER CONSTRAINT ${ident(fk)} NOT DEFERRABLE`);
    }
  }
}
