// The form that creates a function: its name, kind and URL; for BEFORE and EVENT, the app's
// mutations it is called for (checkboxes, narrowed by a filter); headers as name/value rows;
// timeout, order and whether it starts enabled. A refusal the server ties to a field (its
// `extensions.field`) is shown at that field, which takes the focus.

import { useEffect, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { FUNCTION_KINDS, MAX_HEADERS, ORDER_BOUNDS, TIMEOUT_BOUNDS, createFunction } from '../api/functions';
import type { FunctionKind, FunctionWithSecret } from '../api/functions';
import { asApiError } from '../api/graphql';
import { ErrorBox } from '../components/ErrorBox';
import { useAction } from '../components/useAsync';
import type { MutationInfo } from './mutations';

const KIND_HINTS: Record<FunctionKind, string> = {
  BEFORE: 'Called before the write of its operations, in order: it may change the input or refuse the mutation.',
  EVENT: 'Told of its operations’ writes after they commit, through a durable outbox (at least once, retried for 24 hours).',
  RESOLVER: 'Resolves a field the app schema declares with @function(name: "…"); it has no operations.',
};

interface HeaderRow {
  key: number;
  name: string;
  value: string;
}

interface Draft {
  name: string;
  kind: FunctionKind;
  url: string;
  operations: string[];
  headers: HeaderRow[];
  timeoutMs: string;
  order: string;
  enabled: boolean;
}

const EMPTY: Draft = { name: '', kind: 'EVENT', url: '', operations: [], headers: [], timeoutMs: String(TIMEOUT_BOUNDS.default), order: '0', enabled: true };

/** The element a refused field's error belongs to: `headers[2]` is the third header's name. */
function controlOf(field: string): string {
  const header = /^headers\[(\d+)\]$/.exec(field);
  if (header) return `fn-header-name-${header[1]}`;
  return `fn-${field}`;
}

export function FunctionForm({ appId, mutations, onCreated }: { appId: string; mutations: readonly MutationInfo[] | undefined; onCreated: (created: FunctionWithSecret) => void }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [nextKey, setNextKey] = useState(1);
  const [filter, setFilter] = useState('');
  const creating = useAction();
  const refused = creating.error ? asApiError(creating.error).errors[0] : undefined;
  const refusedField = typeof refused?.extensions?.field === 'string' ? refused.extensions.field : undefined;
  const refusedControl = refusedField ? controlOf(refusedField) : undefined;

  useEffect(() => {
    if (refusedControl) document.getElementById(refusedControl)?.focus();
  }, [creating.error]);

  const offered = (mutations ?? []).filter((m) => draft.kind === 'BEFORE' || m.writes);
  const shown = offered.filter((m) => m.name.toLowerCase().includes(filter.trim().toLowerCase()));

  const setKind = (kind: FunctionKind) =>
    // Operations the new kind cannot take are dropped (RESOLVER takes none).
    setDraft((d) => ({ ...d, kind, operations: kind === 'RESOLVER' ? [] : d.operations.filter((o) => kind === 'BEFORE' || (mutations ?? []).some((m) => m.name === o && m.writes)) }));
  const toggleOperation = (name: string, on: boolean) =>
    setDraft((d) => ({ ...d, operations: on ? [...d.operations, name] : d.operations.filter((o) => o !== name) }));
  const setHeader = (key: number, change: Partial<HeaderRow>) => setDraft((d) => ({ ...d, headers: d.headers.map((h) => (h.key === key ? { ...h, ...change } : h)) }));
  const addHeader = () => {
    setDraft((d) => ({ ...d, headers: [...d.headers, { key: nextKey, name: '', value: '' }] }));
    setNextKey((k) => k + 1);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void creating.run(async () => {
      const created = await createFunction(appId, {
        name: draft.name.trim(),
        kind: draft.kind,
        url: draft.url.trim(),
        operations: draft.kind === 'RESOLVER' ? [] : draft.operations,
        headers: draft.headers.map((h) => ({ name: h.name.trim(), value: h.value })),
        timeoutMs: Number(draft.timeoutMs),
        order: Number(draft.order),
        enabled: draft.enabled,
      });
      setDraft(EMPTY);
      setFilter('');
      onCreated(created);
    });
  };

  /** The aria attributes and error paragraph of a control the server may refuse. */
  const errorOf = (id: string): { invalid: true | undefined; describedBy: string | undefined; message: ReactNode } => {
    const isRefused = refusedControl === id;
    return {
      invalid: isRefused ? true : undefined,
      describedBy: isRefused ? `${id}-error` : undefined,
      message: isRefused ? (
        <p id={`${id}-error`} className="field-error">
          {refused?.message}
        </p>
      ) : null,
    };
  };
  const describedBy = (...ids: (string | undefined)[]) => ids.filter(Boolean).join(' ') || undefined;

  const name = errorOf('fn-name');
  const kind = errorOf('fn-kind');
  const url = errorOf('fn-url');
  const operations = errorOf('fn-operations');
  const headers = errorOf('fn-headers');
  const timeout = errorOf('fn-timeoutMs');
  const order = errorOf('fn-order');

  return (
    <form className="card" onSubmit={submit} aria-labelledby="create-function-title">
      <h2 id="create-function-title">Create a function</h2>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="fn-name">Name</label>
          <input
            id="fn-name"
            value={draft.name}
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            required
            maxLength={64}
            pattern="[A-Za-z][A-Za-z0-9_\-]*"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={name.invalid}
            aria-describedby={describedBy(name.describedBy, 'fn-name-hint')}
          />
          <span id="fn-name-hint" className="hint">
            Letters, digits, _ and -, starting with a letter.
          </span>
          {name.message}
        </div>
        <div className="field">
          <label htmlFor="fn-kind">Kind</label>
          <select id="fn-kind" value={draft.kind} onChange={(e) => setKind(e.target.value as FunctionKind)} aria-invalid={kind.invalid} aria-describedby={describedBy(kind.describedBy, 'fn-kind-hint')}>
            {FUNCTION_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
          <span id="fn-kind-hint" className="hint">
            {KIND_HINTS[draft.kind]}
          </span>
          {kind.message}
        </div>
        <div className="field wide">
          <label htmlFor="fn-url">URL</label>
          <input
            id="fn-url"
            type="url"
            value={draft.url}
            onChange={(e) => setDraft({ ...draft, url: e.target.value })}
            required
            placeholder="https://hooks.example.com/tessera"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={url.invalid}
            aria-describedby={describedBy(url.describedBy, 'fn-url-hint')}
          />
          <span id="fn-url-hint" className="hint">
            Where calls are POSTed (http or https), each signed with the function’s secret in Tessera-Signature.
          </span>
          {url.message}
        </div>
        {draft.kind !== 'RESOLVER' && (
          <fieldset className="field wide operations-field" aria-describedby={describedBy(operations.describedBy, 'fn-operations-hint')}>
            <legend>Operations ({draft.operations.length} chosen)</legend>
            <span id="fn-operations-hint" className="hint">
              {draft.kind === 'EVENT'
                ? 'The app’s mutations that write objects or edges; the function is told of each write after it commits.'
                : 'The app’s mutations the function is called before, with their input.'}
            </span>
            <input
              id="fn-operations"
              type="search"
              className="operations-filter"
              placeholder="Filter the mutations"
              aria-label="Filter the mutations"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              aria-invalid={operations.invalid}
              aria-describedby={operations.describedBy}
            />
            {mutations === undefined && <p className="hint">Loading the app’s mutations…</p>}
            {mutations !== undefined && shown.length === 0 && <p className="empty">No mutation matches.</p>}
            <ul className="operations-list">
              {shown.map((m) => (
                <li key={m.name}>
                  <label className="checkbox" title={m.description}>
                    <input type="checkbox" checked={draft.operations.includes(m.name)} onChange={(e) => toggleOperation(m.name, e.target.checked)} />
                    <code>{m.name}</code>
                  </label>
                </li>
              ))}
            </ul>
            {operations.message}
          </fieldset>
        )}
        <fieldset className="field wide headers-field" aria-describedby={describedBy(headers.describedBy, 'fn-headers-hint')}>
          <legend>Headers</legend>
          <span id="fn-headers-hint" className="hint">
            Sent with every call, e.g. an API key of the endpoint’s own. Values are stored sealed and never shown again.
          </span>
          {draft.headers.map((h, i) => {
            const row = errorOf(`fn-header-name-${i}`);
            return (
              <div key={h.key} className="header-row">
                <label htmlFor={`fn-header-name-${i}`}>Header {i + 1} name</label>
                <input
                  id={`fn-header-name-${i}`}
                  value={h.name}
                  onChange={(e) => setHeader(h.key, { name: e.target.value })}
                  required
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={row.invalid}
                  aria-describedby={row.describedBy}
                />
                <label htmlFor={`fn-header-value-${i}`}>Header {i + 1} value</label>
                <input id={`fn-header-value-${i}`} type="password" value={h.value} onChange={(e) => setHeader(h.key, { value: e.target.value })} autoComplete="new-password" spellCheck={false} />
                <button type="button" className="button small" onClick={() => setDraft((d) => ({ ...d, headers: d.headers.filter((x) => x.key !== h.key) }))}>
                  Remove header {i + 1}
                </button>
                {row.message}
              </div>
            );
          })}
          <div>
            <button id="fn-headers" type="button" className="button small" onClick={addHeader} disabled={draft.headers.length >= MAX_HEADERS}>
              Add a header
            </button>
          </div>
          {headers.message}
        </fieldset>
        <div className="field">
          <label htmlFor="fn-timeoutMs">Timeout (ms)</label>
          <input
            id="fn-timeoutMs"
            type="number"
            inputMode="numeric"
            min={TIMEOUT_BOUNDS.min}
            max={TIMEOUT_BOUNDS.max}
            step={1}
            required
            value={draft.timeoutMs}
            onChange={(e) => setDraft({ ...draft, timeoutMs: e.target.value })}
            aria-invalid={timeout.invalid}
            aria-describedby={describedBy(timeout.describedBy, 'fn-timeoutMs-hint')}
          />
          <span id="fn-timeoutMs-hint" className="hint">
            From {TIMEOUT_BOUNDS.min} to {TIMEOUT_BOUNDS.max.toLocaleString()} milliseconds.
          </span>
          {timeout.message}
        </div>
        <div className="field">
          <label htmlFor="fn-order">Order</label>
          <input
            id="fn-order"
            type="number"
            inputMode="numeric"
            min={ORDER_BOUNDS.min}
            max={ORDER_BOUNDS.max}
            step={1}
            required
            value={draft.order}
            onChange={(e) => setDraft({ ...draft, order: e.target.value })}
            aria-invalid={order.invalid}
            aria-describedby={describedBy(order.describedBy, 'fn-order-hint')}
          />
          <span id="fn-order-hint" className="hint">
            BEFORE functions of one mutation run by ascending order, then by name.
          </span>
          {order.message}
        </div>
        <div className="field">
          <label className="checkbox">
            <input id="fn-enabled" type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })} />
            Enabled
          </label>
          <span className="hint">A disabled function is not called: it is not told of writes meanwhile, and deliveries already due wait.</span>
        </div>
      </div>
      <div className="save-bar">
        <button type="submit" className="button primary" disabled={creating.busy}>
          {creating.busy ? 'Creating…' : 'Create function'}
        </button>
      </div>
      <ErrorBox error={creating.error} title="The function was not created" />
    </form>
  );
}

