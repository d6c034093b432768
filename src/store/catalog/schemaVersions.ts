// Catalog rows of an app's schema versions: each applied push with its SDL, model and plan,
// returned exactly as stored (key order included). Versions count from 1; the highest is live.

import { conflict } from '../../errors/index.js';
import type { AppModel, PlannedStep } from '../../model/index.js';
import { sql } from '../../sql/index.js';
import { sqlState } from '../errors.js';
import type { Queryable } from '../types.js';

export interface SchemaVersionRow {
  appId: string;
  version: number;
  sdl: string;
  model: AppModel;
  steps: PlannedStep[];
  appliedAt: Date;
}

interface VersionRecord {
  app_id: string;
  version: number;
  sdl: string;
  model: AppModel;
  steps: PlannedStep[];
  applied_at: Date;
}

/** The live (latest) schema version of an app, or null before the first. */
export async function liveSchema(q: Queryable, appId: string): Promise<SchemaVersionRow | null> {
  const { rows } = await q.query<VersionRecord>(sql`
    SELECT app_id, version, sdl, model, steps, applied_at FROM tessera.schema_versions
     WHERE app_id = ${appId} ORDER BY version DESC LIMIT 1`);
  const r = rows[0];
  return r ? { appId: r.app_id, version: r.version, sdl: r.sdl, model: r.model, steps: r.steps, appliedAt: r.applied_at } : null;
}

/** Records an applied version; a version number already recorded is a CONFLICT. */
export async function insertSchemaVersion(
  q: Queryable,
  row: { appId: string; version: number; sdl: string; model: AppModel; steps: PlannedStep[] },
): Promise<void> {
  try {
    await q.query(sql`
      INSERT INTO tessera.schema_versions (app_id, version, sdl, model, steps)
      VALUES (${row.appId}, ${row.version}, ${row.sdl}, ${JSON.stringify(row.model)}::json, ${JSON.stringify(row.steps)}::json)`);
  } catch (err) {
    if (sqlState(err) === '23505') throw conflict(`Schema version ${row.version} of app ${row.appId} already exists`);
    throw err;
  }
}

/** Every version of an app, oldest first, with the number of steps its plan had. */
export async function schemaHistory(q: Queryable, appId: string): Promise<{ version: number; appliedAt: Date; steps: number }[]> {
  const { rows } = await q.query<{ version: number; applied_at: Date; steps: number }>(sql`
    SELECT version, applied_at, json_array_length(steps) AS steps FROM tessera.schema_versions
     WHERE app_id = ${appId} ORDER BY version`);
  return rows.map((r) => ({ version: r.version, appliedAt: r.applied_at, steps: r.steps }));
}
