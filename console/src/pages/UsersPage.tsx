// The users of an app: searched by username (and email, when the app's User has one) on the
// server, paged, ordered, with their address and whether it is verified, and whether they have
// two-factor login on (from the management API); each opens on its own page. Read and written
// through the app's own API with the platform key, as the data browser does.

import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { loadTwoFactor } from '../api/accounts';
import { appPath } from '../api/admin';
import { platformKey } from '../api/session';
import { Dialog } from '../components/Dialog';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { Link } from '../components/Link';
import { Pager, useCursorPages } from '../components/Pager';
import { useAsync } from '../components/useAsync';
import { USER_TYPE, loadAppModel } from '../data/model';
import type { AppModel, ModelInfo } from '../data/model';
import { EmailVerified } from '../data/EmailVerified';
import { FieldValue } from '../data/FieldValue';
import { RowForm } from '../data/RowForm';
import { TwoFactor } from '../data/TwoFactor';
import { loadPage } from '../data/rows';
import type { Row } from '../data/rows';
import { searchWhere } from '../data/search';
import { hrefOf, navigate, useLocation } from '../router';

const PAGE_SIZE = 20;
const SEARCH_DELAY_MS = 300;
/** The fields a user search looks in, those of them the app's User has. */
const SEARCH_FIELDS = ['username', 'email'];

