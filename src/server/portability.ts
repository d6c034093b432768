// Data portability wired into the server: the service, the signed export links, the routes, and
// the port the management API uses (exportApp's URL, forkApp).

import type { FastifyInstance } from 'fastify';
import { createPortability } from '../admin/index.js';
import type { PortabilityPort } from '../admin/index.js';
import { packageVersion } from '../build/index.js';
import { notFound } from '../errors/index.js';
import { findApp } from '../store/index.js';
import { ExportLinks } from './exportLinks.js';
import { installPortability } from './routes/portability.js';
import type { ServerOptions } from './server.js';

export function portabilityOf(app: FastifyInstance, options: ServerOptions, publicUrl: () => string): PortabilityPort {
  const portability = createPortability(options.store, { oidc: options.oidc, version: packageVersion() });
  const links = new ExportLinks(options.secretKey ?? `export links of ${options.adminKey}`);
  installPortability(app, { store: options.store, portability, links, platformKey: options.adminKey, publicUrl });
  return {
    async exportUrl(appId) {
      const found = await findApp(options.store, appId);
      if (!found) throw notFound(`No app with id or name "${appId}"`);
      const { token, expiresAt } = links.sign(found.id);
      return { url: `${publicUrl().replace(/\/+$/, '')}/admin/exports/${token}`, expiresAt };
    },
    forkApp: (input) => portability.forkApp(input),
  };
}
