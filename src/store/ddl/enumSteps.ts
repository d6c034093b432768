// DDL of changing an enum: enums are text columns with a check listing the values, so every
// column using the enum gets its check replaced; removing a value still stored is refused.

import { badInput } from '../../errors/index.js';
import type { ValueField } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import { checkedEnum, enumCheck } from './columns.js';
import { enumValues, previousRelation, sourceValueField, tableRef } from './context.js';
import type { DdlContext } from './context.js';
import { checkName } from './names.js';

interface EnumColumn {
  table: string;
  field: ValueField;
  label: string;
}

/**
 * Columns that use the enum both before and after this plan. A column that only becomes an
 * enum column in this plan gets its check from its own addField/alterFieldType step.
 */
function columnsUsing(ctx: DdlContext, enumName: string): EnumColumn[] {
  const columns: EnumColumn[] = [];
  for (const type of ctx.to.types) {
    for (const field of type.fields) {
      if (field.kind !== 'value' || checkedEnum(field) !== enumName) continue;
      const before = sourceValueField(ctx, type.name, field);
      if (before && checkedEnum(before) === enumName) columns.push({ table: type.table, field, label: `${type.name}.${field.name}` });
    }
  }
  for (const relation of ctx.to.relations) {
    if (relation.storage.kind !== 'joinTable') continue;
    const before = previousRelation(ctx, relation.name);
    for (const field of relation.joinFields) {
      const old = before?.joinFields.find((f) => f.name === field.name);
      if (checkedEnum(field) === enumName && old && checkedEnum(old) === enumName) {
        columns.push({ table: relation.storage.table, field, label: `${relation.name}.${field.name}` });
      }
    }
  }
  return columns;
}

export async function alterEnum(ctx: DdlContext, enumName: string, removed: readonly string[]): Promise<void> {
  const values = enumValues(ctx.to, enumName);
  for (const { table, field, label } of columnsUsing(ctx, enumName)) {
    const ref = tableRef(ctx, table);
    const column = ident(field.column);
    if (removed.length > 0) {
      const { rows } = await ctx.tx.query<{ value: string }>(sql`
        SELECT DISTINCT ${column} AS value FROM ${ref} WHERE ${column} = ANY (${[...removed]}::text[]) ORDER BY 1`);
      if (rows.length > 0) {
        const used = rows.map((r) => r.value).join(', ');
        throw badInput(`Cannot remove ${used} from enum ${enumName}: ${label} still holds it; update those rows first`);
      }
    }
    await ctx.tx.query(sql`ALTER TABLE ${ref} DROP CONSTRAINT IF EXISTS ${ident(checkName(table, field.column))}`);
    await ctx.tx.query(sql`ALTER TABLE ${ref} ADD ${enumCheck(table, field.column, values)}`);
  }
}
