// DDL of adding, dropping and renaming fields: a value field is a column; renaming a relation
// field that holds a foreign key renames its `<field>Id` column.

import { badInput } from '../../errors/index.js';
import { idColumn } from '../../model/index.js';
import type { ValueField } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import { columnDefinition, fieldIndexes } from './columns.js';
import { hasRows, sourceType, tableRef, targetType, targetValueField } from './context.js';
import type { DdlContext } from './context.js';
import { renameDerivedNames } from './rename.js';

/**
 * Adds a column to `table`. A required column without a default cannot be filled in for the
 * rows already there: that is the developer's to fix (`label` names the field in the message).
 */
export async function addColumn(ctx: DdlContext, table: string, field: ValueField, label: string, owner: string): Promise<void> {
  if (field.required && field.default === undefined && (await hasRows(ctx, table))) {
    throw badInput(`Cannot add required field ${label}: ${owner} already has rows; add @default(value: …)`);
  }
  await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, table)} ADD COLUMN ${columnDefinition(ctx.to, table, field)}`);
}

export async function addField(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  const type = targetType(ctx, typeName);
  const field = targetValueField(ctx, type, fieldName);
  // Indexes come as their own addIndex/addUnique steps.
  await addColumn(ctx, type.table, field, `${type.name}.${field.name}`, type.name);
}

/** Join fields have no index steps of their own: their indexes come with the column. */
export async function addColumnWithIndexes(ctx: DdlContext, table: string, field: ValueField, label: string, owner: string): Promise<void> {
  await addColumn(ctx, table, field, label, owner);
  for (const statement of fieldIndexes(ctx, table, field)) await ctx.tx.query(statement);
}

export async function dropField(ctx: DdlContext, typeName: string, fieldName: string): Promise<void> {
  // Type renames ran first, so the table already has the target name.
  const table = targetType(ctx, typeName).table;
  const old = sourceType(ctx, typeName)?.fields.find((f) => f.name === fieldName);
  const column = old?.kind === 'value' ? old.column : fieldName;
  // The column's indexes and constraints go with it.
  await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, table)} DROP COLUMN ${ident(column)}`);
}

export async function renameField(ctx: DdlContext, typeName: string, from: string, to: string): Promise<void> {
  const type = targetType(ctx, typeName);
  const field = type.fields.find((f) => f.name === to);
  let columns: [string, string] | undefined;
  if (field?.kind === 'value') {
    const old = sourceType(ctx, typeName)?.fields.find((f) => f.name === from);
    columns = [old?.kind === 'value' ? old.column : from, field.column];
  } else if (field?.kind === 'relation') {
    const holdsKey = ctx.to.relations.some(
      (r) => r.storage.kind === 'foreignKey' && r.storage.table === type.table && r.storage.column === idColumn(to),
    );
    if (holdsKey) columns = [idColumn(from), idColumn(to)];
  }
  if (!columns || columns[0] === columns[1]) return;
  const [before, after] = columns;
  await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, type.table)} RENAME COLUMN ${ident(before)} TO ${ident(after)}`);
  await renameDerivedNames(ctx, { fromTable: type.table, toTable: type.table, column: { from: before, to: after } });
}
