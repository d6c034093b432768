// Who is asking an app's endpoint, over HTTP or WebSocket: anonymous, an admin (the platform
// key or one of the app's admin tokens) or one of the app's users (a user token whose user
// still exists with the password the token was issued under).

import { TOKEN_REFUSED, tokenUserNow, userApiId } from '../../accounts/index.js';
import type { UserTokenCache } from '../../accounts/index.js';
import { unauthenticated } from '../../errors/index.js';
import { accountApp } from '../appRegistry.js';
import type { AppRegistry, LiveApp } from '../appRegistry.js';
import { keysMatch } from '../platformKey.js';

/** `operator`: the platform key (the operator, the console), not one of the app's admin tokens. */
export type Caller = { kind: 'anonymous' } | { kind: 'admin'; operator: boolean } | { kind: 'user'; userId: string };

export interface CallerSources {
  registry: AppRegistry;
  /** The platform key: it administers every app, so it is an admin credential on each. */
  platformKey: string;
  /** The user tokens this instance verified, and their users' state (absent: each is checked in full). */
  tokens?: UserTokenCache | undefined;
}

export { TOKEN_REFUSED } from '../../accounts/index.js';

/** The token of an `Authorization: Bearer <token>` value; undefined when there is none. */
export function bearerToken(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(first);
  if (!match) throw unauthenticated('Authorization must be "Bearer <token>"');
  return match[1];
}

/**
 * The caller an Authorization value names, without a promise when this instance knows the
 * credential already (anonymous, the platform key, a token checked lately: most requests).
 * Throws UNAUTHENTICATED for a refused token, or rejects with it.
 */
export function callerNow(sources: CallerSources, app: LiveApp, authorization: string | string[] | undefined): Caller | Promise<Caller> {
  const token = bearerToken(authorization);
  if (token === undefined) return { kind: 'anonymous' };
  if (token.startsWith('tat_')) {
    const known = sources.registry.knownAdminToken(app, token);
    if (known === undefined) return adminTokenCaller(sources.registry, app, token);
    if (known) return { kind: 'admin', operator: false };
    throw unauthenticated(TOKEN_REFUSED);
  }
  if (keysMatch(token, sources.platformKey)) return { kind: 'admin', operator: true };
  const userId = tokenUserNow(app.store, accountApp(app), token, sources.tokens);
  return typeof userId === 'string' ? { kind: 'user', userId } : userId.then((id) => ({ kind: 'user', userId: id }));
}

async function adminTokenCaller(registry: AppRegistry, app: LiveApp, token: string): Promise<Caller> {
  if (await registry.isAdminToken(app, token)) return { kind: 'admin', operator: false };
  throw unauthenticated(TOKEN_REFUSED);
}

/** Who asked, as an app's request log shows it: the kind of caller, and a user's API id. */
export function callerLabel(app: LiveApp, caller: Caller): { caller: Caller['kind']; userId?: string } {
  return caller.kind === 'user' ? { caller: 'user', userId: userApiId(accountApp(app), caller.userId) } : { caller: caller.kind };
}
