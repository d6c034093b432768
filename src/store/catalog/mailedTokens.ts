// Catalog rows of tokens mailed to users (address verification, password reset): only the
// token's SHA-256 is stored. The rules — who gets one, what redeeming it does — are the
// accounts stage's; this is their SQL.

import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export type MailedTokenPurpose = 'verifyEmail' | 'resetPassword';

/** Stores a mailed token's hash. */
export async function insertMailedToken(
  q: Queryable,
  t: { appId: string; tokenHash: string; purpose: MailedTokenPurpose; userId: string; email: string; lifetimeSeconds: number },
): Promise<void> {
  await q.query(sql`
    INSERT INTO tessera.mailed_tokens (token_hash, app_id, purpose, user_id, email, expires_at)
    VALUES (${t.tokenHash}, ${t.appId}, ${t.purpose}, ${t.userId}::uuid, ${t.email}, now() + make_interval(secs => ${t.lifetimeSeconds}))`);
}

/**
 * Uses up the live token of this hash and purpose: its user and address, or undefined when
 * there is none (never issued, used, expired, of another app or purpose).
 */
export async function redeemMailedToken(q: Queryable, appId: string, purpose: MailedTokenPurpose, tokenHash: string): Promise<{ userId: string; email: string } | undefined> {
  const { rows } = await q.query<{ user_id: string; email: string }>(sql`
    UPDATE tessera.mailed_tokens SET used_at = now()
     WHERE token_hash = ${tokenHash} AND app_id = ${appId} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > now()
     RETURNING user_id, email`);
  const row = rows[0];
  return row && { userId: row.user_id, email: row.email };
}

/** Uses up every live token of a user for `purpose` (a reset done, the others die with it). */
export async function spendMailedTokens(q: Queryable, appId: string, userId: string, purpose: MailedTokenPurpose): Promise<void> {
  await q.query(sql`
    UPDATE tessera.mailed_tokens SET used_at = now()
     WHERE app_id = ${appId} AND user_id = ${userId}::uuid AND purpose = ${purpose} AND used_at IS NULL`);
}

/** Deletes tokens expired before `before`; how many. */
export async function pruneMailedTokens(q: Queryable, before: Date): Promise<number> {
  const { rowCount } = await q.query(sql`DELETE FROM tessera.mailed_tokens WHERE expires_at < ${before}`);
  return rowCount;
}
