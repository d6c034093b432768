// One log line per request, written when the response is sent: method, path (never the query
// string, which may carry variables), status, time taken and the client's address (the one the
// login throttle counts, so an operator can find who holds an account at its limit). Fastify's own pair of lines
// (incoming / completed) is switched off in server.ts.

import type { FastifyInstance } from 'fastify';

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const path = request.url.split('?', 1)[0];
    request.log.info({ method: request.method, path, statusCode: reply.statusCode, address: request.ip, responseTime: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed');
    done();
  });
}
