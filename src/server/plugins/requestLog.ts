// One log line per request, written when the response is sent: method, path (never the query
// string, which may carry variables), status, time taken and the client's address (the one the
// login throttle counts, so an operator can find who holds an account at its limit). Fastify's own pair of lines
// (incoming / completed) is switched off in server.ts.

import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** Writes a request's line: `url` may hold a query string, which is left out. */
export function logAnswered(log: FastifyBaseLogger, method: string, url: string, statusCode: number, address: string | undefined, elapsedMs: number): void {
  const path = url.split('?', 1)[0];
  log.info({ method, path, statusCode, address, responseTime: Math.round(elapsedMs * 100) / 100 }, 'request completed');
}

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    logAnswered(request.log, request.method, request.url, reply.statusCode, request.ip, reply.elapsedTime);
    done();
  });
}
