// DDL of the type steps: a `@model` type is a table with the system columns and a column per
// value field (relations arrive as their own steps); renaming keeps rows and derived names.

import { ident, join, sql } from '../../sql/index.js';
import type { ValueField } from '../../model/index.js';
import { columnDefinition, fieldIndexes, systemColumns } from './columns.js';
import { sourceType, tableRef, targetType } from './context.js';
import type { DdlContext } from './context.js';
import { renameDerivedNames } from './rename.js';

export async function createType(ctx: DdlContext, typeName: string): Promise<void> {
  const type = targetType(ctx, typeName);
  const values = type.fields.filter((f): f is ValueField => f.kind === 'value');
  const columns = [...systemColumns(type.table), ...values.map((f) => columnDefinition(ctx.to, type.table, f))];
  await ctx.tx.query(sql`CREATE TABLE ${tableRef(ctx, type.table)} (${join(columns)})`);
  for (const f of values) for (const statement of fieldIndexes(ctx, type.table, f, type)) await ctx.tx.query(statement);
}

export async function dropType(ctx: DdlContext, typeName: string): Promise<void> {
  // Relations to the type were dropped by earlier steps; anything left is a planner error.
  const table = sourceType(ctx, typeName)?.table ?? typeName;
  await ctx.tx.query(sql`DROP TABLE ${tableRef(ctx, table)}`);
}

export async function renameType(ctx: DdlContext, from: string, to: string): Promise<void> {
  const before = sourceType(ctx, from)?.table ?? from;
  const after = targetType(ctx, to).table;
  if (before === after) return;
  await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, before)} RENAME TO ${ident(after)}`);
  await renameDerivedNames(ctx, { fromTable: before, toTable: after });
}
