// Who a user token stands for: valid (signature, audience, issuer, expiry), naming a user of
// the app who still exists with the password and token generation the token was issued under.
// A token seen before and a user read a moment ago are taken from the instance's cache, which
// whatever ends a user's tokens clears (tokenCache.ts).

import { unauthenticated } from '../errors/index.js';
import { accountType, decodeAnyId, encodeId } from '../model/index.js';
import { ident, sql } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';
import type { Store } from '../store/index.js';
import { passwordFingerprint } from './password.js';
import type { AccountApp } from './ports.js';
import { publicKeyOf } from './tokenCache.js';
import type { UserState, UserTokenCache, VerifiedToken } from './tokenCache.js';
import { verifyUserToken } from './tokens.js';

export const TOKEN_REFUSED = 'The token is invalid, expired or revoked';

/** The row uuid of the user a token of `app` names; UNAUTHENTICATED for anything else. */
export async function tokenUser(store: Store, app: AccountApp, token: string, cache?: UserTokenCache): Promise<string> {
  const verified = cache ? await cachedToken(cache, app, token) : await verifiedToken(app, token);
  const state = cache?.user(app.id, verified.userId) ?? (await userState(store, app, verified.userId, cache));
  if (state === undefined || state.pwf !== verified.pwf || state.gen !== verified.gen) throw unauthenticated(TOKEN_REFUSED);
  return verified.userId;
}

/**
 * The user a token names when this instance verified the token before and knows the user's
 * state (the usual case, answered without a promise); undefined when tokenUser must check it.
 * Throws UNAUTHENTICATED for a token the user's state refuses.
 */
export function knownTokenUser(app: AccountApp, token: string, cache: UserTokenCache): string | undefined {
  const seen = cache.token(cache.tokenKey(app.id, token), app.keys);
  if (!seen) return undefined;
  const state = cache.user(app.id, seen.userId);
  if (state === undefined) return undefined;
  if (state.pwf !== seen.pwf || state.gen !== seen.gen) throw unauthenticated(TOKEN_REFUSED);
  return seen.userId;
}

/** The token as verified before, or verified now (and remembered when valid). */
async function cachedToken(cache: UserTokenCache, app: AccountApp, token: string): Promise<VerifiedToken> {
  const key = cache.tokenKey(app.id, token);
  const seen = cache.token(key, app.keys);
  if (seen) return seen;
  const verified = await verifiedToken(app, token);
  if (verified.publicKey !== '') cache.rememberToken(key, verified);
  return verified;
}

/** A token's signature, audience, issuer and expiry checked, and its subject a user of the app. */
async function verifiedToken(app: AccountApp, token: string): Promise<VerifiedToken> {
  const claims = await verifyUserToken(app.keys, app.id, token);
  const subject = decodeAnyId(claims.sub);
  if (subject?.type !== accountType(app.model).name) throw unauthenticated(TOKEN_REFUSED);
  const key = app.keys.find((k) => k.kid === claims.kid);
  return { userId: subject.uuid, pwf: claims.pwf, gen: claims.gen, expiresAt: claims.exp * 1000, kid: claims.kid ?? '', publicKey: key ? publicKeyOf(key) : '' };
}

/**
 * One statement: the user's password (a new one ends the tokens issued before) and token
 * generation (raised when every session of the user is ended); undefined when the user is gone.
 */
async function userState(store: Store, app: AccountApp, userId: string, cache: UserTokenCache | undefined): Promise<UserState | undefined> {
  const epoch = cache?.epoch ?? 0;
  const { rows } = await store.query<{ password: string; generation: number | null }>(sql`
    SELECT u.password, g.generation FROM ${ident(appSchemaName(app.id), accountType(app.model).table)} u
      LEFT JOIN tessera.user_generations g ON g.app_id = ${app.id} AND g.user_id = u.id
     WHERE u.id = ${userId}::uuid`);
  const row = rows[0];
  if (row === undefined) return undefined;
  const state = { pwf: passwordFingerprint(row.password), gen: row.generation ?? 0 };
  cache?.rememberUser(app.id, userId, state, epoch);
  return state;
}

/** A user's API id (as tokens and request logs carry it). */
export function userApiId(app: Pick<AccountApp, 'model'>, userId: string): string {
  return encodeId(accountType(app.model).name, userId);
}
