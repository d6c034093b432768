// Data portability wired into the server: the service (with the functions' sealing key and the
// file store), the signed export links, the routes, and the port the management API uses
// (exportApp's URL, importApp of an uploaded archive, forkApp).

import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { createPortability } from '../admin/index.js';
import type { PortabilityPort } from '../admin/index.js';
import { packageVersion } from '../build/index.js';
import { notFound } from '../errors/index.js';
import { findApp } from '../store/index.js';
import type { Clusters } from '../store/index.js';
import { ExportLinks } from './exportLinks.js';
import { installPortability } from './routes/portability.js';
import type { ServerOptions } from './server.js';

export function portabilityOf(app: FastifyInstance, options: ServerOptions, clusters: Clusters, publicUrl: () => string, filesReleased: () => void): PortabilityPort {
  const storage = options.files?.storage;
  const portability = createPortability(clusters, {
    oidc: options.oidc,
    functions: options.functions,
    files: storage && { storage, released: filesReleased },
    version: packageVersion(),
  });
  const links = new ExportLinks(options.secretKey ?? `export links of ${options.adminKey}`);
  const find = async (appId: string) => findApp((await clusters.home(appId)).store, appId);
  installPortability(app, { findApp: find, portability, links, platformKey: options.adminKey, publicUrl });
  return {
    async exportUrl(appId) {
      const found = await find(appId);
      if (!found) throw notFound(`No app with id or name "${appId}"`);
      const { token, expiresAt } = links.sign(found.id);
      return { url: `${publicUrl().replace(/\/+$/, '')}/admin/exports/${token}`, expiresAt };
    },
    async importApp({ file, name }) {
      const result = await portability.importApp(createReadStream(file.path), { name: name ?? undefined });
      app.log.info({ appId: result.app.id, rows: result.rows }, 'app imported');
      return result;
    },
    forkApp: (input) => portability.forkApp(input),
  };
}
