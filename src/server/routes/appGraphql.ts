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
import type { LiveApp } from '../appRegistry.js';
import type { Caller } from '../operation/callers.js';
import type { OperationNote } from '../operation/outcome.js';
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

/** How a refused credential's operation is labelled: no caller was established. */
const ANONYMOUS_LABEL = { caller: 'anonymous' as const, userId: undefined };

/** A span's namer when no tracer is set. */
const NOT_TRACED = (): void => undefined;

export function installAppGraphql(app: FastifyInstance, options: AppRouteOptions): void {
  const { operations, tracer } = options;
  const onOperation = options.onOperation;
  /** Tells `onOperation` of an answered operation of `live` that started at `started`. */
  const report = (request: FastifyRequest, live: LiveApp, started: number, note: OperationNote, status: number, caller: Caller | undefined): void => {
    if (!onOperation) return;
    const label = caller ? callerLabel(live, caller) : ANONYMOUS_LABEL;
    onOperation({
      appId: live.id,
      transport: 'http',
      type: note.type,
      name: note.name,
      outcome: note.outcome,
      seconds: (performance.now() - started) / 1000,
      requestId: request.id,
      status,
      caller: label.caller,
      userId: label.userId,
    });
  };
  const answer = async (request: FastifyRequest, reply: FastifyReply, appId: string, describe: (note: OperationNote) => void) => {
    // A loaded app and a known credential need no promise: most requests.
    const live = operations.loaded(appId) ?? (await operations.app(appId));
    if (!live) throw notFound(unknownApp(appId));
    const started = performance.now();
    let caller: Caller;
    try {
      const identified = operations.identifyNow(live, request.headers.authorization);
      caller = identified instanceof Promise ? await identified : identified;
    } catch (err) {
      // A refused credential is part of the app's traffic too (answered by the error handler).
      if (isTesseraError(err)) report(request, live, started, { type: 'unknown', outcome: err.code }, err.status, undefined);
      throw err;
    }
    // request.ip honours X-Forwarded-For only when the operator trusts the proxy.
    const runner = operations.runner({ live, caller, address: request.ip, requestId: request.id, log: request.log });
    const { response, note } = await handleGraphQLOverHttp(
      { method: request.method, headers: request.headers, query: request.query as Record<string, unknown>, body: request.body },
      runner,
    );
    describe(note);
    report(request, live, started, note, response.status, caller);
    return setAnswerHeaders(reply.code(response.status), response.headers).send(response.body);
  };
  const handler = (request: FastifyRequest, reply: FastifyReply) => {
    const { appId } = request.params as { appId: string };
    if (!tracer) return answer(request, reply, appId, NOT_TRACED);
    const origin = { transport: 'http' as const, appId, headers: request.headers, requestId: request.id };
    return traceOperation(tracer, origin, (describe) => answer(request, reply, appId, describe));
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
