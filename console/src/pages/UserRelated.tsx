// A user's fields and the objects they are related to, on the user's page: a field's value (a
// single relation as a link to its object), and each list relation's first objects with the
// edge's own fields (a role's access level), linking to the rest in the data browser.

import { platformKey } from '../api/session';
import { ErrorBox } from '../components/ErrorBox';
import { Link } from '../components/Link';
import { useAsync } from '../components/useAsync';
import { EmailVerified } from '../data/EmailVerified';
import { FieldValue } from '../data/FieldValue';
import { USER_TYPE } from '../data/model';
import type { AppModel, Column } from '../data/model';
import { loadRelated } from '../data/rows';
import type { Row } from '../data/rows';
import { dataViewHref } from '../router';

const RELATED_SHOWN = 10;

export function FieldCell({ appId, appModel, column, user }: { appId: string; appModel: AppModel; column: Column; user: Row }) {
  if (column.kind === 'single') return <RelatedLink appId={appId} appModel={appModel} column={column} value={user[column.name]} />;
  if (column.name === 'emailVerified' && 'email' in user) return <EmailVerified email={user.email} verified={user.emailVerified} />;
  return <FieldValue value={user[column.name]} max={400} />;
}

function RelatedLink({ appId, appModel, column, value }: { appId: string; appModel: AppModel; column: Extract<Column, { kind: 'single' }>; value: unknown }) {
  const target = value as Record<string, unknown> | null | undefined;
  if (!target) return <span className="null">—</span>;
  const label = appModel.byName.get(column.target)?.labelField;
  const id = String(target.id);
  return (
    <Link href={dataViewHref(appId, column.target, { field: 'id', op: 'eq', value: id })} title={`Open ${column.target} ${id}`}>
      {label && target[label] ? String(target[label]) : id}
    </Link>
  );
}

/** One list relation of the user: its first objects, with the edge's own fields (a role's access level). */
export function RelatedList(props: { appId: string; appModel: AppModel; column: Extract<Column, { kind: 'list' }>; user: Row; endpoint: string }) {
  const { appId, appModel, column, user } = props;
  const target = appModel.byName.get(column.target);
  const related = useAsync(
    async () => (target ? loadRelated(props.endpoint, platformKey(), { type: USER_TYPE, id: user.id }, column, target, RELATED_SHOWN) : null),
    [props.endpoint, user, column.name, target],
  );
  const titleId = `related-${column.name}`;
  const all = dataViewHref(appId, column.target, { from: USER_TYPE, parent: user.id, via: column.name });
  return (
    <section className="card" aria-labelledby={titleId}>
      <div className="pane-head">
        <h2 id={titleId}>
          {column.name} <span className="badge">{related.data?.count ?? '…'}</span>
        </h2>
        <Link href={all}>Open in the data browser</Link>
      </div>
      <ErrorBox error={related.error} title={`Could not load ${column.name}`} />
      {related.data && related.data.count === 0 && <p className="empty">None.</p>}
      {related.data && related.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">
              {column.name} of {String(user.username)}
            </caption>
            <thead>
              <tr>
                <th scope="col">{column.target}</th>
                {column.edgeFields.map((f) => (
                  <th key={f} scope="col">
                    {f}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {related.data.items.map(({ node, edge }) => (
                <tr key={node.id}>
                  <td>
                    <Link href={dataViewHref(appId, column.target, { field: 'id', op: 'eq', value: node.id })}>{node.label || node.id}</Link>
                  </td>
                  {column.edgeFields.map((f) => (
                    <td key={f}>
                      <FieldValue value={edge[f]} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {related.data && related.data.count > related.data.items.length && (
        <p className="hint">
          The first {related.data.items.length} of {related.data.count}; <Link href={all}>see them all</Link>.
        </p>
      )}
    </section>
  );
}
