// The management API route: platform-key check, then GraphQL over HTTP with a graphql-js
// runner of the admin schema. This file only adapts Fastify's request and reply to the core.

import type { FastifyInstance } from 'fastify';
import { createAdminContext, createAdminSchema } from '../../admin/index.js';
import type { AdminService, MailTester, PortabilityPort, TrafficSource } from '../../admin/index.js';
import { handleGraphQLOverHttp } from '../graphqlOverHttp.js';
import { schemaOperations } from '../operation/schemaOperations.js';
import { requirePlatformKey } from '../plugins/platformKeyAuth.js';

export const ADMIN_PATH = '/admin/graphql';

/** Generous for an operator's API, yet a bound: a schema travels in variables, not as tokens. */
const ADMIN_MAX_TOKENS = 20_000;

export interface AdminRouteOptions {
  admin: AdminService;
  platformKey: string;
  publicUrl: () => string;
  traffic: TrafficSource;
  mail: MailTester;
  portability: PortabilityPort;
}

export function installAdminGraphql(app: FastifyInstance, options: AdminRouteOptions): void {
  const schema = createAdminSchema();
  // Encapsulated so the platform-key hook guards this route only.
  app.register(async (scope) => {
    requirePlatformKey(scope, options.platformKey);
    scope.route({
      // Every method reaches the core, which answers 405 for those GraphQL over HTTP does not use.
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: ADMIN_PATH,
      handler: async (request, reply) => {
        const runner = schemaOperations({
          schema,
          contextValue: createAdminContext(options.admin, options.publicUrl(), options.traffic, options.mail, options.portability),
          requestId: request.id,
          maxTokens: ADMIN_MAX_TOKENS,
          onInternalError: (err) => request.log.error({ err }, 'management operation failed'),
        });
        const { response } = await handleGraphQLOverHttp(
          { method: request.method, headers: request.headers, query: request.query as Record<string, unknown>, body: request.body },
          runner,
        );
        return reply.code(response.status).headers(response.headers).send(response.body);
      },
    });
  });
}
