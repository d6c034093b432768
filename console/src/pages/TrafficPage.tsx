// An app's traffic: operations, errors and latencies per minute over a chosen window (every
// instance's, from the management API), as a summary, three small charts and a table; and the
// latest operations this instance answered, filterable by outcome. Refreshed on demand, and
// every few seconds while the tab is visible unless turned off.

import { useMemo, useState } from 'react';
import { appPath } from '../api/admin';
import { loadTraffic } from '../api/traffic';
import type { TrafficMinute } from '../api/traffic';
import { ErrorBox, Loading } from '../components/ErrorBox';
import { useAsync } from '../components/useAsync';
import { useRefreshEvery } from '../components/useRefreshEvery';
import { hrefOf, navigate, useLocation } from '../router';
import { OperationLog } from '../traffic/OperationLog';
import { DEFAULT_RANGE, RANGES, clockTime, clockTimeWithSeconds, formatBound, formatShare, plural, rangeOf, summarize } from '../traffic/figures';
import type { Range, TrafficSummary } from '../traffic/figures';
import { TrafficChart } from '../traffic/TrafficChart';
import { AppHeading, NoSuchApp } from './AppHeading';

/** Traffic figures reach the catalog every 10 s; refreshing more often would show little new. */
const REFRESH_MS = 10_000;

export function TrafficPage({ appId }: { appId: string }) {
  const { search } = useLocation();
  const range = rangeOf(new URLSearchParams(search).get('range'));
  const [autoRefresh, setAutoRefresh] = useState(true);
  const traffic = useAsync(() => loadTraffic(appId, range.minutes), [appId, range.minutes]);
  useRefreshEvery(REFRESH_MS, autoRefresh, traffic.reload);
  const updatedAt = useMemo(() => (traffic.data ? new Date().toISOString() : null), [traffic.data]);

  if (traffic.data === null) return <NoSuchApp appId={appId} />;
  const data = traffic.data;
  const summary = data ? summarize(data.traffic) : null;
  const quiet = data && summary && summary.operations === 0 && data.recentOperations.length === 0;

  const choose = (next: Range) => navigate(`${hrefOf({ page: 'traffic', appId })}${next === DEFAULT_RANGE ? '' : `?range=${next.id}`}`, { replace: true });
  return (
    <>
      <AppHeading app={data} appId={appId} page="Traffic" />
      <div className="traffic-controls">
        <fieldset className="segmented">
          <legend>Last</legend>
          {RANGES.map((r) => (
            <label key={r.id} className={r === range ? 'chosen' : undefined}>
              <input type="radio" name="traffic-range" value={r.id} checked={r === range} onChange={() => choose(r)} />
              {r.label}
            </label>
          ))}
        </fieldset>
        <button type="button" className="button small" onClick={traffic.reload} disabled={traffic.loading}>
          Refresh
        </button>
        <label className="checkbox">
          <input type="checkbox" checked={autoRefresh} onChange={(e) => setAutoRefresh(e.target.checked)} />
          Refresh every {REFRESH_MS / 1000} s
        </label>
        <span className="hint">
          {traffic.loading ? 'Loading…' : updatedAt ? `Updated ${clockTimeWithSeconds(updatedAt)}` : ''}
        </span>
      </div>
      {traffic.loading && !data && <Loading label="Loading the traffic…" />}
      <ErrorBox error={traffic.error} title="Could not load the traffic" />
      {quiet && <NoTraffic appId={appId} />}
      {data && summary && !quiet && (
        <>
          <section aria-labelledby="traffic-summary-title" className="card">
            <h2 id="traffic-summary-title">Last {range.label}</h2>
            <Summary summary={summary} />
            {summary.operations === 0 ? (
              <p className="empty">No operations in the last {range.label}. The latest operations below are older.</p>
            ) : (
              <Charts minutes={data.traffic} summary={summary} range={range} />
            )}
          </section>
          <section aria-labelledby="traffic-log-title">
            <h2 id="traffic-log-title">Latest operations</h2>
            <p className="hint">
              The latest operations (up to 100) that this server instance answered, newest first: what each was, who asked and how it ended.
              What was sent (documents, variables) is never kept.
            </p>
            <OperationLog appId={appId} operations={data.recentOperations} />
          </section>
        </>
      )}
    </>
  );
}

