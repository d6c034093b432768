// An EVENT function's latest deliveries, newest first: status, attempts, the last answer's status
// code and error, the next attempt, when each was created and delivered; narrowed to one status,
// refreshed every few seconds while the tab is visible, and each one redelivered on demand.

import { useMemo, useState } from 'react';
import { DELIVERY_STATUSES, MAX_DELIVERIES, listDeliveries, redeliver } from '../api/functions';
import type { AppFunction, DeliveryStatus, FunctionDelivery } from '../api/functions';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAction, useAsync } from '../components/useAsync';
import { useRefreshEvery } from '../components/useRefreshEvery';

/** Deliveries are retried within seconds at first; a refresh this often follows them. */
const REFRESH_MS = 3_000;

const STATUS_LABELS: Record<DeliveryStatus, string> = { PENDING: 'Pending', DELIVERED: 'Delivered', DEAD: 'Dead' };

function When({ at }: { at: string | null }) {
  if (at === null) return <span className="null">—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

function StatusBadge({ delivery }: { delivery: FunctionDelivery }) {
  const failing = delivery.status === 'PENDING' && delivery.attempts > 0 && delivery.lastError !== null;
  return (
    <span className={`delivery-status ${delivery.status.toLowerCase()}${failing ? ' failing' : ''}`}>
      {delivery.status}
      {failing && <span className="stat-note"> · retrying</span>}
    </span>
  );
}

export function Deliveries({ appId, fn, onClose }: { appId: string; fn: AppFunction; onClose: () => void }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [autoRefresh, setAutoRefresh] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);
  const deliveries = useAsync(() => listDeliveries(appId, fn.name, status === '' ? null : status), [appId, fn.name, status]);
  useRefreshEvery(REFRESH_MS, autoRefresh, deliveries.reload);
  const redelivery = useAction();
  const [redelivering, setRedelivering] = useState<string | null>(null);
  const updatedAt = useMemo(() => (deliveries.data ? new Date() : null), [deliveries.data]);

  const again = (delivery: FunctionDelivery) => {
    setNotice(null);
    setRedelivering(delivery.id);
    void redelivery.run(async () => {
      try {
        await redeliver(appId, delivery.id);
        setNotice(`Delivery ${delivery.id} (${delivery.operation}) is sent again now.`);
        deliveries.reload();
      } finally {
        setRedelivering(null);
      }
    });
  };

  const list = deliveries.data;
  return (
    <section className="card deliveries" aria-labelledby="deliveries-title">
      <div className="pane-head">
        <h2 id="deliveries-title">Deliveries of {fn.name}</h2>
        <button type="button" className="button small" onClick={onClose}>
          Close deliveries
        </button>
      </div>
      <p className="hint">
        Each write of {fn.operations.join(', ')} is an event written with the change, and delivered at least once: retried with growing pauses while
        the endpoint fails, for 24 hours, then dead. Redelivering sends it again now with the same id and a fresh retry window.
        {!fn.enabled && ' The function is disabled: writes meanwhile are not told to it, and deliveries already due wait until it is enabled again.'}
      </p>
      <div className="table-toolbar">
        <label htmlFor="delivery-status">Status</label>
        <select id="delivery-status" value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus | '')}>
          <option value="">Any status</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
        <button type="button" className="button small" onClick={deliveries.reload} disabled={deliveries.loading}>
          Refresh
        </button>
        <label className="checkbox">
          <input type="checkbox" checked={autoRefresh} onChange={(e) => setAutoRefresh(e.target.checked)} />
          Refresh every {REFRESH_MS / 1000} s
        </label>
        <span className="count">{updatedAt ? `Updated ${updatedAt.toLocaleTimeString()}` : ''}</span>
      </div>
      {notice && (
        <p className="success" role="status">
          {notice}
        </p>
      )}
      <ErrorBox error={redelivery.error} title="Could not redeliver" />
      {deliveries.loading && !list && <Loading label="Loading the deliveries…" />}
      <ErrorBox error={deliveries.error} title="Could not load the deliveries" />
      {list === null && <p className="empty">The function is gone.</p>}
      {list && (
        <div className="table-wrap">
          <table className="table deliveries-table">
            <caption className="visually-hidden">
              Latest deliveries of {fn.name} (up to {MAX_DELIVERIES}), newest first{status ? `, ${STATUS_LABELS[status].toLowerCase()} only` : ''}
            </caption>
            <thead>
              <tr>
                {['Event', 'Operation', 'Status', 'Attempts', 'Last status', 'Last error', 'Next attempt', 'Created', 'Delivered'].map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.length === 0 && (
                <tr>
                  <td colSpan={10} className="empty">
                    {status ? `No ${STATUS_LABELS[status].toLowerCase()} deliveries.` : `No deliveries yet: writes of ${fn.operations.join(', ')} show up here.`}
                  </td>
                </tr>
              )}
              {list.map((d) => (
                <tr key={d.id}>
                  <td>
                    <code title={d.id}>{d.id.slice(0, 8)}</code>
                  </td>
                  <td>
                    <code>{d.operation}</code>
                  </td>
                  <td>
                    <StatusBadge delivery={d} />
                  </td>
                  <td className="number">{d.attempts}</td>
                  <td className="number">{d.lastStatusCode ?? <span className="null">—</span>}</td>
                  <td className="delivery-error">{d.lastError ?? <span className="null">—</span>}</td>
                  <td>
                    <When at={d.nextAttemptAt} />
                  </td>
                  <td>
                    <When at={d.createdAt} />
                  </td>
                  <td>
                    <When at={d.deliveredAt} />
                  </td>
                  <td className="cell-actions">
                    <button type="button" className="button small" onClick={() => again(d)} disabled={redelivery.busy} aria-label={`Redeliver ${d.id}`}>
                      {redelivering === d.id ? 'Sending…' : 'Redeliver'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
