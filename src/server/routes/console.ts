// Serves the web console (the `console/` front-end, built into dist/console) at /console: its
// files with the right types and caching, and index.html for every other path under /console.
//
// Only files found by listing the build folder are ever served: the request path is looked up
// in that list and never joined to a file-system path, so no path can reach outside it.

import { createReadStream, lstatSync, readdirSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { varyOn } from '../plugins/cors.js';

export const CONSOLE_PATH = '/console';

/** dist/console beside dist/server, from src/server/routes (tests) as from dist/server/routes. */
const DEFAULT_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

/**
 * Tight enough that only the console's own files run; what GraphiQL and its editor need is
 * allowed on purpose: inline styles (Monaco positions and colours its elements with them),
 * workers from the console's own files, fonts and images as data: URLs, and requests (fetch and
 * WebSocket) to this origin only.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Vite writes content-hashed names under assets/: they never change, so they cache for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface ConsoleFile {
  path: string;
  size: number;
  type: string;
  etag: string;
  /** A gzip copy written by the build beside the file, when there is one. */
  gzip?: { path: string; size: number };
}

interface Listing {
  indexMtime: number;
  files: Map<string, ConsoleFile>;
}

function etagOf(stats: Stats): string {
  return `"${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}"`;
}

/** Every regular file under `dir` by its URL path (`assets/index-1a2b.js`); links are skipped. */
function listFiles(dir: string): Map<string, ConsoleFile> {
  const found = new Map<string, ConsoleFile>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const stats = lstatSync(full);
        const key = relative(dir, full).split(sep).join('/');
        found.set(key, { path: full, size: stats.size, type: TYPES[extname(full)] ?? 'application/octet-stream', etag: etagOf(stats) });
      }
    }
  };
  walk(dir);
  for (const [key, file] of found) {
    const gz = found.get(`${key}.gz`);
    if (gz && !key.endsWith('.gz')) file.gzip = { path: gz.path, size: gz.size };
  }
  return found;
}

export interface ConsoleOptions {
  /** The built console (default: dist/console of this package). */
  dir?: string;
}

export function installConsole(app: FastifyInstance, options: ConsoleOptions = {}): void {
  const dir = options.dir ?? DEFAULT_DIR;
  let listing: Listing | undefined;

  // The listing is kept while index.html stays the same file, and taken again after a rebuild
  // (or the first build, when the server started before the console was built).
  const current = (): Listing | undefined => {
    let mtime: number;
    try {
      mtime = statSync(join(dir, 'index.html')).mtimeMs;
    } catch {
      listing = undefined;
      return undefined;
    }
    if (listing?.indexMtime !== mtime) listing = { indexMtime: mtime, files: listFiles(dir) };
    return listing;
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const wanted = (request.params as { '*'?: string })['*'] ?? '';
    const files = current()?.files;
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY');
    if (!files) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The Tessera console has not been built. Run `npm run build` in the Tessera checkout, then reload this page.\n');
    }
    let file = files.get(wanted);
    let cache = wanted.startsWith('assets/') ? IMMUTABLE : 'no-cache';
    if (!file || wanted === '' || wanted === 'index.html') {
      // A missing file with an extension is a broken link, not a console page: answering it with
      // index.html would hand a script tag HTML.
      if (!file && (wanted.startsWith('assets/') || extname(wanted) !== '')) return reply.callNotFound();
      file = files.get('index.html');
      cache = 'no-cache';
    }
    if (!file) return reply.callNotFound();
    const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    const gzip = acceptsGzip ? file.gzip : undefined;
    // Each encoding is its own representation, with its own validator.
    const etag = gzip ? `${file.etag.slice(0, -1)}-gz"` : file.etag;
    reply.header('cache-control', cache).header('etag', etag);
    varyOn(reply, 'accept-encoding');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    if (gzip) reply.header('content-encoding', 'gzip');
    const body = gzip ?? file;
    return reply.type(file.type).header('content-length', body.size).send(createReadStream(body.path));
  };

  app.get(CONSOLE_PATH, handler);
  app.get(`${CONSOLE_PATH}/*`, handler);
}
