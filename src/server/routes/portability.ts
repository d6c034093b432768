// HTTP routes of data portability: the archive download a signed export link points at
// (GET /admin/exports/<token>, no platform key: the link is the credential), and archive
// imports (POST /admin/apps/import?name=…, platform key, body application/gzip). An upload is
// spooled to a temporary file first — at the network's pace, not the database's — and then
// imported in one transaction; `Accept: application/x-ndjson` streams progress lines.

import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { ARCHIVE_MEDIA_TYPE, ArchiveWriter } from '../../archive/index.js';
import type { Portability } from '../../admin/index.js';
import { TesseraError, badInput, notFound } from '../../errors/index.js';
import type { AppRow } from '../../store/index.js';
import { errorResponse } from '../clientErrors.js';
import type { ExportLinks } from '../exportLinks.js';
import { requirePlatformKey } from '../plugins/platformKeyAuth.js';
import { createSpool } from '../spool.js';

export const EXPORT_PATH = '/admin/exports/:token';
export const IMPORT_PATH = '/admin/apps/import';
const PROGRESS_MEDIA_TYPE = 'application/x-ndjson';

export interface PortabilityRouteOptions {
  /** The app with this id, wherever it lives; null when there is none. */
  findApp(appId: string): Promise<AppRow | null>;
  portability: Portability;
  links: ExportLinks;
  platformKey: string;
  publicUrl: () => string;
}

/** `name-2024-05-01.tessera.gz`: the app's name is a safe file name already. */
function archiveFileName(name: string): string {
  return `${name}-${new Date().toISOString().slice(0, 10)}.tessera.gz`;
}

export function installPortability(app: FastifyInstance, options: PortabilityRouteOptions): void {
  app.get<{ Params: { token: string } }>(EXPORT_PATH, async (request, reply) => {
    const appId = options.links.verify(request.params.token);
    if (!appId) throw new TesseraError('FORBIDDEN', 'The export link is invalid or has expired; ask exportApp for a new one');
    const found = await options.findApp(appId);
    if (!found || found.id !== appId) throw notFound('The app of this export link no longer exists');
    await options.portability.checkExportable(appId);
    const writer = new ArchiveWriter();
    const started = Date.now();
    options.portability.exportApp(appId, writer).then(
      (end) => request.log.info({ appId, rows: Object.values(end.rows).reduce((a, b) => a + b, 0), ms: Date.now() - started }, 'app exported'),
      (err: unknown) => request.log.error({ err, appId }, 'app export failed: the archive was cut short'),
    );
    return reply
      .header('content-type', ARCHIVE_MEDIA_TYPE)
      .header('content-disposition', `attachment; filename="${archiveFileName(found.name)}"`)
      .header('cache-control', 'no-store')
      .send(writer.stream);
  });

  app.register(async (scope) => {
    requirePlatformKey(scope, options.platformKey);
    // The body is the archive's stream, read by the route (no size limit: the platform key is required).
    scope.addContentTypeParser(ARCHIVE_MEDIA_TYPE, (_request, payload, done) => done(null, payload));
    scope.post<{ Querystring: { name?: string } }>(IMPORT_PATH, async (request, reply) => {
      if (request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() !== ARCHIVE_MEDIA_TYPE) {
        throw badInput(`Send the archive as the body, with Content-Type: ${ARCHIVE_MEDIA_TYPE}`);
      }
      const name = typeof request.query.name === 'string' && request.query.name !== '' ? request.query.name : undefined;
      const spool = await createSpool('tessera-import-');
      try {
        await spool.fill(request.body as NodeJS.ReadableStream);
        const progress = (request.headers.accept ?? '').includes(PROGRESS_MEDIA_TYPE);
        const answer = (result: Awaited<ReturnType<Portability['importApp']>>) => ({
          app: { id: result.app.id, name: result.app.name, schemaVersion: result.app.schemaVersion, endpoint: `${options.publicUrl().replace(/\/+$/, '')}${result.app.endpointPath}` },
          rows: result.rows,
          warnings: result.warnings,
        });
        if (!progress) {
          const result = await options.portability.importApp(createReadStream(spool.path), { name });
          request.log.info({ appId: result.app.id, rows: result.rows }, 'app imported');
          return reply.code(200).send(answer(result));
        }
        // Progress lines, then the result or the error as the last line (the status is sent first).
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, { 'content-type': `${PROGRESS_MEDIA_TYPE}; charset=utf-8`, 'cache-control': 'no-store' });
        let last = 0;
        const onProgress = (rows: number) => {
          if (Date.now() - last < 250) return;
          last = Date.now();
          raw.write(`${JSON.stringify({ progress: { rows } })}\n`);
        };
        try {
          const result = await options.portability.importApp(createReadStream(spool.path), { name, onProgress });
          request.log.info({ appId: result.app.id, rows: result.rows }, 'app imported');
          raw.end(`${JSON.stringify(answer(result))}\n`);
        } catch (err) {
          const response = errorResponse(err, request.id, 0);
          if (response.internal) request.log.error({ err }, 'app import failed');
          raw.end(`${JSON.stringify(response.body)}\n`);
        }
        return reply;
      } finally {
        await spool.remove();
      }
    });
  });
}
