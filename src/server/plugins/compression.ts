// Optional response compression (@fastify/compress, TESSERA_COMPRESSION): Brotli or gzip for
// answers of 1 KiB and more, when the client accepts it. Off by default: a TLS proxy in front
// usually compresses already, and compressing answers that mix a secret (a login's token) with
// text a third party chose can leak the secret byte by byte to someone who watches sizes
// (BREACH); docs/server.md says when to turn it on. The console's files are served
// precompressed either way. The plugin is loaded only when compression is on.

import { constants } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than this are sent as they are: compressing them saves nothing worth the time. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

export function installCompression(app: FastifyInstance): void {
  void app.register(import('@fastify/compress'), {
    global: true,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    // Brotli's default quality (11) costs tens of milliseconds on a large answer; 4 compresses
    // JSON nearly as well as gzip's best at a fraction of the time.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
}
