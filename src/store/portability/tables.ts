// The tables of an app as an archive sees them: every `@model` type's table and every join
// table, each with its columns (system columns, values, foreign keys, in table order) and the
// foreign-key constraints it declares. Read from the model, as the DDL stage made them.

import type { AppModel, ValueField } from '../../model/index.js';
import { columnType } from '../ddl/columns.js';
import type { ColumnType } from '../ddl/columns.js';
import { foreignKeyName } from '../ddl/names.js';

/** How a column's values travel: as its SQL type (`uuid` for ids and references). */
export type ColumnKind = ColumnType | 'uuid';

export interface TableColumn {
  name: string;
  kind: ColumnKind;
}

export interface AppTable {
  /** The table's name (a type's or relation's table). */
  name: string;
  /** A `@model` type's table, or a many-to-many relation's join table. */
  of: 'type' | 'relation';
  columns: TableColumn[];
  /** Names of the foreign-key constraints on the table. */
  foreignKeys: string[];
}

const SYSTEM_COLUMNS: readonly TableColumn[] = [
  { name: 'id', kind: 'uuid' },
  { name: 'createdAt', kind: 'timestamptz(3)' },
  { name: 'modifiedAt', kind: 'timestamptz(3)' },
];

const valueColumn = (f: ValueField): TableColumn => ({ name: f.column, kind: columnType(f) });

/** The app's tables: types first, then join tables, each list sorted by name. */
export function appTables(model: AppModel): AppTable[] {
  const tables: AppTable[] = model.types.map((type) => ({
    name: type.table,
    of: 'type',
    columns: [...SYSTEM_COLUMNS, ...type.fields.filter((f): f is ValueField => f.kind === 'value').map(valueColumn)],
    foreignKeys: [],
  }));
  const byName = new Map(tables.map((t) => [t.name, t]));
  const joins: AppTable[] = [];
  for (const relation of model.relations) {
    const storage = relation.storage;
    if (storage.kind === 'foreignKey') {
      const table = byName.get(storage.table);
      if (!table) throw new Error(`relation ${relation.name} is stored on ${storage.table}, which is not a table of the model`);
      table.columns.push({ name: storage.column, kind: 'uuid' });
      table.foreignKeys.push(foreignKeyName(storage.table, storage.column));
    } else {
      joins.push({
        name: storage.table,
        of: 'relation',
        columns: [...SYSTEM_COLUMNS, ...storage.columns.map((c) => ({ name: c, kind: 'uuid' as const })), ...relation.joinFields.map(valueColumn)],
        foreignKeys: storage.columns.map((c) => foreignKeyName(storage.table, c)),
      });
    }
  }
  const byTableName = (a: AppTable, b: AppTable) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return [...tables.sort(byTableName), ...joins.sort(byTableName)];
}
