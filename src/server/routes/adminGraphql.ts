// The management API route: platform-key check, then GraphQL over HTTP with a graphql-js
// runner of the admin schema. This file only adapts Fastify's request and reply to the core.
// A GraphQL multipart request (importApp's archive) is read after the platform key is checked:
// its one file is spooled to a temporary file, removed before the answer is sent.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UploadedArchive, createAdminContext, createAdminSchema } from '../../admin/index.js';
import type { AdminService, MailTester, PortabilityPort, TrafficSource } from '../../admin/index.js';
import { badInput } from '../../errors/index.js';
import { handleGraphQLOverHttp } from '../graphqlOverHttp.js';
import { setAnswerHeaders } from '../plugins/cors.js';
import { readParts, specOperation } from '../multipart.js';
import { schemaOperations } from '../operation/schemaOperations.js';
import { requirePlatformKey } from '../plugins/platformKeyAuth.js';
import { createSpool } from '../spool.js';
import type { Spool } from '../spool.js';

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

/**
 * Reads a GraphQL multipart request to the management API: its operation, with the file spooled.
 * Answers the function that removes the request's spool (a no-op for other requests).
 */
function installUploads(scope: FastifyInstance): (request: FastifyRequest) => Promise<void> {
  const spools = new WeakMap<FastifyRequest, Spool>();
  const removeSpool = async (request: FastifyRequest) => {
    const spool = spools.get(request);
    spools.delete(request);
    await spool?.remove();
  };
  scope.addContentTypeParser('multipart/form-data', async (request: FastifyRequest, payload: IncomingMessage) => {
    const spool = await createSpool('tessera-upload-');
    spools.set(request, spool);
    try {
      const parts = await readParts(payload, request.headers, { fieldLimit: scope.initialConfig.bodyLimit ?? 1024 * 1024, maxFiles: 1 }, async (stream, filename) => {
        await spool.fill(stream);
        return new UploadedArchive(spool.path, filename);
      });
      if (!parts.fields.has('operations')) throw badInput('A multipart request to the management API carries "operations", "map" and the file (the GraphQL multipart request specification)');
      return specOperation(parts);
    } catch (err) {
      await removeSpool(request);
      throw err;
    }
  });
  // A request that went away before its operation ran.
  scope.addHook('onRequestAbort', removeSpool);
  scope.addHook('onResponse', removeSpool);
  return removeSpool;
}

export function installAdminGraphql(app: FastifyInstance, options: AdminRouteOptions): void {
  const schema = createAdminSchema();
  // Encapsulated so the platform-key hook guards this route only.
  app.register(async (scope) => {
    requirePlatformKey(scope, options.platformKey);
    const removeSpool = installUploads(scope);
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
        ).finally(() => removeSpool(request));
        return setAnswerHeaders(reply.code(response.status), response.headers).send(response.body);
      },
    });
  });
}
