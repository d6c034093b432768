// One cell of the data browser's table: a relation as a link to its object or list, an id by its
// tail, a File's size, hash and download as FileField shows them, any other value as it is.

import { Link } from '../components/Link';
import { dataViewHref } from '../router';
import { FieldValue } from './FieldValue';
import { FileField, isFileField } from './FileField';
import type { AppModel, Column, ModelInfo } from './model';
import type { Row } from './rows';

export function Cell({ appId, appModel, model, column, row }: { appId: string; appModel: AppModel; model: ModelInfo; column: Column; row: Row }) {
  const value = row[column.name];
  switch (column.kind) {
    case 'single': {
      const target = value as Record<string, unknown> | null;
      if (!target) return <span className="null">—</span>;
      const label = appModel.byName.get(column.target)?.labelField;
      const text = label && target[label] ? String(target[label]) : String(target.id);
      return (
        <Link href={dataViewHref(appId, column.target, { field: 'id', op: 'eq', value: String(target.id) })} title={`Open ${column.target} ${String(target.id)}`}>
          {text}
        </Link>
      );
    }
    case 'list': {
      const count = (value as { aggregations?: { count?: number } } | null)?.aggregations?.count ?? 0;
      return (
        <Link href={dataViewHref(appId, column.target, { from: model.name, parent: row.id, via: column.name })} aria-label={`${column.name} of ${model.name} ${row.id}: ${count}`}>
          {count} {column.target}
          {count === 1 ? '' : 's'} →
        </Link>
      );
    }
    case 'value':
      if (model.upload && isFileField(column.name)) return <FileField field={column.name} row={row} />;
      // Ids start with the same type prefix: their tail tells rows apart; the whole id is the title.
      if (column.name === 'id' && typeof value === 'string') return <code className="id" title={value}>…{value.slice(-10)}</code>;
      return <FieldValue value={value} />;
    default: {
      const never: never = column;
      return never;
    }
  }
}
