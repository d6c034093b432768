// DDL of changing a field's type: the column is converted in place with an explicit cast; a
// stored value that does not convert fails the migration with an error naming the field.

import { badInput, conflict } from '../../errors/index.js';
import type { ValueField } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { checkedEnum, columnType, columnTypeSql, defaultExpression, enumCheck } from './columns.js';
import type { ColumnType } from './columns.js';
import { enumValues, sourceValueField, tableRef, targetType, targetValueField } from './context.js';
import type { DdlContext } from './context.js';
import { isDataError, isUniqueViolation } from './dataErrors.js';
import { checkName } from './names.js';

/**
 * `expr` converted from `from` to `to`. Lossy conversions go through text, whose cast refuses
 * what does not fit (`'1.5'::integer`), so a value is converted exactly or the statement fails.
 */
function castScalar(expr: SqlFragment, from: ColumnType, to: Exclude<ColumnType, 'jsonb'>): SqlFragment {
  const target = columnTypeSql(to);
  const viaText = sql`(${expr})::text::${target}`;
  switch (to) {
    case 'text':
      if (from === 'timestamptz(3)') return sql`to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      if (from === 'jsonb') return sql`(${expr}) #>> '{}'`;
      return sql`(${expr})::text`;
    case 'integer':
      if (from === 'double precision') return sql`CASE WHEN ${expr} = trunc(${expr}) THEN (${expr})::integer ELSE ${viaText} END`;
      if (from === 'boolean') return sql`(${expr})::integer`;
      break;
    case 'double precision':
      if (from === 'integer') return sql`(${expr})::double precision`;
      if (from === 'boolean') return sql`(${expr})::integer::double precision`;
      break;
    case 'boolean':
      if (from === 'integer' || from === 'double precision') {
        return sql`CASE WHEN ${expr} IN (0, 1) THEN (${expr})::integer::boolean ELSE ${viaText} END`;
      }
      break;
    case 'timestamptz(3)':
      break;
    default: {
      const never: never = to;
      throw new Error(`unknown column type ${String(never)}`);
    }
  }
  if (from === 'jsonb') return sql`((${expr}) #>> '{}')::${target}`;
  return viaText;
}

/** The USING expression converting a column of `before` into one of `after`. */
function conversion(column: SqlFragment, before: ValueField, after: ValueField): SqlFragment {
  const from = columnType(before);
  const to = columnType(after);
  if (to !== 'jsonb') {
    // A list becomes its only element (lists of more were refused before this runs).
    const source = before.list ? sql`(${column} ->> 0)` : column;
    return castScalar(source, before.list ? 'text' : from, to);
  }
  if (after.list && !before.list) return sql`CASE WHEN ${column} IS NULL THEN NULL ELSE jsonb_build_array(${column}) END`;
  return sql`to_jsonb(${column})`;
}

export async function alterFieldType(ctx: DdlContext, typeName: string, fieldName: string, fromLabel: string, toLabel: string): Promise<void> {
  const type = targetType(ctx, typeName);
  const after = targetValueField(ctx, type, fieldName);
  const before = sourceValueField(ctx, typeName, after);
  if (!before) throw new Error(`Migration plan does not match its models: no source field for ${type.name}.${after.name}`);
  const table = tableRef(ctx, type.table);
  const column = ident(after.column);
  const label = `${type.name}.${after.name}`;
  const refuse = (why: string) => badInput(`Cannot change the type of ${label} from ${fromLabel} to ${toLabel}: ${why}`);

  // The old default and enum check may not fit the new type; the target's are set at the end.
  await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} DROP DEFAULT`);
  await ctx.tx.query(sql`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${ident(checkName(type.table, after.column))}`);

  const oldType = columnType(before);
  const newType = columnType(after);
  if (before.list && !after.list) {
    const { rows } = await ctx.tx.query<{ found: boolean }>(sql`
      SELECT EXISTS (SELECT 1 FROM ${table} WHERE ${column} IS NOT NULL
        AND (jsonb_typeof(${column}) <> 'array' OR jsonb_array_length(${column}) > 1)) AS found`);
    if (rows[0]?.found) throw refuse('some rows hold lists of more than one value');
  }
  if (oldType !== newType || before.list !== after.list) {
    try {
      await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${columnTypeSql(newType)} USING ${conversion(column, before, after)}`);
    } catch (err) {
      if (isDataError(err)) throw refuse('some stored values do not convert');
      if (isUniqueViolation(err)) throw conflict(`Cannot change the type of ${label}: converted values are no longer unique`);
      throw err;
    }
  }

  const enumName = checkedEnum(after);
  if (enumName) {
    const values = enumValues(ctx.to, enumName);
    const { rows } = await ctx.tx.query<{ value: string }>(sql`
      SELECT DISTINCT ${column} AS value FROM ${table}
       WHERE ${column} IS NOT NULL AND NOT (${column} = ANY (${values}::text[]))
       ORDER BY 1 LIMIT 5`);
    if (rows.length > 0) throw refuse(`stored values not in enum ${enumName}: ${rows.map((r) => JSON.stringify(r.value)).join(', ')}`);
    await ctx.tx.query(sql`ALTER TABLE ${table} ADD ${enumCheck(type.table, after.column, values)}`);
  }
  const def = defaultExpression(after);
  if (def) await ctx.tx.query(sql`ALTER TABLE ${table} ALTER COLUMN ${column} SET DEFAULT ${def}`);
}
