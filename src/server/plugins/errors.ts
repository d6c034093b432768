// The error and not-found handlers: every failure leaves as a GraphQL-shaped body with a
// code; non-TesseraErrors are logged with detail under the request id and answered INTERNAL.

import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, errorResponse } from '../clientErrors.js';

/**
 * Fastify's `frameworkErrors`: failures before routing, which would otherwise get Fastify's
 * own body shape. A path that does not decode (`%E0%A4%A`) or holds a segment longer than the
 * router reads (a 2,000-character app id) names nothing that exists: 404, as for any unknown
 * app, and the path is not echoed.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const unknownPath = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const clientStatus = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  request.log.info({ code: error.code }, 'request refused before routing');
  // A WebSocket upgrade refused here never reaches the hooks that would end its socket.
  if (request.raw.headers.upgrade !== undefined) reply.raw.once('finish', () => request.raw.socket.destroy());
  void reply
    .code(unknownPath ? 404 : clientStatus)
    .type('application/json; charset=utf-8')
    .send(unknownPath ? errorBody('NOT_FOUND', 'No such resource') : errorBody('BAD_USER_INPUT', 'Malformed request'));
}

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses before Fastify sees them.
 * A request line whose path holds raw non-ASCII or control bytes (`/graphql/été` as curl sends
 * it) names no resource: 404, like the same path percent-encoded. The rest keep their HTTP
 * status (408, 431, 400), all with the coded body every other answer has.
 */
export function clientErrors(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, body] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, errorBody('BAD_USER_INPUT', 'The request took too long to arrive')]
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, errorBody('LIMIT_EXCEEDED', 'Request headers too large')]
        : err.code === 'HPE_INVALID_URL'
          ? [404, errorBody('NOT_FOUND', 'No such resource')]
          : [400, errorBody('BAD_USER_INPUT', 'Malformed HTTP request')];
  this.log.debug({ code: err.code }, 'request refused by the HTTP parser');
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`);
  }
  socket.destroy();
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 404: 'Not Found', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

export function installErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err, request, reply) => {
    const response = errorResponse(err, request.id, bodyLimit);
    if (response.internal) request.log.error({ err }, 'request failed');
    else request.log.info({ code: response.body.errors[0]?.extensions?.code }, 'request refused');
    // A refusal that says when to come back (a database out of reach) says it in HTTP too.
    const retryAfter = response.body.errors[0]?.extensions?.retryAfter;
    if (typeof retryAfter === 'number' && response.status >= 429) void reply.header('retry-after', String(retryAfter));
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
