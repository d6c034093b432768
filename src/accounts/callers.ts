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

/**
 * The row uuid of the user a token of `app` names, without a promise when the cache holds both
 * the token, verified before, and the user's state (the usual case). Throws, or rejects with,
 * UNAUTHENTICATED for anything else.
 */
export function tokenUserNow(store: Store, app: AccountApp, token: string, cache?: UserTokenCache): string | Promise<string> {
  if (!cache) return checkedUser(store, app, verifiedToken(app, token), undefined);
  const seen = cache.token(app.id, token, app.keys);
  const state = seen && cache.user(app.id, seen.userId);
  if (seen && state) return allowedUser(seen, state);
  return checkedUser(store, app, seen ? Promise.resolve(seen) : rememberedToken(cache, app, token), cache);
}

/** The user of a token being verified, once the user's state is read (from the cache or the database). */
async function checkedUser(store: Store, app: AccountApp, verifying: Promise<VerifiedToken>, cache: UserTokenCache | undefined): Promise<string> {
  const verified = await verifying;
  return allowedUser(verified, cache?.user(app.id, verified.userId) ?? (await userState(store, app, verified.userId, cache)));
}

/** The token's user, if the user still exists with the password and token generation the token was issued under. */
function allowedUser(verified: VerifiedToken, state: UserState | undefined): string {
  if (state === undefined || state.pwf !== verified.pwf || state.gen !== verified.gen) throw unauthenticated(TOKEN_REFUSED);
  return verified.userId;
}

/** The token verified now, and remembered when valid. */
async function rememberedToken(cache: UserTokenCache, app: AccountApp, token: string): Promise<VerifiedToken> {
  const verified = await verifiedToken(app, token);
  if (verified.publicKey !== '') cache.rememberToken(app.id, token, verified);
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
