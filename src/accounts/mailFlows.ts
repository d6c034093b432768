// Accounts by mail: a mailed token proves the user holds an address. Verification marks the
// user's current address verified; a reset sets a new password and ends every session. Tokens
// are random (`tmt_` + 256 bits), stored only as their SHA-256, single use, bound to the
// address they went to, and expire (a day for verification, an hour for a reset).

import { createHash, randomBytes } from 'node:crypto';
import { badInput } from '../errors/index.js';
import { accountType } from '../model/index.js';
import { ident, sql } from '../sql/index.js';
import { appSchemaName, insertMailedToken, redeemMailedToken, spendMailedTokens } from '../store/index.js';
import type { MailedTokenPurpose, Queryable } from '../store/index.js';
import type { Mail } from './mail.js';
import type { AccountApp } from './ports.js';
import { endAllSessions } from './sessions.js';

export const MAILED_TOKEN_PREFIX = 'tmt_';
export const MAILED_TOKEN_REFUSED = 'The code is invalid, expired or already used';

const LIFETIME_SECONDS: Readonly<Record<MailedTokenPurpose, number>> = { verifyEmail: 24 * 3600, resetPassword: 3600 };

function hashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function wellFormed(token: string): boolean {
  return token.startsWith(MAILED_TOKEN_PREFIX) && token.length === MAILED_TOKEN_PREFIX.length + 43 && /^[A-Za-z0-9_-]+$/.test(token.slice(MAILED_TOKEN_PREFIX.length));
}

function users(app: AccountApp) {
  return ident(appSchemaName(app.id), accountType(app.model).table);
}

async function issue(q: Queryable, app: AccountApp, purpose: MailedTokenPurpose, userId: string, email: string): Promise<string> {
  const token = MAILED_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  await insertMailedToken(q, { appId: app.id, tokenHash: hashOf(token), purpose, userId, email, lifetimeSeconds: LIFETIME_SECONDS[purpose] });
  return token;
}

/** The verification mail for the user's current address; BAD_USER_INPUT when they have none. */
export async function verificationMail(q: Queryable, app: AccountApp, userId: string): Promise<Mail> {
  const { rows } = await q.query<{ username: string; email: string | null }>(sql`SELECT username, email FROM ${users(app)} WHERE id = ${userId}::uuid`);
  const user = rows[0];
  if (!user) throw badInput('No such user');
  if (user.email === null) throw badInput('The user has no email address to verify; set User.email first', { field: 'email' });
  const token = await issue(q, app, 'verifyEmail', userId, user.email);
  return { to: user.email, kind: 'verifyEmail', token, username: user.username, appName: app.name };
}

/** Redeems a verification token: the user it verified, or undefined (a refusal). */
export async function verifyEmail(q: Queryable, app: AccountApp, token: string): Promise<string | undefined> {
  if (!wellFormed(token)) return undefined;
  const redeemed = await redeemMailedToken(q, app.id, 'verifyEmail', hashOf(token));
  if (!redeemed) return undefined;
  // Only the address the code went to: one changed since is not verified by it.
  const { rowCount } = await q.query(sql`
    UPDATE ${users(app)} SET "emailVerified" = true, "modifiedAt" = now()
     WHERE id = ${redeemed.userId}::uuid AND lower(email) = lower(${redeemed.email})`);
  return rowCount > 0 ? redeemed.userId : undefined;
}

/**
 * The reset mail for whoever holds `email`, or undefined when nobody does — which the caller
 * must not let show (same answer, about the same time).
 */
export async function resetMail(q: Queryable, app: AccountApp, email: string): Promise<Mail | undefined> {
  const { rows } = await q.query<{ id: string; username: string; email: string }>(sql`SELECT id, username, email FROM ${users(app)} WHERE lower(email) = lower(${email})`);
  const user = rows[0];
  if (!user) return undefined;
  const token = await issue(q, app, 'resetPassword', user.id, user.email);
  return { to: user.email, kind: 'resetPassword', token, username: user.username, appName: app.name };
}

/**
 * Redeems a reset token with the new password's hash: the user whose password it set, or
 * undefined (a refusal). Every session of the user ends, with the access tokens issued
 * before; their other reset codes die; the address the code reached is verified.
 */
export async function resetPassword(q: Queryable, app: AccountApp, token: string, passwordHash: string): Promise<string | undefined> {
  if (!wellFormed(token)) return undefined;
  const redeemed = await redeemMailedToken(q, app.id, 'resetPassword', hashOf(token));
  if (!redeemed) return undefined;
  const { rowCount } = await q.query(sql`
    UPDATE ${users(app)} SET password = ${passwordHash}, "modifiedAt" = now(),
           "emailVerified" = ("emailVerified" OR lower(email) = lower(${redeemed.email}))
     WHERE id = ${redeemed.userId}::uuid`);
  if (rowCount === 0) return undefined;
  await spendMailedTokens(q, app.id, redeemed.userId, 'resetPassword');
  await endAllSessions(q, app, redeemed.userId);
  return redeemed.userId;
}
