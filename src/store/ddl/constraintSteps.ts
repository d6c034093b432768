// DDL of the column-property steps: required (NOT NULL), default, btree index and unique index.
// Checks that depend on stored data run first and fail with an error naming the field.

import { badInput, conflict } from '../../errors/index.js';
import { ident, sql } from '../../sql/index.js';
import { createIndex, createUniqueIndex, defaultExpression } from './columns.js';
import { tableRef, targetType, targetValueField } from './context.js';
import type { DdlContext } from './context.js';
import { isDataError, isUniqueViolation } from './dataErrors.js';
import { indexName, uniqueIndexName } from './names.js';

function target(ctx: DdlContext, typeName: string, fieldName: string) {
  const type = targetType(ctx, typeName);
  const field = targetValueField(ctx, type, fieldName);
  return { type, field, table: tableRef(ctx, type.table), column: ident(field.column), label: `${type.name}.${field.name}` };
}

export async function setRequired(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { type, field, table, column, label } = target(ctx, typeName, fieldName);
  const def = defaultExpression(field);
  if (def) {
    await ctx.tx.query(sql`UPDATE ${table} SET ${column} = ${def} WHERE ${column} IS NULL`);
  } else {
    const { rows } = await ctx.tx.query<{ found: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM ${table} WHERE ${column} IS NULL) AS found`);
    if (rows[0]?.found) throw badInput(`Cannot make ${label} required: ${type.name} has rows with no value; add @default(value: …)`);
  }
  try {
    await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} SET NOT NULL`);
  } catch (err) {
    // Only a row written between the check and the ALTER can get here.
    if (isDataError(err)) throw badInput(`Cannot make ${label} required: ${type.name} has rows with no value; add @default(value: …)`);
    throw err;
  }
}

export async function dropRequired(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { table, column } = target(ctx, typeName, fieldName);
  await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} DROP NOT NULL`);
}

export async function setDefault(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { field, table, column } = target(ctx, typeName, fieldName);
  const def = defaultExpression(field);
  if (def) await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} SET DEFAULT ${def}`);
  else await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} DROP DEFAULT`);
}

export async function dropDefault(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { table, column } = target(ctx, typeName, fieldName);
  await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} DROP DEFAULT`);
}

export async function addIndex(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { type, field } = target(ctx, typeName, fieldName);
  await ctx.tx.query(createIndex(ctx, type.table, field));
}

export async function dropIndex(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { type, field } = target(ctx, typeName, fieldName);
  await ctx.tx.query(sql`DROP INDEX IF EXISTS ${ident(ctx.schema, indexName(type.table, field.column))}`);
}

export async function addUnique(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { type, field, label } = target(ctx, typeName, fieldName);
  try {
    await ctx.tx.query(createUniqueIndex(ctx, type.table, field, type));
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`Cannot make ${label} unique: some ${type.name} rows share a value`);
    throw err;
  }
}

export async function dropUnique(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const { type, field } = target(ctx, typeName, fieldName);
  await ctx.tx.query(sql`DROP INDEX IF EXISTS ${ident(ctx.schema, uniqueIndexName(type.table, field.column))}`);
}
