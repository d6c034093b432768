// Sessions: a login starts one, held by an opaque refresh token (random, 256 bits; only its
// SHA-256 is stored). A refresh rotates it — the token presented is used up and the next one
// joins the same family — and presenting a used token again means two parties hold the
// session, so the whole family is revoked. A session ends when it expires, is logged out,
// the user's password changes, or the user is gone. Ending every session of a user also
// raises their token generation, which every access token carries, so access tokens issued
// before stop working too.

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { accountType } from '../model/index.js';
import { ident, sql } from '../sql/index.js';
import { appSchemaName, insertRefreshToken, pruneMailedTokens, lockRefreshToken, markRefreshTokenUsed, pruneRefreshTokens, raiseGeneration, revokeFamily, revokeUserTokens, userGeneration } from '../store/index.js';
import type { Queryable, Store } from '../store/index.js';
import { passwordFingerprint } from './password.js';
import type { AccountApp } from './ports.js';

/** Refresh tokens start with this, so they are told apart from access and admin tokens (and found by secret scanners). */
export const REFRESH_TOKEN_PREFIX = 'trt_';

export const REFRESH_REFUSED = 'The refresh token is invalid, expired or revoked';

function hashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a string could be a refresh token at all (checked before any lookup). */
function wellFormed(token: string): boolean {
  return token.startsWith(REFRESH_TOKEN_PREFIX) && token.length === REFRESH_TOKEN_PREFIX.length + 43 && /^[A-Za-z0-9_-]+$/.test(token.slice(REFRESH_TOKEN_PREFIX.length));
}

/** Starts a session (or continues `family`) for a user: the new refresh token. */
export async function startSession(q: Queryable, app: AccountApp, userId: string, passwordHash: string, family: string = randomUUID()): Promise<string> {
  const token = REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  await insertRefreshToken(q, {
    appId: app.id,
    tokenHash: hashOf(token),
    family,
    userId,
    passwordFingerprint: passwordFingerprint(passwordHash),
    lifetimeSeconds: app.settings.refreshTokenLifetimeSeconds,
  });
  return token;
}

/** What presenting a refresh token came to. */
export type Rotation =
  | { kind: 'rotated'; userId: string; passwordHash: string; refreshToken: string }
  /** Refused; `revoked` when the refusal revoked a family, which must be committed. */
  | { kind: 'refused'; revoked: boolean };

/** The stored password hash of a user, locked; undefined when the user is gone. */
async function lockUser(q: Queryable, app: AccountApp, userId: string): Promise<string | undefined> {
  const table = ident(appSchemaName(app.id), accountType(app.model).table);
  const { rows } = await q.query<{ password: string }>(sql`SELECT password FROM ${table} WHERE id = ${userId}::uuid FOR UPDATE`);
  return rows[0]?.password;
}

/**
 * Rotates the session of `refreshToken`, inside the caller's transaction. A refusal that
 * revoked a family (a used token presented again, a session whose password changed or whose
 * user is gone) must still be committed.
 */
export async function rotateSession(q: Queryable, app: AccountApp, refreshToken: string): Promise<Rotation> {
  if (!wellFormed(refreshToken)) return { kind: 'refused', revoked: false };
  const hash = hashOf(refreshToken);
  const row = await lockRefreshToken(q, app.id, hash);
  if (!row || row.revokedAt !== null) return { kind: 'refused', revoked: false };
  if (row.usedAt !== null) {
    // Presented again after it was rotated: the session has leaked. End it for both holders.
    await revokeFamily(q, app.id, row.family);
    return { kind: 'refused', revoked: true };
  }
  if (row.expiresAt.getTime() <= Date.now()) return { kind: 'refused', revoked: false };
  const passwordHash = await lockUser(q, app, row.userId);
  if (passwordHash === undefined || passwordFingerprint(passwordHash) !== row.passwordFingerprint) {
    await revokeFamily(q, app.id, row.family);
    return { kind: 'refused', revoked: true };
  }
  if (!(await markRefreshTokenUsed(q, hash))) return { kind: 'refused', revoked: false };
  const next = await startSession(q, app, row.userId, passwordHash, row.family);
  return { kind: 'rotated', userId: row.userId, passwordHash, refreshToken: next };
}

/** What ending a session came to. */
export interface Ended {
  /** Sessions ended (0 for a token that names none: logging out twice is no error). */
  ended: number;
  /** The session's user, when the token presented was its live one (not used, revoked or expired). */
  liveUserId?: string;
}

/** Ends the session of `refreshToken`, whichever token of its family it is. */
export async function endSession(q: Queryable, app: AccountApp, refreshToken: string): Promise<Ended> {
  if (!wellFormed(refreshToken)) return { ended: 0 };
  const row = await lockRefreshToken(q, app.id, hashOf(refreshToken));
  if (!row) return { ended: 0 };
  const live = row.usedAt === null && row.revokedAt === null && row.expiresAt.getTime() > Date.now();
  const ended = await revokeFamily(q, app.id, row.family);
  return live ? { ended, liveUserId: row.userId } : { ended };
}

/** Ends every session of a user, and makes every access token issued before stop working. */
export async function endAllSessions(q: Queryable, app: AccountApp, userId: string): Promise<number> {
  const ended = await revokeUserTokens(q, app.id, userId);
  await raiseGeneration(q, app.id, userId);
  return ended;
}

/** The token generation new access tokens of a user carry. */
export function currentGeneration(q: Queryable, app: AccountApp, userId: string): Promise<number> {
  return userGeneration(q, app.id, userId);
}

const HOUR_MS = 3_600_000;

/**
 * Deletes refresh tokens and mailed codes a day after they expired, every hour while the
 * server runs (a used refresh token is kept until then, so a late replay is still seen as one).
 * Returns a stop function.
 */
export function pruneSessionsHourly(store: Store, onError: (err: unknown) => void): () => void {
  const prune = async () => {
    const before = new Date(Date.now() - 24 * HOUR_MS);
    await pruneRefreshTokens(store, before).catch(onError);
    await pruneMailedTokens(store, before).catch(onError);
  };
  void prune();
  const timer = setInterval(prune, HOUR_MS);
  timer.unref();
  return () => clearInterval(timer);
}
