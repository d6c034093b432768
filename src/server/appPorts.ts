// What an app's operations need from the rest of the server, whatever transport brings them:
// the accounts stage's ports bound to the app and the caller's address, and whether anyone
// hears the app's events; and how an unknown app is named.

import type { FastifyBaseLogger } from 'fastify';
import { accountPorts } from '../accounts/index.js';
import type { AccountApp, LoginThrottle } from '../accounts/index.js';
import type { MutationPorts } from '../compile/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import type { SubscriberDirectory } from '../realtime/index.js';
import { isAppId } from '../store/index.js';
import type { LiveApp } from './appRegistry.js';

/** A loaded app as the accounts stage sees it. */
export function accountApp(app: LiveApp): AccountApp {
  return { id: app.id, keys: app.keys, model: app.context.app.model, settings: app.context.app.settings };
}

/** The ports of mutations of `app`, for a caller at `address`. */
export function mutationPorts(app: LiveApp, throttle: LoginThrottle, address: string, log?: FastifyBaseLogger, directory?: SubscriberDirectory, oidc?: OidcRelyingParty): MutationPorts {
  return {
    accounts: accountPorts(accountApp(app), throttle, address, {
      oidc,
      // A refused sign-in's reason, for the operator; the client gets one message whatever it was.
      log: (detail, message) => log?.info(detail, message),
    }),
    events: {
      ...(directory ? { wanted: () => directory.has(app.id) } : {}),
      lost: (err) => log?.error({ err, appId: app.id }, 'row events of a committed mutation were not published'),
    },
  };
}

/** The message for an unknown app: the id is echoed only when it could be one. */
export function unknownApp(appId: string): string {
  return isAppId(appId) ? `No app with id "${appId}"` : 'No app with this id';
}
