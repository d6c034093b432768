// File downloads, `GET /files/:appId/:fileId?expires=…&signature=…`: the signature (made in the
// data API's statement for callers allowed to read the File) is checked first, then the app and
// the row; the bytes stream from storage with the headers a browser and a cache need — one
// byte range (206), If-None-Match (304), the name inline, and the content locked down
// (nosniff, a sandboxing Content-Security-Policy) since anyone's upload is served from here.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findFileRow } from '../../compile/index.js';
import type { FileRow } from '../../compile/index.js';
import { TesseraError, notFound } from '../../errors/index.js';
import type { BlobStorage, ByteRange, FileUrlSigner } from '../../files/index.js';
import type { Store } from '../../store/index.js';
import { unknownApp } from '../appPorts.js';
import type { AppRegistry } from '../appRegistry.js';

export interface FileDownloadOptions {
  store: Store;
  registry: AppRegistry;
  signer: FileUrlSigner;
  /** Absent: the server keeps no files, and every download is 404. */
  storage: BlobStorage | undefined;
}

/** Downloaded content never runs as a page of this origin, whatever its media type. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox";

export function installFileDownloads(app: FastifyInstance, options: FileDownloadOptions): void {
  // Bytes go as stored: compressing would drop Content-Length and break byte ranges.
  app.get('/files/:appId/:fileId', { compress: false }, async (request: FastifyRequest, reply: FastifyReply) => {
    const { appId, fileId } = request.params as { appId: string; fileId: string };
    const query = request.query as Record<string, unknown>;
    const check = options.signer.check(appId, fileId, stringOf(query.expires), stringOf(query.signature));
    if (check !== 'valid') {
      throw new TesseraError('FORBIDDEN', check === 'expired' ? 'This download URL has expired: read the File again for a new one' : 'This download URL is not valid');
    }
    const live = await options.registry.get(appId);
    if (!live) throw notFound(unknownApp(appId));
    const row = options.storage ? await findFileRow(live.context, options.store, fileId) : null;
    if (!row || !options.storage) throw notFound('No such file');

    const etag = `"${row.sha256}"`;
    const expires = Number(stringOf(query.expires));
    reply.headers({
      etag,
      'accept-ranges': 'bytes',
      'content-type': row.contentType,
      'content-disposition': contentDisposition(row),
      'x-content-type-options': 'nosniff',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'last-modified': row.modifiedAt.toUTCString(),
      // Cacheable by the holder of the URL until it expires, never by shared caches.
      'cache-control': `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}`,
    });
    if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();

    const range = wantedRange(request, etag, row.size);
    if (range === 'unsatisfiable') {
      return reply.code(416).header('content-range', `bytes */${row.size}`).type('application/json; charset=utf-8').send({
        errors: [{ message: `The range asked for is outside the file's ${row.size} bytes`, extensions: { code: 'BAD_USER_INPUT' } }],
      });
    }
    const body = row.size === 0 && !range ? null : await options.storage.get(row.key, range ?? undefined);
    if (body === null && row.size > 0) throw notFound('No such file');
    if (range) {
      reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${row.size}`).header('content-length', range.end - range.start + 1);
    } else {
      reply.code(200).header('content-length', row.size);
    }
    return reply.send(body ?? '');
  });
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `If-None-Match`: a list of entity tags (weak ones compare by their value), or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/**
 * The one byte range a request asks for (`bytes=0-99`, `bytes=100-`, `bytes=-100`); null for
 * the whole file (no Range, several ranges, a unit other than bytes, or an If-Range naming
 * another version); 'unsatisfiable' when it starts past the end.
 */
function wantedRange(request: FastifyRequest, etag: string, size: number): ByteRange | null | 'unsatisfiable' {
  const header = request.headers.range;
  if (!header) return null;
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [first, last] = [match[1] as string, match[2] as string];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}

/** `inline` with the file's name: an ASCII fallback and the exact name (RFC 6266, RFC 8187). */
function contentDisposition(row: FileRow): string {
  const fallback = row.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(row.name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
