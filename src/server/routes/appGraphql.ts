// The data API route of each app, `/graphql/:appId`. For now it only tells a live app from an
// unknown one: the generated API is not served yet, and this handler is where it will plug in.

import type { FastifyInstance } from 'fastify';
import { TesseraError, notFound } from '../../errors/index.js';
import { findApp } from '../../store/index.js';
import type { Store } from '../../store/index.js';

export function installAppGraphql(app: FastifyInstance, store: Store): void {
  app.route({
    method: ['GET', 'POST'],
    url: '/graphql/:appId',
    handler: async (request) => {
      const { appId } = request.params as { appId: string };
      const found = await findApp(store, appId);
      // Endpoints are addressed by id only (names can be reused after a delete).
      if (!found || found.id !== appId) throw notFound(`No app with id "${appId}"`);
      throw new TesseraError(
        'NOT_IMPLEMENTED',
        `The data API of app "${found.name}" is not served yet by this Tessera server; manage the app through /admin/graphql`,
      );
    },
  });
}