function Summary({ summary }: { summary: TrafficSummary }) {
  const { operations, errors, failures, errorRate, worstP95, busiest } = summary;
  return (
    <dl className="traffic-stats">
      <div>
        <dt>Operations</dt>
        <dd>{operations.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Errors</dt>
        <dd>
          {errors.toLocaleString()}
          {errorRate !== null && <span className="stat-note"> ({formatShare(errorRate)} error rate)</span>}
        </dd>
      </div>
      <div>
        <dt>Failures</dt>
        <dd>{failures.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Worst p95</dt>
        <dd>
          {worstP95 ? formatBound(worstP95.value) : '—'}
          {worstP95 && <span className="stat-note"> (at {clockTime(worstP95.minute)})</span>}
        </dd>
      </div>
      <div>
        <dt>Busiest minute</dt>
        <dd>
          {busiest ? busiest.value.toLocaleString() : '—'}
          {busiest && <span className="stat-note"> (at {clockTime(busiest.minute)})</span>}
        </dd>
      </div>
    </dl>
  );
}

function Charts({ minutes, summary, range }: { minutes: readonly TrafficMinute[]; summary: TrafficSummary; range: Range }) {
  const { operations, errors, failures, worstP95, busiest } = summary;
  const active = minutes.filter((m) => m.operations > 0);
  return (
    <>
      <div className="charts">
        <TrafficChart
          title="Operations per minute"
          description={`${plural(operations, 'operation')} in the last ${range.label}${busiest ? `, at most ${busiest.value} in a minute (${clockTime(busiest.minute)})` : ''}.`}
          minutes={minutes}
          kind="bars"
          series={[{ label: 'Operations', className: 'series-operations', value: (m) => m.operations }]}
        />
        <TrafficChart
          title="Errors per minute"
          description={`${plural(errors, 'operation')} with errors, ${plural(failures, 'failure')} of the server among them.`}
          minutes={minutes}
          kind="bars"
          series={[
            { label: 'Errors', className: 'series-errors', value: (m) => m.errors },
            { label: 'Failures (INTERNAL, UNAVAILABLE)', className: 'series-failures', value: (m) => m.failures },
          ]}
        />
        <TrafficChart
          title="Latency per minute"
          description={worstP95 ? `p50 and p95 on a log scale; the worst p95 was ${formatBound(worstP95.value)} (${clockTime(worstP95.minute)}).` : 'No operations.'}
          minutes={minutes}
          kind="lines"
          series={[
            { label: 'p50', className: 'series-p50', value: (m) => m.p50Ms },
            { label: 'p95', className: 'series-p95', value: (m) => m.p95Ms },
          ]}
        />
      </div>
      <p className="hint">
        Latencies are the bounds of the server's buckets (1, 2, 5, 10, 25 … ms up to 10 s): “≤ 25 ms” means the operations finished within 25 ms.
      </p>
      <details className="figures">
        <summary>The figures as a table ({plural(active.length, 'minute')} with operations)</summary>
        <div className="table-wrap">
          <table className="table figures-table">
            <caption className="visually-hidden">Operations, errors, failures and latencies per minute with operations, oldest first</caption>
            <thead>
              <tr>
                {['Minute', 'Operations', 'Errors', 'Failures', 'p50', 'p95'].map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {active.map((m) => (
                <tr key={m.minute}>
                  <th scope="row">
                    <time dateTime={m.minute}>{clockTime(m.minute)}</time>
                  </th>
                  <td className="number">{m.operations}</td>
                  <td className="number">{m.errors}</td>
                  <td className="number">{m.failures}</td>
                  <td className="number">{formatBound(m.p50Ms)}</td>
                  <td className="number">{formatBound(m.p95Ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

function NoTraffic({ appId }: { appId: string }) {
  const endpoint = new URL(appPath(appId), window.location.href).toString();
  return (
    <section className="card empty-state" aria-labelledby="no-traffic-title">
      <h2 id="no-traffic-title">No traffic yet</h2>
      <p>
        Operations sent to the app's API at <code>{endpoint}</code> (over HTTP or WebSocket) show up here within seconds: how many per
        minute, how many failed, how long they took, and the latest of them one by one.
      </p>
    </section>
  );
}
