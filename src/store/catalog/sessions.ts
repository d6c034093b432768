// Catalog rows of user sessions: refresh tokens (by hash, in families) and each user's token
// generation. The rules — rotation, reuse, expiry — are the accounts stage's; this is their SQL.

import { sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export interface RefreshTokenRow {
  family: string;
  userId: string;
  passwordFingerprint: string;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

/** Stores a refresh token's hash in `family`. */
export async function insertRefreshToken(
  q: Queryable,
  t: { appId: string; tokenHash: string; family: string; userId: string; passwordFingerprint: string; lifetimeSeconds: number },
): Promise<void> {
  await q.query(sql`
    INSERT INTO tessera.refresh_tokens (token_hash, app_id, family, user_id, password_fingerprint, expires_at)
    VALUES (${t.tokenHash}, ${t.appId}, ${t.family}::uuid, ${t.userId}::uuid, ${t.passwordFingerprint}, now() + make_interval(secs => ${t.lifetimeSeconds}))`);
}

/** The app's refresh token with this hash, locked for the rest of the transaction. */
export async function lockRefreshToken(q: Queryable, appId: string, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  const { rows } = await q.query<{ family: string; user_id: string; password_fingerprint: string; expires_at: Date; used_at: Date | null; revoked_at: Date | null }>(sql`
    SELECT family, user_id, password_fingerprint, expires_at, used_at, revoked_at FROM tessera.refresh_tokens
     WHERE token_hash = ${tokenHash} AND app_id = ${appId} FOR UPDATE`);
  const row = rows[0];
  return row && { family: row.family, userId: row.user_id, passwordFingerprint: row.password_fingerprint, expiresAt: row.expires_at, usedAt: row.used_at, revokedAt: row.revoked_at };
}

/** Marks a token used (rotated); false when it already was (a concurrent refresh won). */
export async function markRefreshTokenUsed(q: Queryable, tokenHash: string): Promise<boolean> {
  const { rowCount } = await q.query(sql`UPDATE tessera.refresh_tokens SET used_at = now() WHERE token_hash = ${tokenHash} AND used_at IS NULL`);
  return rowCount > 0;
}

/** Revokes the app's unrevoked tokens that `which` selects; the number of live sessions it ended. */
async function revoke(q: Queryable, appId: string, which: SqlFragment): Promise<number> {
  const { rows } = await q.query<{ live: number }>(sql`
    WITH revoked AS (
      UPDATE tessera.refresh_tokens SET revoked_at = now()
       WHERE app_id = ${appId} AND ${which} AND revoked_at IS NULL
       RETURNING used_at, expires_at)
    SELECT count(*) FILTER (WHERE used_at IS NULL AND expires_at > now())::int AS live FROM revoked`);
  return rows[0]?.live ?? 0;
}

/** Revokes every token of a family; the number of live sessions it ended (0 or 1). */
export function revokeFamily(q: Queryable, appId: string, family: string): Promise<number> {
  return revoke(q, appId, sql`family = ${family}::uuid`);
}

/** Revokes every token of a user; the number of live sessions it ended. */
export function revokeUserTokens(q: Queryable, appId: string, userId: string): Promise<number> {
  return revoke(q, appId, sql`user_id = ${userId}::uuid`);
}

/** Raises a user's token generation; the new one. */
export async function raiseGeneration(q: Queryable, appId: string, userId: string): Promise<number> {
  const { rows } = await q.query<{ generation: number }>(sql`
    INSERT INTO tessera.user_generations (app_id, user_id, generation) VALUES (${appId}, ${userId}::uuid, 1)
    ON CONFLICT (app_id, user_id) DO UPDATE SET generation = tessera.user_generations.generation + 1
    RETURNING generation`);
  return (rows[0] as { generation: number }).generation;
}

/** A user's token generation (0 when it was never raised). */
export async function userGeneration(q: Queryable, appId: string, userId: string): Promise<number> {
  const { rows } = await q.query<{ generation: number }>(sql`
    SELECT generation FROM tessera.user_generations WHERE app_id = ${appId} AND user_id = ${userId}::uuid`);
  return rows[0]?.generation ?? 0;
}

/** Deletes refresh tokens expired before `before`; how many. */
export async function pruneRefreshTokens(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.query(sql`DELETE FROM tessera.refresh_tokens WHERE expires_at < ${before}`);
  return rowCount;
}
