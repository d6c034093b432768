// The data browser: per model type, a page of objects (cursor pagination, ordering, a simple
// filter), create / edit / delete through the app's generated API, relations to follow, and for
// a File type uploads. It acts with the platform key, which the app endpoint takes as an admin
// credential.

import { useEffect, useMemo, useState } from 'react';
import { appPath } from '../api/admin';
import { platformKey } from '../api/session';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { Link } from '../components/Link';
import { Pager, useCursorPages } from '../components/Pager';
import { useAsync } from '../components/useAsync';
import { Cell } from '../data/Cell';
import { fileColumns } from '../data/FileField';
import { FilterBar } from '../data/FilterBar';
import type { Filter } from '../data/FilterBar';
import { loadAppModel, parseValue } from '../data/model';
import type { AppModel, ModelInfo } from '../data/model';
import { RowForm } from '../data/RowForm';
import { deleteRow, loadPage } from '../data/rows';
import type { PageRequest, Row } from '../data/rows';
import { UploadZone } from '../data/UploadZone';
import { dataViewHref, hrefOf, navigate, useLocation } from '../router';

const PAGE_SIZE = 20;

export function DataPage({ appId, type }: { appId: string; type?: string | undefined }) {
  const endpoint = appPath(appId);
  const appModel = useAsync(() => loadAppModel(endpoint, platformKey()), [endpoint]);
  const model = type ? appModel.data?.byName.get(type) : undefined;

  useEffect(() => {
    const first = appModel.data?.models[0];
    if (!type && first) navigate(hrefOf({ page: 'data', appId, type: first.name }), { replace: true });
  }, [appModel.data, type, appId]);

  return (
    <>
      <h1 tabIndex={-1}>
        Data <span className="heading-app">· {type ?? appId}</span>
      </h1>
      {appModel.loading && !appModel.data && <Loading label="Reading the app's API…" />}
      <ErrorBox error={appModel.error} title="Could not read the app's API" />
      {appModel.data && (
        <div className="data-layout">
          <nav aria-label="Types" className="type-nav">
            <h2 className="visually-hidden">Types</h2>
            <ul>
              {appModel.data.models.map((m) => (
                <li key={m.name}>
                  <Link href={hrefOf({ page: 'data', appId, type: m.name })} aria-current={m.name === type ? 'page' : undefined}>
                    {m.name}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="data-main">
            {type && !model && <p role="alert">The app has no type named {type}.</p>}
            {model && <DataTable key={model.name} appId={appId} appModel={appModel.data} model={model} endpoint={endpoint} />}
          </div>
        </div>
      )}
    </>
  );
}

/** The table's inputs that live in the URL, so a filtered view or a followed relation can be linked to. */
function useViewParams() {
  const { search } = useLocation();
  return useMemo(() => {
    const params = new URLSearchParams(search);
    const filter = params.get('field') ? { field: params.get('field') ?? '', op: params.get('op') ?? 'eq', value: params.get('value') ?? '' } : undefined;
    const parentId = params.get('parent');
    const via = parentId && params.get('from') && params.get('via') ? { parentType: params.get('from') ?? '', parentId, field: params.get('via') ?? '' } : undefined;
    return { filter, via };
  }, [search]);
}

function whereOf(model: ModelInfo, filter: Filter | undefined): Record<string, unknown> | undefined {
  if (!filter) return undefined;
  const info = model.filters.find((f) => f.name === filter.field);
  if (!info) return undefined;
  let operand: unknown;
  if (filter.op === 'isNull') operand = filter.value !== 'false';
  else if (['in', 'notIn', 'between', 'notBetween'].includes(filter.op)) operand = filter.value.split(',').map((v) => parseValue(info.valueType, v.trim()));
  else operand = parseValue(info.valueType, filter.value);
  return { [filter.field]: { [filter.op]: operand } };
}

function DataTable({ appId, appModel, model, endpoint }: { appId: string; appModel: AppModel; model: ModelInfo; endpoint: string }) {
  const { filter, via } = useViewParams();
  const [order, setOrder] = useState<{ field: string; direction: 'ASC' | 'DESC' }>({ field: model.orderFields.includes('createdAt') ? 'createdAt' : (model.orderFields[0] ?? 'id'), direction: 'ASC' });
  const [editing, setEditing] = useState<{ mode: 'create' | 'update'; row?: Row } | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const where = whereOf(model, filter);
  // A new filter, order or relation starts again from the first page.
  const pages = useCursorPages(JSON.stringify([order, where, via]));
  const after = pages.after;
  const request: PageRequest = { first: PAGE_SIZE, after, orderBy: order, where, via };
  const page = useAsync(() => loadPage(endpoint, platformKey(), model, request), [endpoint, model, after, JSON.stringify(order), JSON.stringify(where), JSON.stringify(via)]);

  const sortBy = (field: string) =>
    setOrder((o) => (o.field === field ? { field, direction: o.direction === 'ASC' ? 'DESC' : 'ASC' } : { field, direction: 'ASC' }));

  const confirmDelete = async () => {
    if (!deleting) return;
    setBusy(true);
    setDeleteError(null);
    try {
      await deleteRow(endpoint, platformKey(), model, deleting.id);
      setDeleting(null);
      page.reload();
    } catch (err) {
      setDeleteError(err);
    } finally {
      setBusy(false);
    }
  };

  const columns = model.upload ? fileColumns(model.columns) : model.columns;
  return (
    <section aria-labelledby="table-title">
      <div className="pane-head">
        <h2 id="table-title">
          {via ? (
            <>
              {model.name} objects in <code>{via.field}</code> of {via.parentType} <code>{via.parentId}</code>
            </>
          ) : (
            `All ${model.name} objects`
          )}
        </h2>
        {model.create && (
          <button type="button" className="button primary" onClick={() => setEditing({ mode: 'create' })}>
            New {model.name}
          </button>
        )}
      </div>
      {via && (
        <p>
          <Link href={dataViewHref(appId, model.name, {})}>Show all {model.name} objects</Link>
        </p>
      )}
      {!via && <UploadZone model={model} endpoint={endpoint} token={platformKey()} onUploaded={page.reload} />}
      <FilterBar appId={appId} model={model} current={filter} via={via} />
      <div className="table-toolbar">
        <label htmlFor="order-field">Order by</label>
        <select id="order-field" value={order.field} onChange={(e) => setOrder({ field: e.target.value, direction: order.direction })}>
          {model.orderFields.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <label htmlFor="order-direction" className="visually-hidden">
          Direction
        </label>
        <select id="order-direction" value={order.direction} onChange={(e) => setOrder({ field: order.field, direction: e.target.value as 'ASC' | 'DESC' })}>
          <option value="ASC">ascending</option>
          <option value="DESC">descending</option>
        </select>
        <span className="count" role="status" aria-live="polite">
          {page.loading ? 'Loading…' : page.data?.count !== null && page.data?.count !== undefined ? `${page.data.count} object${page.data.count === 1 ? '' : 's'}` : ''}
        </span>
      </div>
      <ErrorBox error={page.error} title="Could not load the objects" />
      {page.data && !page.data.found && <p role="alert">There is no {via?.parentType} with id {via?.parentId}.</p>}
      {page.data && (
        <div className="table-wrap" aria-busy={page.loading}>
          <table className="table data-table">
            <caption className="visually-hidden">{model.name} objects, page {pages.number}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
                {columns.map((c) => (
                  <th key={c.name} scope="col" aria-sort={order.field === c.name ? (order.direction === 'ASC' ? 'ascending' : 'descending') : undefined}>
                    {model.orderFields.includes(c.name) ? (
                      <button type="button" className="sort-button" onClick={() => sortBy(c.name)}>
                        {c.name}
                        <span aria-hidden="true">{order.field === c.name ? (order.direction === 'ASC' ? ' ▲' : ' ▼') : ''}</span>
                      </button>
                    ) : (
                      c.name
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.data.rows.length === 0 && (
                <tr>
                  <td colSpan={columns.length + 1} className="empty">
                    {filter ? 'No objects match the filter.' : 'No objects yet.'}
                  </td>
                </tr>
              )}
              {page.data.rows.map((row) => (
                <tr key={row.id}>
                  <td className="cell-actions">
                    {model.update && (
                      <button type="button" className="button small" onClick={() => setEditing({ mode: 'update', row })} aria-label={`Edit ${model.name} ${row.id}`}>
                        Edit
                      </button>
                    )}
                    {model.remove && (
                      <button type="button" className="button small danger" onClick={() => setDeleting(row)} aria-label={`Delete ${model.name} ${row.id}`}>
                        Delete
                      </button>
                    )}
                  </td>
                  {columns.map((c) => (
                    <td key={c.name}>
                      <Cell appId={appId} appModel={appModel} model={model} column={c} row={row} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pages={pages} hasNextPage={page.data?.hasNextPage ?? false} endCursor={page.data?.endCursor} loading={page.loading} />
      <Dialog title={editing?.mode === 'create' ? `New ${model.name}` : `Edit ${model.name}`} open={editing !== null} onClose={() => setEditing(null)}>
        {editing && (
          <RowForm
            appModel={appModel}
            model={model}
            mode={editing.mode}
            row={editing.row}
            endpoint={endpoint}
            token={platformKey()}
            onCancel={() => setEditing(null)}
            onSaved={() => {
              setEditing(null);
              page.reload();
            }}
          />
        )}
      </Dialog>
      <ConfirmDialog open={deleting !== null} title={`Delete this ${model.name}?`} confirmLabel={`Delete ${model.name}`} busy={busy} onConfirm={confirmDelete} onClose={() => setDeleting(null)}>
        <p>
          The object <code>{deleting?.id}</code> is deleted, with its many-to-many edges; references to it are cleared.{model.upload ? ' Its file is removed from storage.' : ''}
        </p>
        <ErrorBox error={deleteError} title="Could not delete" />
      </ConfirmDialog>
    </section>
  );
}
