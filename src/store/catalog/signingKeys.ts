// Catalog rows of per-app signing keys for user tokens: JWKs with their key id and algorithm.
// A retired key no longer signs; it is kept so tokens it signed can be told apart from forgeries.

import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export interface SigningKeyRow {
  kid: string;
  alg: string;
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  createdAt: Date;
  retiredAt: Date | null;
}

export async function insertSigningKey(
  q: Queryable,
  k: { appId: string; kid: string; alg: string; privateJwk: object; publicJwk: object },
): Promise<void> {
  await q.query(sql`
    INSERT INTO tessera.signing_keys (app_id, kid, alg, private_jwk, public_jwk)
    VALUES (${k.appId}, ${k.kid}, ${k.alg}, ${JSON.stringify(k.privateJwk)}::jsonb, ${JSON.stringify(k.publicJwk)}::jsonb)`);
}

/** An app's signing keys, newest first (the first unretired one signs new tokens). */
export async function listSigningKeys(q: Queryable, appId: string): Promise<SigningKeyRow[]> {
  const { rows } = await q.query<{
    kid: string;
    alg: string;
    private_jwk: Record<string, unknown>;
    public_jwk: Record<string, unknown>;
    created_at: Date;
    retired_at: Date | null;
  }>(sql`
    SELECT kid, alg, private_jwk, public_jwk, created_at, retired_at FROM tessera.signing_keys
     WHERE app_id = ${appId} ORDER BY created_at DESC, kid`);
  return rows.map((r) => ({
    kid: r.kid,
    alg: r.alg,
    privateJwk: r.private_jwk,
    publicJwk: r.public_jwk,
    createdAt: r.created_at,
    retiredAt: r.retired_at,
  }));
}

/** Retires every active key of the app (a new one is about to sign). */
export async function retireSigningKeys(q: Queryable, appId: string): Promise<void> {
  await q.query(sql`UPDATE tessera.signing_keys SET retired_at = now() WHERE app_id = ${appId} AND retired_at IS NULL`);
}
