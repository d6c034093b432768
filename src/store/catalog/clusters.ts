// The catalog's record of clusters (PostgreSQL servers beside the catalog's own, `main`) and
// of where each app lives. Only the catalog's cluster holds these rows (docs/scaling.md).

import { conflict } from '../../errors/index.js';
import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';
import { sqlState } from '../errors.js';
import { isAppId, isAppName } from './appIds.js';

/** The cluster `DATABASE_URL` names: it holds the catalog, and apps made before clusters. */
export const MAIN_CLUSTER = 'main';

/** Notified with a cluster's name when it is added, or with an app id when the app's placement changes. */
export const PLACEMENTS_CHANNEL = 'tessera_placements';

/** Cluster names: a lowercase letter, then up to 30 lowercase letters, digits, `_` or `-`. */
export const CLUSTER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,30}$/;

export function isClusterName(value: string): boolean {
  return CLUSTER_NAME_PATTERN.test(value);
}

export interface ClusterRow {
  name: string;
  /** The connection URL, sealed under the server's secret key. */
  urlSealed: string;
  createdAt: Date;
}

export interface PlacementRow {
  appId: string;
  name: string;
  cluster: string;
  /** The cluster the app is being copied to, while it is (moveApp). */
  movingTo?: string | null;
}

export async function insertCluster(q: Queryable, cluster: { name: string; urlSealed: string }): Promise<void> {
  const inserted = await q.query(sql`
    INSERT INTO tessera.clusters (name, url_sealed) VALUES (${cluster.name}, ${cluster.urlSealed})
    ON CONFLICT DO NOTHING RETURNING name`);
  if (inserted.rowCount === 0) throw conflict(`A cluster named "${cluster.name}" already exists`);
}

export async function listClusterRows(q: Queryable): Promise<ClusterRow[]> {
  const { rows } = await q.query<{ name: string; url_sealed: string; created_at: Date }>(
    sql`SELECT name, url_sealed, created_at FROM tessera.clusters ORDER BY name`,
  );
  return rows.map((r) => ({ name: r.name, urlSealed: r.url_sealed, createdAt: r.created_at }));
}

/** Apps placed on each cluster (clusters without apps are absent). */
export async function placementCounts(q: Queryable): Promise<Map<string, number>> {
  const { rows } = await q.query<{ cluster: string; apps: number }>(
    sql`SELECT cluster, count(*)::int AS apps FROM tessera.app_placements GROUP BY cluster`,
  );
  return new Map(rows.map((r) => [r.cluster, r.apps]));
}

/** Where the app with this id (or else this name) lives; null when no placement names it. */
export async function findPlacement(q: Queryable, idOrName: string): Promise<PlacementRow | null> {
  if (!isAppId(idOrName) && !isAppName(idOrName)) return null;
  const { rows } = await q.query<{ app_id: string; name: string; cluster: string; moving_to: string | null }>(sql`
    SELECT app_id, name, cluster, moving_to FROM tessera.app_placements
     WHERE app_id = ${idOrName} OR name = ${idOrName}
     ORDER BY (app_id = ${idOrName}) DESC LIMIT 1`);
  const row = rows[0];
  return row ? { appId: row.app_id, name: row.name, cluster: row.cluster, movingTo: row.moving_to } : null;
}

/** Records where an app lives; a name another app on any cluster holds is a CONFLICT. */
export async function insertPlacement(q: Queryable, placement: PlacementRow): Promise<void> {
  try {
    await q.query(sql`
      INSERT INTO tessera.app_placements (app_id, name, cluster) VALUES (${placement.appId}, ${placement.name}, ${placement.cluster})
      ON CONFLICT (app_id) DO UPDATE SET name = EXCLUDED.name, cluster = EXCLUDED.cluster`);
  } catch (err) {
    if (sqlState(err) === '23505') throw conflict(`An app named "${placement.name}" already exists`);
    throw err;
  }
}

/** Marks the app as being copied to `cluster` (null: not any more); false when it has no placement. */
export async function markMoving(q: Queryable, appId: string, cluster: string | null): Promise<boolean> {
  const { rowCount } = await q.query(sql`UPDATE tessera.app_placements SET moving_to = ${cluster} WHERE app_id = ${appId}`);
  return rowCount > 0;
}

/** Places the app on `cluster`, its move done. */
export async function movePlacement(q: Queryable, appId: string, cluster: string): Promise<void> {
  await q.query(sql`UPDATE tessera.app_placements SET cluster = ${cluster}, moving_to = NULL WHERE app_id = ${appId}`);
}

export async function deletePlacement(q: Queryable, appId: string): Promise<void> {
  await q.query(sql`DELETE FROM tessera.app_placements WHERE app_id = ${appId}`);
}

/** Apps of one cluster, by id. */
export async function placedApps(q: Queryable, cluster: string): Promise<string[]> {
  const { rows } = await q.query<{ app_id: string }>(sql`SELECT app_id FROM tessera.app_placements WHERE cluster = ${cluster}`);
  return rows.map((r) => r.app_id);
}
