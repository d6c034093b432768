// Catalog rows of apps: create, find, list, change settings, delete (with the app's schema),
// and the per-app advisory lock that serialises schema changes.

import { conflict } from '../../errors/index.js';
import type { AppSettings } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import { UNBOUNDED_TRANSACTION } from '../statements.js';
import type { Queryable, Transaction } from '../types.js';
import { appSchemaName, isAppId, isAppName } from './appIds.js';
import { queueAppFileRemoval } from './fileRemovals.js';

export interface AppRow {
  id: string;
  name: string;
  createdAt: Date;
  settings: Partial<AppSettings>;
  /** The live schema version; 0 before the first one is recorded. */
  schemaVersion: number;
  /** Whether the app's tables keep the time each row was last linked (false: made before they did; see upgradeLinkTimes). */
  linkTimes: boolean;
}

interface AppRecord {
  id: string;
  name: string;
  created_at: Date;
  settings: Partial<AppSettings>;
  schema_version: number;
  link_times: boolean;
}

const toRow = (r: AppRecord): AppRow => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  settings: r.settings,
  schemaVersion: r.schema_version,
  linkTimes: r.link_times,
});

const SELECT_APPS = sql`
  SELECT a.id, a.name, a.created_at, a.settings, a.link_times,
         COALESCE((SELECT max(v.version) FROM tessera.schema_versions v WHERE v.app_id = a.id), 0) AS schema_version
    FROM tessera.apps a`;

/** Adds an app; a name already taken is a CONFLICT. */
export async function insertApp(q: Queryable, app: { id: string; name: string; settings: Partial<AppSettings> }): Promise<void> {
  appSchemaName(app.id); // validates the id
  // ON CONFLICT keeps a surrounding transaction usable when the name is taken.
  const inserted = await q.query(sql`
    INSERT INTO tessera.apps (id, name, settings) VALUES (${app.id}, ${app.name}, ${JSON.stringify(app.settings)}::jsonb)
    ON CONFLICT DO NOTHING RETURNING id`);
  if (inserted.rowCount > 0) return;
  const taken = await q.query(sql`SELECT 1 FROM tessera.apps WHERE name = ${app.name}`);
  if (taken.rowCount > 0) throw conflict(`An app named "${app.name}" already exists`);
  throw conflict(`An app with id "${app.id}" already exists`);
}

/** A live app by id, or else by name. */
export async function findApp(q: Queryable, idOrName: string): Promise<AppRow | null> {
  // Neither an id nor a name (NUL, 2,000 characters, `../x`): nothing to look for.
  if (!isAppId(idOrName) && !isAppName(idOrName)) return null;
  const { rows } = await q.query<AppRecord>(sql`${SELECT_APPS}
    WHERE a.id = ${idOrName} OR a.name = ${idOrName}
    ORDER BY (a.id = ${idOrName}) DESC
    LIMIT 1`);
  const row = rows[0];
  return row ? toRow(row) : null;
}

export async function listApps(q: Queryable): Promise<AppRow[]> {
  const { rows } = await q.query<AppRecord>(sql`${SELECT_APPS} ORDER BY a.name, a.id`);
  return rows.map(toRow);
}

/** Replaces the app's stored settings (a sparse object; defaults fill the rest on read). */
export async function updateAppSettings(q: Queryable, appId: string, settings: Partial<AppSettings>): Promise<void> {
  await q.query(sql`UPDATE tessera.apps SET settings = ${JSON.stringify(settings)}::jsonb WHERE id = ${appId}`);
}

/** Drops the app's schema and its catalog rows; false when there is no such app. */
export async function deleteApp(q: Queryable, appId: string): Promise<boolean> {
  if (!isAppId(appId)) return false;
  // Versions, tokens and keys go with the app row (ON DELETE CASCADE).
  const deleted = await q.query(sql`DELETE FROM tessera.apps WHERE id = ${appId} RETURNING id`);
  if (deleted.rowCount === 0) return false;
  await q.query(sql`DROP SCHEMA IF EXISTS ${ident(appSchemaName(appId))} CASCADE`);
  // The app's file bytes go with it, removed by the worker once this commits.
  await queueAppFileRemoval(q, appId);
  return true;
}

/**
 * Serialises schema changes (and deletion) of one app until the transaction ends. What follows
 * is DDL, which may take long on large tables, after a wait for the lock: the rest of the
 * transaction runs without the store's statement timeout.
 */
export async function lockApp(tx: Transaction, appId: string): Promise<void> {
  await tx.query(UNBOUNDED_TRANSACTION);
  await tx.advisoryLock(`tessera:app:${appId}`);
}
