// OpenID Connect identities of an app's users: who a verified (issuer, subject) is — never an
// email address, which providers let users change and which two providers may both claim —
// linking one to a user (an identity belongs to one user; a link whose user was deleted gives
// way), unlinking, and the username a first sign-in's new account gets.

import { randomBytes } from 'node:crypto';
import { TesseraError, badInput } from '../errors/index.js';
import { accountType } from '../model/index.js';
import type { AuthorizationGrant, IdentityProfile, OidcRelyingParty, VerifiedIdentity } from '../oidc/index.js';
import { SignInFailure } from '../oidc/index.js';
import { ident, sql } from '../sql/index.js';
import { appSchemaName, countOidcIdentities, deleteOidcIdentities, findOidcProvider, insertOidcIdentity, lockOidcIdentity, relinkOidcIdentity, touchOidcIdentity } from '../store/index.js';
import type { Queryable } from '../store/index.js';
import { hasPassword } from './password.js';
import type { AccountApp } from './ports.js';

/** An identity a provider of the app vouched for, and that provider's name. */
export interface OidcIdentity extends VerifiedIdentity {
  provider: string;
}

/** Where the details of a refused sign-in go (the server's log); never a code, token or secret. */
export type AccountLog = (detail: Record<string, unknown>, message: string) => void;

function unknownProvider(name: string): TesseraError {
  const shown = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name) ? ` named "${name}"` : ' of that name';
  return badInput(`The app has no OpenID provider${shown}`, { field: 'provider' });
}

/**
 * Redeems the client's authorization code at the app's provider `name` and verifies the ID
 * token: the identity. BAD_USER_INPUT for a provider the app does not have; UNAUTHENTICATED
 * (one message, whatever the reason) for anything refused — the reason goes to the log.
 */
export async function oidcIdentity(q: Queryable, app: AccountApp, oidc: OidcRelyingParty | undefined, log: AccountLog | undefined, name: string, grant: AuthorizationGrant): Promise<OidcIdentity> {
  const provider = await findOidcProvider(q, app.id, name);
  if (!provider) throw unknownProvider(name);
  if (!oidc) throw new TesseraError('NOT_IMPLEMENTED', 'OpenID Connect is not set up on this server (it was started without a secret key)');
  try {
    const identity = await oidc.redeem(provider, grant);
    return { ...identity, provider: name };
  } catch (err) {
    if (err instanceof SignInFailure) log?.({ appId: app.id, provider: name, code: err.code, reason: err.detail }, 'OpenID sign-in refused');
    throw err;
  }
}

/** Whether the app's user `userId` exists (locked for the rest of the transaction). */
async function userExists(q: Queryable, app: AccountApp, userId: string): Promise<boolean> {
  const table = ident(appSchemaName(app.id), accountType(app.model).table);
  const { rowCount } = await q.query(sql`SELECT 1 FROM ${table} WHERE id = ${userId}::uuid FOR UPDATE`);
  return rowCount > 0;
}

/** The user an identity is linked to; undefined when none, or when that user is gone. */
export async function identityUser(q: Queryable, app: AccountApp, identity: VerifiedIdentity): Promise<string | undefined> {
  const userId = await lockOidcIdentity(q, app.id, identity.issuer, identity.subject);
  if (userId === undefined || !(await userExists(q, app, userId))) return undefined;
  await touchOidcIdentity(q, app.id, identity.issuer, identity.subject);
  return userId;
}

/**
 * Links an identity to a user: `linked` (also when it already was theirs), or `taken` when
 * another user who still exists holds it. A link left by a deleted user moves.
 */
export async function linkIdentity(q: Queryable, app: AccountApp, userId: string, identity: VerifiedIdentity): Promise<'linked' | 'taken'> {
  const key = { appId: app.id, issuer: identity.issuer, subject: identity.subject, userId };
  if (await insertOidcIdentity(q, key)) return 'linked';
  const holder = await lockOidcIdentity(q, app.id, identity.issuer, identity.subject);
  if (holder === userId) return 'linked';
  if (holder !== undefined && (await userExists(q, app, holder))) return 'taken';
  await relinkOidcIdentity(q, key);
  return 'linked';
}

/**
 * Removes the user's identities of provider `name`'s issuer; how many. Refused when they are
 * the account's only way to log in (no password, no other identity): it would be lost.
 */
export async function unlinkIdentities(q: Queryable, app: AccountApp, userId: string, name: string): Promise<number> {
  const provider = await findOidcProvider(q, app.id, name);
  if (!provider) throw unknownProvider(name);
  const table = ident(appSchemaName(app.id), accountType(app.model).table);
  const { rows } = await q.query<{ password: string }>(sql`SELECT password FROM ${table} WHERE id = ${userId}::uuid FOR UPDATE`);
  const stored = rows[0]?.password;
  if (stored === undefined) return 0;
  const ofIssuer = await countOidcIdentities(q, app.id, userId, provider.issuer);
  if (ofIssuer === 0) return 0;
  const all = await countOidcIdentities(q, app.id, userId);
  if (!hasPassword(stored) && all === ofIssuer) {
    throw new TesseraError('FORBIDDEN', 'This is the only way the account logs in (it has no password); link another provider first', { field: 'provider' });
  }
  return deleteOidcIdentities(q, app.id, userId, provider.issuer);
}

const MAX_USERNAME = 40;

/** A username made from a claim: one NFC spelling, no control characters, lone surrogates or spaces, not too long. */
function usernameFrom(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const cleaned = value
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, '')
    .trim()
    .replace(/\s+/gu, '-');
  const short = [...cleaned].slice(0, MAX_USERNAME).join('');
  return short.length > 0 ? short : undefined;
}

/** What a new account would like to be called: preferred_username, else the email's local part, else the subject. */
function preferredName(profile: IdentityProfile, subject: string): string {
  return usernameFrom(profile.preferredUsername) ?? usernameFrom(profile.email?.split('@')[0]) ?? usernameFrom(subject.length <= 32 ? subject : undefined) ?? 'user';
}

/**
 * A username nobody in the app has (ignoring case), for a first sign-in's new account: the
 * preferred name, or it with a number (`ann2`, `ann3`, …). A taken name is never the same
 * account — sign-ins find accounts by identity only.
 */
export async function freeUsername(q: Queryable, app: AccountApp, profile: IdentityProfile, subject: string): Promise<string> {
  const base = preferredName(profile, subject);
  const table = ident(appSchemaName(app.id), accountType(app.model).table);
  const candidates = [base, ...Array.from({ length: 19 }, (_, i) => `${base}${i + 2}`)];
  // Compared by PostgreSQL's lower(), as the unique index compares usernames.
  const { rows } = await q.query<{ name: string }>(sql`
    SELECT t.name FROM jsonb_array_elements_text(${JSON.stringify(candidates)}::jsonb) WITH ORDINALITY AS t(name, n)
     WHERE NOT EXISTS (SELECT 1 FROM ${table} u WHERE lower(u.username) = lower(t.name)) ORDER BY t.n LIMIT 1`);
  const free = rows[0]?.name;
  return free ?? `${base}-${randomBytes(4).toString('hex')}`;
}
