// The data API route of each app, `/graphql/:appId`: finds the live app, tells who is asking
// from the bearer token, and hands the request to the GraphQL-over-HTTP core with the app's
// schema, its request limits and the compiling executor; a WebSocket upgrade of the same path
// (GET with `Upgrade: websocket`) goes to the subscription endpoint. This file only adapts
// Fastify to those parts.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoginThrottle, Mailer } from '../../accounts/index.js';
import { publicKeySet } from '../../accounts/index.js';
import { executeOperation } from '../../compile/index.js';
import { isTesseraError, notFound } from '../../errors/index.js';
import type { Store } from '../../store/index.js';
import type { AppRegistry } from '../appRegistry.js';
import { mutationPorts, unknownApp } from '../appPorts.js';
import { callerLabel, callerOf } from '../callers.js';
import type { Caller } from '../callers.js';
import type { AnsweredOperation } from '../traffic.js';
import type { SubscriberDirectory } from '../../realtime/index.js';
import { handleGraphQLOverHttp } from '../graphqlOverHttp.js';
import type { OperationNote } from '../graphqlOverHttp.js';
import { traceOperation } from '../tracing.js';
import type { Tracer } from '@opentelemetry/api';
import { appLimits } from '../limits/index.js';
import type { PersistedQueries } from '../persisted.js';
import type { WebSocketEndpoint } from './appSubscriptions.js';
import type { OidcRelyingParty } from '../../oidc/index.js';

export interface AppRouteOptions {
  store: Store;
  registry: AppRegistry;
  platformKey: string;
  /** Which apps have subscribers (mutations of other apps publish no events). */
  directory: SubscriberDirectory;
  /** Told of every answered operation of a live app (metrics, its traffic). */
  onOperation?: (operation: AnsweredOperation) => void;
  /** Traces each request's operation when tracing is on. */
  tracer?: Tracer | undefined;
  /** Redeems OpenID sign-ins (absent: the server has no secret key, and none works). */
  oidc?: OidcRelyingParty | undefined;
}

export function installAppGraphql(app: FastifyInstance, options: AppRouteOptions & { throttle: LoginThrottle; mailer: Mailer; webSocket: WebSocketEndpoint; persisted: PersistedQueries }): void {
  const throttle = options.throttle;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { appId } = request.params as { appId: string };
    const origin = { transport: 'http' as const, appId, headers: request.headers, requestId: request.id };
    return traceOperation(options.tracer, origin, (describe) => answer(request, reply, appId, describe));
  };
  const answer = async (request: FastifyRequest, reply: FastifyReply, appId: string, describe: (note: OperationNote) => void) => {
    const live = await options.registry.get(appId);
    if (!live) throw notFound(unknownApp(appId));
    const started = performance.now();
    const log = (note: OperationNote, seconds: number, status: number, who: ReturnType<typeof callerLabel>) =>
      options.onOperation?.({ ...note, ...who, appId: live.id, transport: 'http', seconds, requestId: request.id, status });
    let caller: Caller;
    try {
      caller = await callerOf(options, live, request.headers.authorization);
    } catch (err) {
      // A refused credential is part of the app's traffic too (answered by the error handler).
      if (isTesseraError(err)) log({ type: 'unknown', outcome: err.code }, (performance.now() - started) / 1000, err.status, { caller: 'anonymous' });
      throw err;
    }
    let answered: { note: OperationNote; seconds: number } | undefined;
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
        // Trusted documents bind users and admin tokens alike; the operator's key (the console) is free of them.
        resolveDocument: (source) => options.persisted.resolve(live.id, live.trusted, !(caller.kind === 'admin' && caller.operator), source),
        onInternalError: (err) => request.log.error({ err, appId }, 'data operation failed'),
        onOperation: (note, seconds) => {
          describe(note);
          answered = { note, seconds };
        },
        execute: (run) =>
          executeOperation({
            ...run,
            app: context,
            store: options.store,
            // request.ip honours X-Forwarded-For only when the operator trusts the proxy.
            ports: mutationPorts(live, { throttle, mailer: options.mailer, oidc: options.oidc }, request.ip, request.log, options.directory),
            admin: caller.kind === 'admin',
            userId: caller.kind === 'user' ? caller.userId : undefined,
          }),
      },
    );
    if (answered) log(answered.note, answered.seconds, response.status, callerLabel(live, caller));
    return reply.code(response.status).headers(response.headers).send(response.body);
  };
  // GET also takes WebSocket upgrades (the upgrade itself is @fastify/websocket's); every other
  // method reaches the core too, which answers 405 for those GraphQL over HTTP does not use.
  app.route({
    method: 'GET',
    url: '/graphql/:appId',
    preHandler: async (request, reply) => {
      if (request.ws) await options.webSocket.open(request, reply);
    },
    handler,
    wsHandler: (socket, request) => options.webSocket.serve(socket, request),
  });
  app.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/graphql/:appId', handler });

  // The app's public keys, for other services to verify its user tokens.
  app.get('/graphql/:appId/.well-known/jwks.json', async (request, reply) => {
    const { appId } = request.params as { appId: string };
    const live = await options.registry.get(appId);
    if (!live) throw notFound(unknownApp(appId));
    return reply.header('cache-control', 'public, max-age=300').send(publicKeySet(live.keys));
  });
}
