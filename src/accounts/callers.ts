// Who a user token stands for: valid (signature, audience, issuer, expiry), naming a user of
// the app who still exists with the password the token was issued under.

import { unauthenticated } from '../errors/index.js';
import { accountType, decodeAnyId, encodeId } from '../model/index.js';
import { ident, sql } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';
import type { Store } from '../store/index.js';
import { passwordFingerprint } from './password.js';
import type { AccountApp } from './ports.js';
import { verifyUserToken } from './tokens.js';

export const TOKEN_REFUSED = 'The token is invalid, expired or revoked';

/** The row uuid of the user a token of `app` names; UNAUTHENTICATED for anything else. */
export async function tokenUser(store: Store, app: AccountApp, token: string): Promise<string> {
  const claims = await verifyUserToken(app.keys, app.id, token);
  const type = accountType(app.model);
  const subject = decodeAnyId(claims.sub);
  if (subject?.type !== type.name) throw unauthenticated(TOKEN_REFUSED);
  // One statement: the user's password (a new one ends the tokens issued before) and token
  // generation (raised when every session of the user is ended).
  const { rows } = await store.query<{ password: string; generation: number | null }>(sql`
    SELECT u.password, g.generation FROM ${ident(appSchemaName(app.id), type.table)} u
      LEFT JOIN tessera.user_generations g ON g.app_id = ${app.id} AND g.user_id = u.id
     WHERE u.id = ${subject.uuid}::uuid`);
  const row = rows[0];
  if (row === undefined || passwordFingerprint(row.password) !== claims.pwf || (row.generation ?? 0) !== claims.gen) throw unauthenticated(TOKEN_REFUSED);
  return subject.uuid;
}

/** A user's API id (as tokens and request logs carry it). */
export function userApiId(app: Pick<AccountApp, 'model'>, userId: string): string {
  return encodeId(accountType(app.model).name, userId);
}
