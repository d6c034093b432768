// The data API route of each app, `/graphql/:appId`: finds the live app, tells who is asking
// from the bearer token, and hands the request to the GraphQL-over-HTTP core with the app's
// schema, its request limits and the compiling executor. This file only adapts Fastify to those parts.

import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { LoginThrottle, decoyHash, hashPassword, needsRehash, passwordFingerprint, publicKeySet, signUserToken, verifyPassword } from '../../auth/index.js';
import { encodeId, executeOperation } from '../../compile/index.js';
import type { WriteHooks } from '../../compile/index.js';
import { notFound } from '../../errors/index.js';
import { USER } from '../../model/index.js';
import { isAppId } from '../../store/index.js';
import type { Store } from '../../store/index.js';
import type { AppRegistry, LiveApp } from '../appRegistry.js';
import { callerOf } from '../callers.js';
import type { SubscriberDirectory } from '../../realtime/index.js';
import { handleGraphQLOverHttp } from '../graphqlOverHttp.js';
import { appLimits } from '../limits/index.js';

export interface AppRouteOptions {
  store: Store;
  registry: AppRegistry;
  platformKey: string;
  /** Which apps have subscribers (mutations of other apps publish no events). */
  directory: SubscriberDirectory;
}

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

export function installAppGraphql(app: FastifyInstance, options: AppRouteOptions & { throttle: LoginThrottle }): void {
  const throttle = options.throttle;
  app.route({
    // Every method reaches the core, which answers 405 for those GraphQL over HTTP does not use.
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/graphql/:appId',
    handler: async (request, reply) => {
      const { appId } = request.params as { appId: string };
      const live = await options.registry.get(appId);
      if (!live) throw notFound(unknownApp(appId));
      const caller = await callerOf(options, live, request.headers.authorization);
      const context = live.context;
      // Built once per loaded app: a settings change loads the app anew, with new limits and
      // an empty document cache, so documents validated under the old limits are not reused.
      const limits = appLimits(context.app.settings);
      const response = await handleGraphQLOverHttp(
        { method: request.method, headers: request.headers, query: request.query as Record<string, unknown>, body: request.body },
        {
          schema: context.app.schema,
          contextValue: undefined,
          requestId: request.id,
          maxTokens: limits.maxTokens,
          limitRules: limits.limitRules,
          validationRules: limits.validationRules,
          checkRequest: limits.checkRequest,
          suggestions: limits.suggestions,
          documents: live.documents,
          onInternalError: (err) => request.log.error({ err, appId }, 'data operation failed'),
          execute: (run) =>
            executeOperation({
              ...run,
              app: context,
              store: options.store,
              // request.ip honours X-Forwarded-For only when the operator trusts the proxy.
              hooks: writeHooks(live, throttle, request.ip, request.log, options.directory),
              admin: caller.kind === 'admin',
              userId: caller.kind === 'user' ? caller.userId : undefined,
            }),
        },
      );
      return reply.code(response.status).headers(response.headers).send(response.body);
    },
  });

  // The app's public keys, for other services to verify its user tokens.
  app.get('/graphql/:appId/.well-known/jwks.json', async (request, reply) => {
    const { appId } = request.params as { appId: string };
    const live = await options.registry.get(appId);
    if (!live) throw notFound(unknownApp(appId));
    return reply.header('cache-control', 'public, max-age=300').send(publicKeySet(live.keys));
  });
}
