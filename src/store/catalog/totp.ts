// Catalog rows of two-factor login: each user's TOTP factor (pending or confirmed, with the
// last time step accepted) and its recovery codes by hash. The rules are the accounts stage's;
// this is their SQL.

import { sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export interface TotpFactorRow {
  /** Base32. */
  secret: string;
  confirmed: boolean;
  /** The time step of the last code accepted; null before any. */
  lastStep: number | null;
}

/**
 * Stores a new pending secret for the user, replacing a pending one; false (and nothing
 * changed) when the user's factor is confirmed already.
 */
export async function putPendingTotp(q: Queryable, appId: string, userId: string, secret: string): Promise<boolean> {
  const { rowCount } = await q.query(sql`
    INSERT INTO tessera.totp_factors (app_id, user_id, secret) VALUES (${appId}, ${userId}::uuid, ${secret})
    ON CONFLICT (app_id, user_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = now(), last_step = NULL
     WHERE tessera.totp_factors.confirmed_at IS NULL`);
  return rowCount > 0;
}

/** The user's factor, locked for the rest of the transaction; undefined when there is none. */
export async function lockTotpFactor(q: Queryable, appId: string, userId: string): Promise<TotpFactorRow | undefined> {
  const { rows } = await q.query<{ secret: string; confirmed: boolean; last_step: string | number | null }>(sql`
    SELECT secret, confirmed_at IS NOT NULL AS confirmed, last_step FROM tessera.totp_factors
     WHERE app_id = ${appId} AND user_id = ${userId}::uuid FOR UPDATE`);
  const row = rows[0];
  return row && { secret: row.secret, confirmed: row.confirmed, lastStep: row.last_step === null ? null : Number(row.last_step) };
}

/** Turns the user's pending factor on, the code of `step` used, with recovery codes (their hashes) replacing any. */
export async function confirmTotpFactor(q: Queryable, appId: string, userId: string, step: number, codeHashes: readonly string[]): Promise<void> {
  await q.query(sql`UPDATE tessera.totp_factors SET confirmed_at = now(), last_step = ${step} WHERE app_id = ${appId} AND user_id = ${userId}::uuid`);
  await q.query(sql`DELETE FROM tessera.totp_recovery_codes WHERE app_id = ${appId} AND user_id = ${userId}::uuid`);
  await q.query(sql`
    INSERT INTO tessera.totp_recovery_codes (app_id, user_id, code_hash)
    SELECT ${appId}, ${userId}::uuid, h FROM unnest(${[...codeHashes]}::text[]) AS t(h)`);
}

/** Records the code of `step` as used; false when a code of that step or a later one was used before. */
export async function useTotpStep(q: Queryable, appId: string, userId: string, step: number): Promise<boolean> {
  const { rowCount } = await q.query(sql`
    UPDATE tessera.totp_factors SET last_step = ${step}
     WHERE app_id = ${appId} AND user_id = ${userId}::uuid AND (last_step IS NULL OR last_step < ${step})`);
  return rowCount > 0;
}

/** Uses up the recovery code with this hash; false when the user has no such unused code. */
export async function useRecoveryCode(q: Queryable, appId: string, userId: string, codeHash: string): Promise<boolean> {
  const { rowCount } = await q.query(sql`
    UPDATE tessera.totp_recovery_codes SET used_at = now()
     WHERE app_id = ${appId} AND user_id = ${userId}::uuid AND code_hash = ${codeHash} AND used_at IS NULL`);
  return rowCount > 0;
}

/** Deletes the user's factor (pending or confirmed) and its recovery codes; whether a confirmed one was deleted. */
export async function deleteTotpFactor(q: Queryable, appId: string, userId: string): Promise<boolean> {
  const { rows } = await q.query<{ confirmed: boolean }>(sql`
    DELETE FROM tessera.totp_factors WHERE app_id = ${appId} AND user_id = ${userId}::uuid RETURNING confirmed_at IS NOT NULL AS confirmed`);
  return rows[0]?.confirmed === true;
}

export interface TotpStatusRow {
  userId: string;
  enabledAt: Date;
  recoveryCodesLeft: number;
}

/** The confirmed factors among these users (row uuids): when each was turned on, and its unused recovery codes. */
export async function totpStatuses(q: Queryable, appId: string, userIds: readonly string[]): Promise<TotpStatusRow[]> {
  const { rows } = await q.query<{ user_id: string; confirmed_at: Date; codes_left: number }>(sql`
    SELECT f.user_id, f.confirmed_at,
           (SELECT count(*)::int FROM tessera.totp_recovery_codes c
             WHERE c.app_id = f.app_id AND c.user_id = f.user_id AND c.used_at IS NULL) AS codes_left
      FROM tessera.totp_factors f
     WHERE f.app_id = ${appId} AND f.user_id = ANY(${[...userIds]}::uuid[]) AND f.confirmed_at IS NOT NULL`);
  return rows.map((r) => ({ userId: r.user_id, enabledAt: r.confirmed_at, recoveryCodesLeft: r.codes_left }));
}

/**
 * Whether the user `userId` (a uuid expression, NULL for none) has two-factor login on, as a
 * boolean expression for a read (NULL when there is no user).
 */
export function totpEnabledSql(appId: SqlFragment, userId: SqlFragment): SqlFragment {
  return sql`(CASE WHEN ${userId}::uuid IS NULL THEN NULL ELSE EXISTS (
    SELECT 1 FROM tessera.totp_factors f WHERE f.app_id = ${appId} AND f.user_id = ${userId}::uuid AND f.confirmed_at IS NOT NULL) END)`;
}
