// Guards the management API: an onRequest hook that wants `Authorization: Bearer <platform
// key>` and answers 401 UNAUTHENTICATED otherwise, before any body is read.

import type { FastifyInstance } from 'fastify';
import { unauthenticated } from '../../errors/index.js';
import { keysMatch } from '../platformKey.js';

/** The credentials of a `Bearer` Authorization header; undefined when absent or of another scheme. */
export function bearerCredentials(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}

export function requirePlatformKey(scope: FastifyInstance, platformKey: string): void {
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    const presented = bearerCredentials(header);
    if (presented !== undefined && keysMatch(presented, platformKey)) return;
    reply.header('www-authenticate', 'Bearer realm="tessera-admin"');
    if (header === undefined) throw unauthenticated('Missing platform key: send "Authorization: Bearer <platform key>"');
    if (presented === undefined) throw unauthenticated('Malformed Authorization header: expected "Bearer <platform key>"');
    throw unauthenticated('Invalid platform key');
  });
}
