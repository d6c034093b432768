// Catalog rows that belong to an app's accounts and travel with its data (export, import,
// fork): two-factor factors with their recovery codes, and OpenID identities. Not sessions,
// mailed tokens, admin tokens or signing keys: tokens of the old app are not valid in a new one.

import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export interface PortableTotpFactor {
  userId: string;
  secret: string;
  createdAt: string;
  confirmedAt: string | null;
  lastStep: number | null;
  recoveryCodes: { codeHash: string; usedAt: string | null }[];
}

export interface PortableOidcIdentity {
  issuer: string;
  subject: string;
  userId: string;
  createdAt: string;
  lastLoginAt: string | null;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** The app's TOTP factors, each with its recovery codes (hashes). */
export async function portableTotpFactors(q: Queryable, appId: string): Promise<PortableTotpFactor[]> {
  const { rows } = await q.query<{
    user_id: string;
    secret: string;
    created_at: Date;
    confirmed_at: Date | null;
    last_step: string | number | null;
    codes: { codeHash: string; usedAt: string | null }[];
  }>(sql`
    SELECT f.user_id, f.secret, f.created_at, f.confirmed_at, f.last_step,
           COALESCE((SELECT json_agg(json_build_object('codeHash', c.code_hash, 'usedAt', c.used_at) ORDER BY c.code_hash)
                       FROM tessera.totp_recovery_codes c WHERE c.app_id = f.app_id AND c.user_id = f.user_id), '[]'::json) AS codes
      FROM tessera.totp_factors f WHERE f.app_id = ${appId} ORDER BY f.user_id`);
  return rows.map((r) => ({
    userId: r.user_id,
    secret: r.secret,
    createdAt: r.created_at.toISOString(),
    confirmedAt: iso(r.confirmed_at),
    lastStep: r.last_step === null ? null : Number(r.last_step),
    recoveryCodes: r.codes,
  }));
}

export async function portableOidcIdentities(q: Queryable, appId: string): Promise<PortableOidcIdentity[]> {
  const { rows } = await q.query<{ issuer: string; subject: string; user_id: string; created_at: Date; last_login_at: Date | null }>(sql`
    SELECT issuer, subject, user_id, created_at, last_login_at FROM tessera.oidc_identities WHERE app_id = ${appId} ORDER BY issuer, subject`);
  return rows.map((r) => ({ issuer: r.issuer, subject: r.subject, userId: r.user_id, createdAt: r.created_at.toISOString(), lastLoginAt: iso(r.last_login_at) }));
}

export async function insertPortableTotpFactor(q: Queryable, appId: string, f: PortableTotpFactor): Promise<void> {
  await q.query(sql`
    INSERT INTO tessera.totp_factors (app_id, user_id, secret, created_at, confirmed_at, last_step)
    VALUES (${appId}, ${f.userId}::uuid, ${f.secret}, ${f.createdAt}::timestamptz, ${f.confirmedAt}::timestamptz, ${f.lastStep}::bigint)`);
  if (f.recoveryCodes.length === 0) return;
  await q.query(sql`
    INSERT INTO tessera.totp_recovery_codes (app_id, user_id, code_hash, used_at)
    SELECT ${appId}, ${f.userId}::uuid, h, u FROM unnest(${f.recoveryCodes.map((c) => c.codeHash)}::text[], ${f.recoveryCodes.map((c) => c.usedAt)}::timestamptz[]) AS t(h, u)`);
}

export async function insertPortableOidcIdentity(q: Queryable, appId: string, i: PortableOidcIdentity): Promise<void> {
  await q.query(sql`
    INSERT INTO tessera.oidc_identities (app_id, issuer, subject, user_id, created_at, last_login_at)
    VALUES (${appId}, ${i.issuer}, ${i.subject}, ${i.userId}::uuid, ${i.createdAt}::timestamptz, ${i.lastLoginAt}::timestamptz)`);
}

/** Copies the account rows of one app to another, in the database (a fork). */
export async function copyAccountRows(q: Queryable, fromApp: string, toApp: string): Promise<void> {
  await q.query(sql`
    INSERT INTO tessera.totp_factors (app_id, user_id, secret, created_at, confirmed_at, last_step)
    SELECT ${toApp}, user_id, secret, created_at, confirmed_at, last_step FROM tessera.totp_factors WHERE app_id = ${fromApp}`);
  await q.query(sql`
    INSERT INTO tessera.totp_recovery_codes (app_id, user_id, code_hash, used_at)
    SELECT ${toApp}, user_id, code_hash, used_at FROM tessera.totp_recovery_codes WHERE app_id = ${fromApp}`);
  await q.query(sql`
    INSERT INTO tessera.oidc_identities (app_id, issuer, subject, user_id, created_at, last_login_at)
    SELECT ${toApp}, issuer, subject, user_id, created_at, last_login_at FROM tessera.oidc_identities WHERE app_id = ${fromApp}`);
}
