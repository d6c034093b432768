// What an app's operations need from the rest of the server, whatever transport brings them:
// the mutation hooks bound to the app and the caller's address (hashing, login throttling,
// token issuing, whether anyone hears the app's events), and how an unknown app is named.

import type { FastifyBaseLogger } from 'fastify';
import { LoginThrottle, decoyHash, hashPassword, needsRehash, passwordFingerprint, signUserToken, verifyPassword } from '../auth/index.js';
import { encodeId } from '../compile/index.js';
import type { WriteHooks } from '../compile/index.js';
import { USER } from '../model/index.js';
import type { SubscriberDirectory } from '../realtime/index.js';
import { isAppId } from '../store/index.js';
import type { LiveApp } from './appRegistry.js';

/** What mutations need from the authentication stage, bound to one app and client address. */
export function writeHooks(app: LiveApp, throttle: LoginThrottle, address: string, log?: FastifyBaseLogger, directory?: SubscriberDirectory): WriteHooks {
  return {
    ...(directory ? { eventsWanted: () => directory.has(app.id) } : {}),
    eventsLost: (err) => log?.error({ err, appId: app.id }, 'row events of a committed mutation were not published'),
    loginAttempt: (username) => throttle.attempt(app.id, username, address),
    loginSucceeded: (username) => throttle.succeeded(app.id, username, address),
    hashPassword,
    needsRehash,
    async verifyPassword(stored, password) {
      if (stored === null) {
        await verifyPassword(await decoyHash(), password);
        return false;
      }
      return verifyPassword(stored, password);
    },
    issueToken: (userId, passwordHash) =>
      signUserToken(app.keys, {
        appId: app.id,
        userId: encodeId(USER, userId),
        lifetimeSeconds: app.context.app.settings.tokenLifetimeSeconds,
        passwordFingerprint: passwordFingerprint(passwordHash),
      }),
  };
}

/** The message for an unknown app: the id is echoed only when it could be one. */
export function unknownApp(appId: string): string {
  return isAppId(appId) ? `No app with id "${appId}"` : 'No app with this id';
}

