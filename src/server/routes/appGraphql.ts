// The data API route of each app, `/graphql/:appId`: finds the live app, tells who is asking
// from the bearer token, and hands the request to GraphQL over HTTP with the operation core's
// runner for that app and caller; a WebSocket upgrade of the same path (GET with `Upgrade:
// websocket`) goes to the subscription endpoint. This file only adapts Fastify to those parts.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Tracer } from '@opentelemetry/api';
import { publicKeySet } from '../../accounts/index.js';
import { isTesseraError, notFound } from '../../errors/index.js';
import { unknownApp } from '../appPorts.js';
import { handleGraphQLOverHttp } from '../graphqlOverHttp.js';
import { setAnswerHeaders } from '../plugins/cors.js';
import type { AppOperations } from '../operation/appOperations.js';
import { callerLabel } from '../operation/callers.js';
import type { AnsweredOperation } from '../traffic.js';
import { traceOperation } from '../tracing.js';
import type { WebSocketEndpoint } from './appSubscriptions.js';

export interface AppRouteOptions {
  operations: AppOperations;
  webSocket: WebSocketEndpoint;
  /** Told of every answered operation of a live app (metrics, its traffic). */
  onOperation?: (operation: AnsweredOperation) => void;
  /** Traces each request's operation when tracing is on. */
  tracer?: Tracer | undefined;
}

export function installAppGraphql(app: FastifyInstance, options: AppRouteOptions): void {
  const { operations } = options;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { appId } = request.params as { appId: string };
    const origin = { transport: 'http' as const, appId, headers: request.headers, requestId: request.id };
    return traceOperation(options.tracer, origin, async (describe) => {
      const live = await operations.app(appId);
      if (!live) throw notFound(unknownApp(appId));
      const started = performance.now();
      const report = (answered: Omit<AnsweredOperation, 'appId' | 'transport' | 'seconds' | 'requestId'>) =>
        options.onOperation?.({ ...answered, appId: live.id, transport: 'http', seconds: (performance.now() - started) / 1000, requestId: request.id });
      let caller;
      try {
        caller = await operations.identify(live, request.headers.authorization);
      } catch (err) {
        // A refused credential is part of the app's traffic too (answered by the error handler).
        if (isTesseraError(err)) report({ type: 'unknown', outcome: err.code, status: err.status, caller: 'anonymous' });
        throw err;
      }
      // request.ip honours X-Forwarded-For only when the operator trusts the proxy.
      const runner = operations.runner({ live, caller, address: request.ip, requestId: request.id, log: request.log });
      const { response, note } = await handleGraphQLOverHttp(
        { method: request.method, headers: request.headers, query: request.query as Record<string, unknown>, body: request.body },
        runner,
      );
      describe(note);
      report({ ...note, ...callerLabel(live, caller), status: response.status });
      return setAnswerHeaders(reply.code(response.status), response.headers).send(response.body);
    });
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
    const live = await operations.app(appId);
    if (!live) throw notFound(unknownApp(appId));
    return reply.header('cache-control', 'public, max-age=300').send(publicKeySet(live.keys));
  });
}
