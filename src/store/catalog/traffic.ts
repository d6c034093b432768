// Catalog rows of each app's traffic: operations per minute with their errors and a latency
// histogram, added to by every instance, read back for the console's graphs.

import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

/**
 * Upper bounds (milliseconds) of the latency histogram's buckets; a last bucket, past the final
 * bound, takes the rest. A row's `latency` has one count per bucket, `TRAFFIC_BUCKETS_MS.length + 1`.
 */
export const TRAFFIC_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000] as const;

export interface TrafficRow {
  appId: string;
  /** The minute's start. */
  minute: Date;
  operations: number;
  /** Operations answered with an error of any kind (refusals included). */
  errors: number;
  /** Operations the server failed (INTERNAL, UNAVAILABLE). */
  failures: number;
  latency: number[];
}

/** Adds counts to the apps' minutes (one statement for any number of rows); apps deleted meanwhile are skipped. */
export async function addTraffic(q: Queryable, rows: readonly TrafficRow[]): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => ({ app_id: r.appId, minute: r.minute.toISOString(), operations: r.operations, errors: r.errors, failures: r.failures, latency: r.latency })));
  await q.query(sql`
    INSERT INTO tessera.app_traffic AS t (app_id, minute, operations, errors, failures, latency)
    SELECT r.app_id, r.minute, r.operations, r.errors, r.failures, r.latency
      FROM jsonb_to_recordset(${json}::jsonb) AS r(app_id text, minute timestamptz, operations integer, errors integer, failures integer, latency integer[])
     -- Apps still there: on this cluster, or placed on another one.
     WHERE EXISTS (SELECT 1 FROM tessera.apps a WHERE a.id = r.app_id)
        OR EXISTS (SELECT 1 FROM tessera.app_placements p WHERE p.app_id = r.app_id)
    ON CONFLICT (app_id, minute) DO UPDATE SET
      operations = t.operations + EXCLUDED.operations,
      errors = t.errors + EXCLUDED.errors,
      failures = t.failures + EXCLUDED.failures,
      latency = ARRAY(SELECT coalesce(x, 0) + coalesce(y, 0) FROM unnest(t.latency, EXCLUDED.latency) WITH ORDINALITY AS u(x, y, n) ORDER BY n)`);
}

/** The app's minutes from `since` on, oldest first (minutes without operations have no row). */
export async function trafficSince(q: Queryable, appId: string, since: Date): Promise<TrafficRow[]> {
  const { rows } = await q.query<{ minute: Date | string; operations: number; errors: number; failures: number; latency: number[] }>(sql`
    SELECT minute, operations, errors, failures, latency FROM tessera.app_traffic
     WHERE app_id = ${appId} AND minute >= ${since.toISOString()}::timestamptz ORDER BY minute`);
  return rows.map((r) => ({ appId, minute: new Date(r.minute), operations: r.operations, errors: r.errors, failures: r.failures, latency: r.latency }));
}

/** Forgets minutes before `before`. */
export async function pruneTraffic(q: Queryable, before: Date): Promise<void> {
  await q.query(sql`DELETE FROM tessera.app_traffic WHERE minute < ${before.toISOString()}::timestamptz`);
}

/** Forgets an app's traffic (it is deleted). */
export async function deleteTraffic(q: Queryable, appId: string): Promise<void> {
  await q.query(sql`DELETE FROM tessera.app_traffic WHERE app_id = ${appId}`);
}
