// Catalog rows of OpenID Connect: an app's providers (the client secret only ever sealed) and
// the identities linked to its users. The rules — discovery, sealing, who may link what — are
// the admin and accounts stages'; this is their SQL.

import { conflict } from '../../errors/index.js';
import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export interface OidcProviderRow {
  appId: string;
  name: string;
  issuer: string;
  clientId: string;
  /** The client secret, sealed (never the secret itself). */
  sealedSecret: string;
  scopes: string[];
  /** The issuer's discovery document as fetched when the provider was added. */
  metadata: Record<string, unknown> & { issuer: string };
  createdAt: Date;
}

interface ProviderRecord {
  app_id: string;
  name: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  scopes: string;
  metadata: Record<string, unknown> & { issuer: string };
  created_at: Date;
}

function providerOf(r: ProviderRecord): OidcProviderRow {
  return {
    appId: r.app_id,
    name: r.name,
    issuer: r.issuer,
    clientId: r.client_id,
    sealedSecret: r.client_secret_sealed,
    scopes: r.scopes.split(' ').filter((s) => s !== ''),
    metadata: r.metadata,
    createdAt: r.created_at,
  };
}

/** Stores a provider; one of that name in the app already is a CONFLICT. */
export async function insertOidcProvider(q: Queryable, p: Omit<OidcProviderRow, 'createdAt'>): Promise<void> {
  const inserted = await q.query(sql`
    INSERT INTO tessera.oidc_providers (app_id, name, issuer, client_id, client_secret_sealed, scopes, metadata)
    VALUES (${p.appId}, ${p.name}, ${p.issuer}, ${p.clientId}, ${p.sealedSecret}, ${p.scopes.join(' ')}, ${JSON.stringify(p.metadata)}::jsonb)
    ON CONFLICT DO NOTHING RETURNING name`);
  if (inserted.rowCount === 0) throw conflict(`The app already has an OpenID provider named "${p.name}"`, { field: 'name' });
}

/** Removes a provider; false when the app has none of that name. */
export async function deleteOidcProvider(q: Queryable, appId: string, name: string): Promise<boolean> {
  const deleted = await q.query(sql`DELETE FROM tessera.oidc_providers WHERE app_id = ${appId} AND name = ${name} RETURNING name`);
  return deleted.rowCount > 0;
}

/** The app's provider of that name. */
export async function findOidcProvider(q: Queryable, appId: string, name: string): Promise<OidcProviderRow | undefined> {
  const { rows } = await q.query<ProviderRecord>(sql`
    SELECT app_id, name, issuer, client_id, client_secret_sealed, scopes, metadata, created_at
      FROM tessera.oidc_providers WHERE app_id = ${appId} AND name = ${name}`);
  return rows[0] && providerOf(rows[0]);
}

/** The app's providers, by name. */
export async function listOidcProviders(q: Queryable, appId: string): Promise<OidcProviderRow[]> {
  const { rows } = await q.query<ProviderRecord>(sql`
    SELECT app_id, name, issuer, client_id, client_secret_sealed, scopes, metadata, created_at
      FROM tessera.oidc_providers WHERE app_id = ${appId} ORDER BY name`);
  return rows.map(providerOf);
}

/** The user an identity is linked to, its row locked for the rest of the transaction. */
export async function lockOidcIdentity(q: Queryable, appId: string, issuer: string, subject: string): Promise<string | undefined> {
  const { rows } = await q.query<{ user_id: string }>(sql`
    SELECT user_id FROM tessera.oidc_identities
     WHERE app_id = ${appId} AND issuer = ${issuer} AND subject = ${subject} FOR UPDATE`);
  return rows[0]?.user_id;
}

/**
 * Links an identity to a user, or moves a stale link (whose user is gone) to them; false when
 * the identity is linked to someone else — the caller decides whether that someone still exists.
 */
export async function insertOidcIdentity(q: Queryable, i: { appId: string; issuer: string; subject: string; userId: string }): Promise<boolean> {
  const inserted = await q.query(sql`
    INSERT INTO tessera.oidc_identities (app_id, issuer, subject, user_id)
    VALUES (${i.appId}, ${i.issuer}, ${i.subject}, ${i.userId}::uuid)
    ON CONFLICT DO NOTHING RETURNING user_id`);
  return inserted.rowCount > 0;
}

/** Moves an identity to another user (its former user being gone). */
export async function relinkOidcIdentity(q: Queryable, i: { appId: string; issuer: string; subject: string; userId: string }): Promise<void> {
  await q.query(sql`
    UPDATE tessera.oidc_identities SET user_id = ${i.userId}::uuid, created_at = now(), last_login_at = NULL
     WHERE app_id = ${i.appId} AND issuer = ${i.issuer} AND subject = ${i.subject}`);
}

/** Records a login with an identity. */
export async function touchOidcIdentity(q: Queryable, appId: string, issuer: string, subject: string): Promise<void> {
  await q.query(sql`
    UPDATE tessera.oidc_identities SET last_login_at = now() WHERE app_id = ${appId} AND issuer = ${issuer} AND subject = ${subject}`);
}

/** How many identities a user holds, of any issuer or (given) of one. */
export async function countOidcIdentities(q: Queryable, appId: string, userId: string, issuer?: string): Promise<number> {
  const only = issuer === undefined ? sql`` : sql` AND issuer = ${issuer}`;
  const { rows } = await q.query<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM tessera.oidc_identities WHERE app_id = ${appId} AND user_id = ${userId}::uuid${only}`);
  return rows[0]?.n ?? 0;
}

/** Removes a user's identities of one issuer; how many. */
export async function deleteOidcIdentities(q: Queryable, appId: string, userId: string, issuer: string): Promise<number> {
  const { rowCount } = await q.query(sql`
    DELETE FROM tessera.oidc_identities WHERE app_id = ${appId} AND user_id = ${userId}::uuid AND issuer = ${issuer}`);
  return rowCount;
}
