// The app's latest operations as a table, newest first, narrowed by how they ended: all, the
// successful ones, those with any error, or one error code among those listed.

import { useState } from 'react';
import type { LoggedOperation } from '../api/traffic';
import { Link } from '../components/Link';
import { hrefOf } from '../router';
import { clockTimeWithSeconds, formatMs, plural } from './figures';

type OutcomeFilter = { kind: 'all' } | { kind: 'ok' } | { kind: 'errors' } | { kind: 'code'; code: string };

function filterOf(value: string): OutcomeFilter {
  if (value === 'ok' || value === 'errors') return { kind: value };
  if (value.startsWith('code:')) return { kind: 'code', code: value.slice('code:'.length) };
  return { kind: 'all' };
}

function matches(filter: OutcomeFilter, op: LoggedOperation): boolean {
  switch (filter.kind) {
    case 'all':
      return true;
    case 'ok':
      return op.outcome === 'ok';
    case 'errors':
      return op.outcome !== 'ok';
    case 'code':
      return op.outcome === filter.code;
    default: {
      const never: never = filter;
      return never;
    }
  }
}

export function OperationLog({ appId, operations }: { appId: string; operations: readonly LoggedOperation[] }) {
  const [value, setValue] = useState('all');
  const filter = filterOf(value);
  // The codes seen, plus the one chosen (it stays selectable after its lines have rolled out of the log).
  const codes = new Set(operations.map((op) => op.outcome).filter((o) => o !== 'ok'));
  if (filter.kind === 'code') codes.add(filter.code);
  // Keyed by position too: operations over one WebSocket connection share a request id.
  const shown = operations.map((op, index) => ({ op, key: `${index}|${op.at}|${op.requestId}` })).filter(({ op }) => matches(filter, op));
  return (
    <>
      <div className="table-toolbar">
        <label htmlFor="outcome-filter">Outcome</label>
        <select id="outcome-filter" value={value} onChange={(e) => setValue(e.target.value)}>
          <option value="all">All outcomes</option>
          <option value="ok">ok</option>
          <option value="errors">Any error</option>
          {[...codes].sort().map((code) => (
            <option key={code} value={`code:${code}`}>
              {code}
            </option>
          ))}
        </select>
        <span className="count" role="status" aria-live="polite">
          {filter.kind === 'all' ? plural(operations.length, 'operation') : `${shown.length} of ${plural(operations.length, 'operation')}`}
        </span>
      </div>
      <div className="table-wrap">
        <table className="table log-table">
          <caption className="visually-hidden">Latest operations, newest first</caption>
          <thead>
            <tr>
              {['Time', 'Transport', 'Type', 'Name', 'Outcome', 'Duration', 'Status', 'Caller', 'User', 'Request id'].map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={10} className="empty">
                  {operations.length === 0 ? 'No operations yet.' : 'No operation with this outcome among the latest.'}
                </td>
              </tr>
            )}
            {shown.map(({ op, key }) => (
              <tr key={key}>
                <td>
                  <time dateTime={op.at} title={new Date(op.at).toLocaleString()}>
                    {clockTimeWithSeconds(op.at)}
                  </time>
                </td>
                <td>{op.transport}</td>
                <td>{op.type}</td>
                <td>{op.name ?? <span className="null">—</span>}</td>
                <td>
                  <span className={`outcome ${op.outcome === 'ok' ? 'ok' : 'error'}`}>{op.outcome}</span>
                </td>
                <td className="number">{formatMs(op.durationMs)}</td>
                <td>{op.status ?? <span className="null" title="WebSocket: no HTTP status">—</span>}</td>
                <td>{op.caller}</td>
                <td>
                  {op.userId ? (
                    <Link href={hrefOf({ page: 'users', appId, userId: op.userId })} className="mono">
                      {op.userId}
                    </Link>
                  ) : (
                    <span className="null">—</span>
                  )}
                </td>
                <td>
                  <code className="id">{op.requestId}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
