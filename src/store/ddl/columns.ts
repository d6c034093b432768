// How a value field is stored: its column type, default, NOT NULL, enum check and indexes.
// Scalars map to native types; JSON, embedded values and every list are jsonb.

import { fieldTraits } from '../../model/index.js';
import type { AppModel, ModelType, ScalarName, ValueField } from '../../model/index.js';
import { ident, join, literal, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { enumValues, tableRef } from './context.js';
import type { DdlContext } from './context.js';
import { checkName, indexName, primaryKeyName, uniqueIndexName } from './names.js';

export type ColumnType = 'text' | 'integer' | 'double precision' | 'boolean' | 'timestamptz(3)' | 'jsonb';

const SCALAR_COLUMNS: Readonly<Record<ScalarName, ColumnType>> = {
  ID: 'text',
  String: 'text',
  Text: 'text',
  Int: 'integer',
  Float: 'double precision',
  Boolean: 'boolean',
  DateTime: 'timestamptz(3)',
  JSON: 'jsonb',
};

export function columnType(field: ValueField): ColumnType {
  if (field.list) return 'jsonb';
  const t = field.type;
  switch (t.kind) {
    case 'enum':
      return 'text';
    case 'embedded':
      return 'jsonb';
    case 'scalar':
      return SCALAR_COLUMNS[t.name];
    default: {
      const never: never = t;
      throw new Error(`unknown field type ${JSON.stringify(never)}`);
    }
  }
}

/** The column type as SQL (a fixed keyword list: nothing user-given reaches this text). */
export function columnTypeSql(type: ColumnType): SqlFragment {
  switch (type) {
    case 'text':
      return sql`text`;
    case 'integer':
      return sql`integer`;
    case 'double precision':
      return sql`double precision`;
    case 'boolean':
      return sql`boolean`;
    case 'timestamptz(3)':
      return sql`timestamptz(3)`;
    case 'jsonb':
      return sql`jsonb`;
    default: {
      const never: never = type;
      throw new Error(`unknown column type ${String(never)}`);
    }
  }
}

/** The field's `@default` as an SQL expression (DDL takes no parameters, hence literals). */
export function defaultExpression(field: ValueField): SqlFragment | undefined {
  const value = field.default;
  if (value === undefined) return undefined;
  const type = columnType(field);
  if (type === 'jsonb') return sql`${literal(JSON.stringify(value))}::jsonb`;
  if (value === null) return sql`NULL`;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return sql`${literal(value)}::${columnTypeSql(type)}`;
  }
  throw new Error(`default of ${field.name} is not a ${type} value`);
}

/** The enum a field's column is checked against (single enum values only; lists are jsonb). */
export function checkedEnum(field: ValueField): string | undefined {
  return !field.list && field.type.kind === 'enum' ? field.type.name : undefined;
}

/** `CONSTRAINT "T_c_check" CHECK ("c" IN ('A', 'B'))` */
export function enumCheck(table: string, column: string, values: readonly string[]): SqlFragment {
  const list = join(values.map((v) => literal(v)));
  return sql`CONSTRAINT ${ident(checkName(table, column))} CHECK (${ident(column)} IN (${list}))`;
}

/** `"c" type [NOT NULL] [DEFAULT …] [CHECK …]`, for CREATE TABLE and ADD COLUMN. */
export function columnDefinition(model: AppModel, table: string, field: ValueField): SqlFragment {
  const parts = [sql`${ident(field.column)} ${columnTypeSql(columnType(field))}`];
  if (field.required) parts.push(sql`NOT NULL`);
  const def = defaultExpression(field);
  if (def) parts.push(sql`DEFAULT ${def}`);
  const e = checkedEnum(field);
  if (e) parts.push(enumCheck(table, field.column, enumValues(model, e)));
  return join(parts, sql` `);
}

/** Some built-in fields (`User.username`, `User.email`) are unique ignoring case. */
function uniqueTarget(type: ModelType | undefined, field: ValueField): SqlFragment {
  const column = ident(field.column);
  return type && fieldTraits(type, field).uniqueIgnoringCase ? sql`lower(${column})` : column;
}

export function createIndex(ctx: DdlContext, table: string, field: ValueField): SqlFragment {
  return sql`CREATE INDEX IF NOT EXISTS ${ident(indexName(table, field.column))} ON ${tableRef(ctx, table)} (${ident(field.column)})`;
}

export function createUniqueIndex(ctx: DdlContext, table: string, field: ValueField, type?: ModelType): SqlFragment {
  const name = ident(uniqueIndexName(table, field.column));
  return sql`CREATE UNIQUE INDEX IF NOT EXISTS ${name} ON ${tableRef(ctx, table)} (${uniqueTarget(type, field)})`;
}

/** The indexes a field declares: unique (`@unique`), else btree (`@index`). */
export function fieldIndexes(ctx: DdlContext, table: string, field: ValueField, type?: ModelType): SqlFragment[] {
  if (field.unique) return [createUniqueIndex(ctx, table, field, type)];
  if (field.index) return [createIndex(ctx, table, field)];
  return [];
}

/** The columns every `@model` table and join table starts with. */
export function systemColumns(table: string): SqlFragment[] {
  return [
    sql`id uuid CONSTRAINT ${ident(primaryKeyName(table))} PRIMARY KEY DEFAULT gen_random_uuid()`,
    sql`"createdAt" timestamptz(3) NOT NULL DEFAULT now()`,
    sql`"modifiedAt" timestamptz(3) NOT NULL DEFAULT now()`,
  ];
}
