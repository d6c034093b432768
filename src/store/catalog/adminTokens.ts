// Catalog rows of admin tokens: only a token's SHA-256 (hex) is stored, one active token per
// name and app; revoking keeps the row with its revocation time.

import { conflict } from '../../errors/index.js';
import { sql } from '../../sql/index.js';
import { sha256Hex } from '../sha256.js';
import type { Queryable } from '../types.js';

/**
 * The stored form of a token, as written at its creation and looked up by every request with a
 * token not yet known to the instance: its SHA-256 in hex.
 */
export const adminTokenHash: (token: string) => string = sha256Hex;

/** Stores a new token's hash; an active token with that name is a CONFLICT. */
export async function insertAdminToken(q: Queryable, t: { appId: string; name: string; tokenHash: string }): Promise<void> {
  const inserted = await q.query(sql`
    INSERT INTO tessera.admin_tokens (app_id, name, token_hash) VALUES (${t.appId}, ${t.name}, ${t.tokenHash})
    ON CONFLICT DO NOTHING RETURNING name`);
  if (inserted.rowCount === 0) throw conflict(`An active admin token named "${t.name}" already exists for this app`);
}

/** Revokes the active token of that name; false when there is none. */
export async function revokeAdminToken(q: Queryable, appId: string, name: string): Promise<boolean> {
  const revoked = await q.query(sql`
    UPDATE tessera.admin_tokens SET revoked_at = now()
     WHERE app_id = ${appId} AND name = ${name} AND revoked_at IS NULL RETURNING name`);
  return revoked.rowCount > 0;
}

/** The active token of an app with this hash. */
export async function findAdminToken(q: Queryable, appId: string, tokenHash: string): Promise<{ name: string } | null> {
  const { rows } = await q.query<{ name: string }>(sql`
    SELECT name FROM tessera.admin_tokens
     WHERE app_id = ${appId} AND token_hash = ${tokenHash} AND revoked_at IS NULL`);
  return rows[0] ?? null;
}

/** The app's active tokens, by name. */
export async function listAdminTokens(q: Queryable, appId: string): Promise<{ name: string; createdAt: Date }[]> {
  const { rows } = await q.query<{ name: string; created_at: Date }>(sql`
    SELECT name, created_at FROM tessera.admin_tokens
     WHERE app_id = ${appId} AND revoked_at IS NULL ORDER BY name`);
  return rows.map((r) => ({ name: r.name, createdAt: r.created_at }));
}
