// File downloads, `GET /files/:appId/:fileId?[variant=…&]expires=…&signature=…`: the signature
// (made in the data API's statement for callers allowed to read the File) is checked first, then
// the app and the row; the bytes stream from storage with the headers a browser and a cache need
// — one byte range (206), If-None-Match (304), the name inline, and the content locked down
// (nosniff, a sandboxing Content-Security-Policy) since anyone's upload is served from here. An
// image variant is made on its first request and kept beside the original, then served alike.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findFileRow } from '../../compile/index.js';
import type { AppContext } from '../../compile/index.js';
import { TesseraError, notFound } from '../../errors/index.js';
import { ImageVariants, mediaType, outputFormat, parseVariant, variantEtag, variantFileName, variantKey } from '../../files/index.js';
import type { BlobStorage, ByteRange, FileUrlSigner } from '../../files/index.js';
import type { Store } from '../../store/index.js';
import { unknownApp } from '../appPorts.js';
import type { AppRegistry } from '../appRegistry.js';

export interface FileDownloadOptions {
  registry: AppRegistry;
  signer: FileUrlSigner;
  /** Absent: the server keeps no files, and every download is 404. */
  storage: BlobStorage | undefined;
}

/** Downloaded content never runs as a page of this origin, whatever its media type. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox";

/** What is sent: the stored bytes under `key` and how they are described. */
interface Download {
  key: string;
  size: number;
  etag: string;
  contentType: string;
  name: string;
  modifiedAt: Date;
}

export function installFileDownloads(app: FastifyInstance, options: FileDownloadOptions): void {
  const variants = options.storage && new ImageVariants(options.storage);
  // Bytes go as stored: compressing would drop Content-Length and break byte ranges.
  app.get('/files/:appId/:fileId', { compress: false }, async (request: FastifyRequest, reply: FastifyReply) => {
    const { appId, fileId } = request.params as { appId: string; fileId: string };
    const query = request.query as Record<string, unknown>;
    const variantName = query.variant === undefined ? undefined : stringOf(query.variant);
    const check = options.signer.check(appId, fileId, stringOf(query.expires), stringOf(query.signature), variantName);
    const variant = variantName === undefined ? undefined : parseVariant(variantName);
    if (check !== 'valid' || variant === null) {
      throw new TesseraError('FORBIDDEN', check === 'expired' ? 'This download URL has expired: read the File again for a new one' : 'This download URL is not valid');
    }
    const live = await options.registry.get(appId);
    if (!live) throw notFound(unknownApp(appId));
    const storage = options.storage;
    const row = storage ? await findFileRow(live.context, live.store, fileId) : null;
    if (!row || !storage || !variants) throw notFound('No such file');

    let download: Download = { key: row.key, size: row.size, etag: `"${row.sha256}"`, contentType: row.contentType, name: row.name, modifiedAt: row.modifiedAt };
    if (variant) {
      const format = outputFormat(variant, row.contentType);
      const key = variantKey(row.key, variant, format);
      const gone = async () => {
        // Deleted while its variant was made: the removal may have run before the variant landed.
        if (await stillThere(live.context, live.store, fileId)) return false;
        await storage.remove(key);
        return true;
      };
      const { size, made } = await variants.ensure(row.key, key, variant, format).catch(async (err: unknown) => {
        throw (await gone()) ? notFound('No such file') : err;
      });
      if (made && (await gone())) throw notFound('No such file');
      download = { key, size, etag: variantEtag(row.sha256, key, size), contentType: mediaType(format), name: variantFileName(row.name, format), modifiedAt: row.modifiedAt };
    }
    return send(request, reply, storage, download, Number(stringOf(query.expires)));
  });
}

async function stillThere(context: AppContext, store: Store, fileId: string): Promise<boolean> {
  // A deleted app's tables are gone: the lookup fails, and nothing is there either.
  return (await findFileRow(context, store, fileId).catch(() => null)) !== null;
}

async function send(request: FastifyRequest, reply: FastifyReply, storage: BlobStorage, file: Download, expires: number) {
  reply.headers({
    etag: file.etag,
    'accept-ranges': 'bytes',
    'content-type': file.contentType,
    'content-disposition': contentDisposition(file.name),
    'x-content-type-options': 'nosniff',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'last-modified': file.modifiedAt.toUTCString(),
    // Cacheable by the holder of the URL until it expires, never by shared caches.
    'cache-control': `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}`,
  });
  if (matches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();

  const range = wantedRange(request, file.etag, file.size);
  if (range === 'unsatisfiable') {
    return reply.code(416).header('content-range', `bytes */${file.size}`).type('application/json; charset=utf-8').send({
      errors: [{ message: `The range asked for is outside the file's ${file.size} bytes`, extensions: { code: 'BAD_USER_INPUT' } }],
    });
  }
  const body = file.size === 0 && !range ? null : await storage.get(file.key, range ?? undefined);
  if (body === null && file.size > 0) throw notFound('No such file');
  if (range) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`).header('content-length', range.end - range.start + 1);
  } else {
    reply.code(200).header('content-length', file.size);
  }
  return reply.send(body ?? '');
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
function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