export function UsersPage({ appId }: { appId: string }) {
  const endpoint = appPath(appId);
  const appModel = useAsync(() => loadAppModel(endpoint, platformKey()), [endpoint]);
  const model = appModel.data?.byName.get(USER_TYPE);
  return (
    <>
      <h1 tabIndex={-1}>
        Users <span className="heading-app">· {appId}</span>
      </h1>
      {appModel.loading && !appModel.data && <Loading label="Reading the app's API…" />}
      <ErrorBox error={appModel.error} title="Could not read the app's API" />
      {appModel.data && !model && <p role="alert">The app's API has no {USER_TYPE} type.</p>}
      {appModel.data && model && <UserList appId={appId} appModel={appModel.data} model={model} endpoint={endpoint} />}
    </>
  );
}

function UserList({ appId, appModel, model, endpoint }: { appId: string; appModel: AppModel; model: ModelInfo; endpoint: string }) {
  const { search } = useLocation();
  const query = new URLSearchParams(search).get('q') ?? '';
  const [text, setText] = useState(query);
  const [creating, setCreating] = useState(false);
  const fields = SEARCH_FIELDS.filter((f) => model.filters.some((m) => m.name === f && m.operators.includes('like')));
  const orderFields = model.orderFields;
  const [order, setOrder] = useState<{ field: string; direction: 'ASC' | 'DESC' }>({ field: orderFields.includes('username') ? 'username' : 'createdAt', direction: 'ASC' });
  const where = searchWhere(model, query, fields);
  const pages = useCursorPages(JSON.stringify([where, order]));
  const page = useAsync(
    () => loadPage(endpoint, platformKey(), model, { first: PAGE_SIZE, after: pages.after, orderBy: order, where }),
    [endpoint, model, pages.after, JSON.stringify(where), JSON.stringify(order)],
  );
  const userIds = page.data?.rows.map((r) => r.id) ?? [];
  const twoFactor = useAsync(() => loadTwoFactor(appId, userIds), [appId, userIds.join(' ')]);

  // The search follows the URL (back, forward, a shared link)…
  useEffect(() => setText((t) => (t.trim() === query ? t : query)), [query]);
  // …and the URL follows the search box, a moment after typing stops.
  useEffect(() => {
    if (text === query) return;
    const timer = window.setTimeout(() => navigate(usersHref(appId, text), { replace: true }), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [text]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(usersHref(appId, text), { replace: true });
  };

  const columns = ['username', ...['email', 'emailVerified', 'lastLogin', 'createdAt'].filter((name) => model.columns.some((c) => c.name === name))];
  const lists = model.columns.filter((c) => c.kind === 'list');
  const count = page.data?.count;
  return (
    <section aria-labelledby="users-title">
      <div className="pane-head">
        <h2 id="users-title">{query ? `Users matching “${query}”` : 'All users'}</h2>
        {model.create && (
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            New user
          </button>
        )}
      </div>
      <form className="filter-bar" role="search" aria-label="Search users" onSubmit={submit}>
        <label htmlFor="user-search">Search</label>
        <input id="user-search" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder={fields.join(' or ')} aria-describedby="user-search-hint" />
        <button type="submit" className="button small">
          Search
        </button>
        <span id="user-search-hint" className="hint">
          Finds users whose {fields.join(' or ')} contains the text, in any case.
        </span>
      </form>
      <div className="table-toolbar">
        <label htmlFor="users-order">Order by</label>
        <select id="users-order" value={order.field} onChange={(e) => setOrder({ field: e.target.value, direction: order.direction })}>
          {orderFields.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <label htmlFor="users-direction" className="visually-hidden">
          Direction
        </label>
        <select id="users-direction" value={order.direction} onChange={(e) => setOrder({ field: order.field, direction: e.target.value as 'ASC' | 'DESC' })}>
          <option value="ASC">ascending</option>
          <option value="DESC">descending</option>
        </select>
        <span className="count" role="status" aria-live="polite">
          {page.loading ? 'Loading…' : count !== null && count !== undefined ? `${count} user${count === 1 ? '' : 's'}` : ''}
        </span>
      </div>
      <ErrorBox error={page.error} title="Could not load the users" />
      <ErrorBox error={twoFactor.error} title="Could not load who has two-factor login" />
      {page.data && (
        <div className="table-wrap" aria-busy={page.loading}>
          <table className="table">
            <caption className="visually-hidden">Users, page {pages.number}</caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
                <th scope="col">two-factor</th>
                {lists.map((c) => (
                  <th key={c.name} scope="col">
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.data.rows.length === 0 && (
                <tr>
                  <td colSpan={columns.length + 1 + lists.length} className="empty">
                    {query ? 'No user matches the search.' : 'No users yet.'}
                  </td>
                </tr>
              )}
              {page.data.rows.map((row) => (
                <tr key={row.id}>
                  {columns.map((c) => (
                    <td key={c}>
                      <UserCell appId={appId} row={row} column={c} />
                    </td>
                  ))}
                  <td>
                    <TwoFactor state={twoFactor.data?.get(row.id)} />
                  </td>
                  {lists.map((c) => (
                    <td key={c.name}>{(row[c.name] as { aggregations?: { count?: number } } | null)?.aggregations?.count ?? 0}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pages={pages} hasNextPage={page.data?.hasNextPage ?? false} endCursor={page.data?.endCursor} loading={page.loading} />
      <Dialog title="New user" open={creating} onClose={() => setCreating(false)}>
        {creating && (
          <RowForm
            appModel={appModel}
            model={model}
            mode="create"
            endpoint={endpoint}
            token={platformKey()}
            onCancel={() => setCreating(false)}
            onSaved={(id) => {
              setCreating(false);
              navigate(hrefOf({ page: 'users', appId, userId: id }));
            }}
          />
        )}
      </Dialog>
    </section>
  );
}

function UserCell({ appId, row, column }: { appId: string; row: Row; column: string }) {
  switch (column) {
    case 'username':
      return <Link href={hrefOf({ page: 'users', appId, userId: row.id })}>{String(row.username)}</Link>;
    case 'emailVerified':
      return <EmailVerified email={row.email} verified={row.emailVerified} />;
    default:
      return <FieldValue value={row[column]} />;
  }
}

function usersHref(appId: string, query: string): string {
  const q = query.trim();
  return `${hrefOf({ page: 'users', appId })}${q ? `?${new URLSearchParams({ q }).toString()}` : ''}`;
}
