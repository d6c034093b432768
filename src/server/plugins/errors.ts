// The error and not-found handlers: every failure leaves as a GraphQL-shaped body with a
// code; non-TesseraErrors are logged with detail under the request id and answered INTERNAL.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, errorResponse } from '../clientErrors.js';

/**
 * Fastify's `frameworkErrors`: failures before routing (a URL that does not decode), which
 * would otherwise get Fastify's own body shape.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  request.log.info({ code: error.code }, 'request refused before routing');
  void reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody('BAD_USER_INPUT', 'Malformed request URL'));
}

export function installErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err, request, reply) => {
    const response = errorResponse(err, request.id, bodyLimit);
    if (response.internal) request.log.error({ err }, 'request failed');
    else request.log.info({ code: response.body.errors[0]?.extensions?.code }, 'request refused');
    return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
  });

  app.setNotFoundHandler((request, reply) => {
    // The path only: a query string may hold something that should not be echoed.
    const path = request.url.split('?')[0] ?? '';
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send(errorBody('NOT_FOUND', `No route for ${request.method} ${path}`));
  });
}
