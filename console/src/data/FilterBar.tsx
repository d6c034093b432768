// The data browser's filter: one field, one of its `where` operators, one value. Applying it
// puts it in the URL, so a filtered view can be bookmarked or shared.

import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { dataViewHref, navigate } from '../router';
import type { ModelInfo } from './model';
import type { PageRequest } from './rows';

export interface Filter {
  field: string;
  op: string;
  value: string;
}

export function FilterBar({ appId, model, current, via }: { appId: string; model: ModelInfo; current: Filter | undefined; via: PageRequest['via'] }) {
  const [field, setField] = useState(current?.field ?? model.filters.find((f) => f.valueType === 'String')?.name ?? model.filters[0]?.name ?? '');
  const info = model.filters.find((f) => f.name === field);
  const defaultOp = (i: typeof info) => (i?.operators.includes('like') ? 'like' : i?.operators.includes('eq') ? 'eq' : (i?.operators[0] ?? 'eq'));
  const [op, setOp] = useState(current?.op ?? defaultOp(info));
  const [value, setValue] = useState(current?.value ?? '');
  useEffect(() => {
    setField(current?.field ?? field);
    setOp(current?.op ?? op);
    setValue(current?.value ?? '');
    // Follows the URL only.
  }, [current?.field, current?.op, current?.value]);
  const base: Record<string, string> = via ? { from: via.parentType, parent: via.parentId, via: via.field } : {};
  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(dataViewHref(appId, model.name, { ...base, field, op, value }));
  };
  if (model.filters.length === 0) return null;
  return (
    <form className="filter-bar" onSubmit={apply} role="search" aria-label={`Filter ${model.name} objects`}>
      <label htmlFor="filter-field">Filter</label>
      <select
        id="filter-field"
        value={field}
        onChange={(e) => {
          setField(e.target.value);
          setOp(defaultOp(model.filters.find((f) => f.name === e.target.value)));
        }}
      >
        {model.filters.map((f) => (
          <option key={f.name}>{f.name}</option>
        ))}
      </select>
      <label htmlFor="filter-op" className="visually-hidden">
        Operator
      </label>
      <select id="filter-op" value={op} onChange={(e) => setOp(e.target.value)}>
        {info?.operators.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
      <label htmlFor="filter-value" className="visually-hidden">
        Value
      </label>
      <input
        id="filter-value"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder={op === 'like' ? '%pattern%' : op === 'isNull' ? 'true or false' : ['in', 'notIn', 'between', 'notBetween'].includes(op) ? 'a, b' : 'value'}
      />
      <button type="submit" className="button small">
        Apply filter
      </button>
      {current && (
        <button type="button" className="button small" onClick={() => navigate(dataViewHref(appId, model.name, base))}>
          Clear filter
        </button>
      )}
    </form>
  );
}
