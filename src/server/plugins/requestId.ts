// Request ids: a fresh UUID for every request, in every log line (`requestId`) and in the
// `x-request-id` response header so a client can quote it when reporting a failure.

import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Fastify's `genReqId`: ids are ours, never taken from the client, so logs can trust them. */
export function generateRequestId(): string {
  return randomUUID();
}

export function installRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
