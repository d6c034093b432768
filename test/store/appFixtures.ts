// Apps for the migration tests: create one from SDL, push a new SDL to it (planned by the model
// stage, applied by the store), and look at the resulting tables through the system catalogs.

import { randomBytes } from 'node:crypto';
import { parseSchema, planMigration } from '../../src/model/index.js';
import type { AppModel, MigrationPlan, MigrationStepKind } from '../../src/model/index.js';
import { ident, join, sql } from '../../src/sql/index.js';
import { appSchemaName, applyPlan, insertApp, insertSchemaVersion, lockApp } from '../../src/store/index.js';
import type { Queryable, Store } from '../../src/store/index.js';

export interface TestApp {
  id: string;
  schema: string;
  model: AppModel;
}

export function newAppId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(12);
  return [...bytes].map((b, i) => alphabet[i === 0 ? b % 26 : b % alphabet.length]).join('');
}

/** Creates an app as the management service does: catalog row, schema, version 1. */
export async function createTestApp(store: Store, sdl: string): Promise<TestApp> {
  const id = newAppId();
  const model = parseSchema(sdl);
  const plan = planMigration(null, model);
  await store.transaction(async (tx) => {
    await insertApp(tx, { id, name: `app-${id}`, settings: {} });
    await lockApp(tx, id);
    await applyPlan(tx, id, plan);
    await insertSchemaVersion(tx, { appId: id, version: 1, sdl, model, steps: plan.steps });
  });
  return { id, schema: appSchemaName(id), model };
}

/** Plans and applies the move to `sdl`; on success the app's model is the new one. */
export async function migrateTestApp(store: Store, app: TestApp, sdl: string): Promise<MigrationStepKind[]> {
  const model = parseSchema(sdl);
  const plan = planMigration(app.model, model);
  await applyTestPlan(store, app, plan);
  app.model = model;
  return plan.steps.map((s) => s.step.kind);
}

export async function applyTestPlan(store: Store, app: TestApp, plan: MigrationPlan): Promise<void> {
  await store.transaction(async (tx) => {
    await lockApp(tx, app.id);
    await applyPlan(tx, app.id, plan);
  });
}

export interface ColumnInfo {
  type: string;
  nullable: boolean;
  default: string | null;
}

/** The table's columns: formatted type, nullability and default expression. */
export async function columnsOf(q: Queryable, app: TestApp, table: string): Promise<Record<string, ColumnInfo>> {
  const { rows } = await q.query<{ name: string; type: string; notnull: boolean; def: string | null }>(sql`
    SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
           pg_get_expr(d.adbin, d.adrelid) AS def
      FROM pg_attribute a
      JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname = ${app.schema} AND t.relname = ${table} AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY a.attnum`);
  return Object.fromEntries(rows.map((r) => [r.name, { type: r.type, nullable: !r.notnull, default: r.def }]));
}

/** Index name → definition (`CREATE UNIQUE INDEX … USING btree (…)`). */
export async function indexesOf(q: Queryable, app: TestApp, table: string): Promise<Record<string, string>> {
  const { rows } = await q.query<{ name: string; def: string }>(sql`
    SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = ${app.schema} AND tablename = ${table}
     ORDER BY indexname`);
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

/**
 * Constraint name → definition (`CHECK (…)`, `FOREIGN KEY (…) REFERENCES …`). NOT NULL is
 * left out: PostgreSQL 18 (the embedded store) lists it as a constraint, 15 does not.
 */
export async function constraintsOf(q: Queryable, app: TestApp, table: string): Promise<Record<string, string>> {
  const { rows } = await q.query<{ name: string; def: string }>(sql`
    SELECT c.conname AS name, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
      JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = ${app.schema} AND t.relname = ${table} AND c.contype <> 'n' ORDER BY c.conname`);
  return Object.fromEntries(rows.map((r) => [r.name, r.def]));
}

export async function tablesOf(q: Queryable, app: TestApp): Promise<string[]> {
  const { rows } = await q.query<{ name: string }>(
    sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = ${app.schema} ORDER BY tablename`,
  );
  return rows.map((r) => r.name);
}

let clock = Date.UTC(2020, 0, 1);

/**
 * Inserts a row into one of the app's tables and returns its id. Rows get increasing
 * `createdAt` values (unless given), so `rowsOf` lists them in insertion order.
 */
export async function insertRow(q: Queryable, app: TestApp, table: string, given: Record<string, unknown>): Promise<string> {
  const values = { createdAt: new Date((clock += 1000)), ...given };
  const names = Object.keys(values);
  const columns = names.map((n) => ident(n));
  const params = names.map((n) => sql`${values[n as keyof typeof values]}`);
  const statement = sql`INSERT INTO ${ident(app.schema, table)} (${join(columns)}) VALUES (${join(params)}) RETURNING id`;
  const { rows } = await q.query<{ id: string }>(statement);
  return rows[0]!.id;
}

export async function rowsOf<R = Record<string, unknown>>(q: Queryable, app: TestApp, table: string, columns: string[]): Promise<R[]> {
  const list = join(columns.map((c) => ident(c)));
  const { rows } = await q.query<R>(sql`SELECT ${list} FROM ${ident(app.schema, table)} ORDER BY "createdAt", id`);
  return rows;
}
