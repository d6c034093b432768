// The /console route on its own: types and caching of the built files, the SPA fallback, gzip
// copies, validators, the message when the console is not built, and that no request path
// reaches a file outside the build folder.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, installConsole } from '../../src/server/routes/console.js';

const SECRET = 'top-secret-outside-the-console';
const INDEX = '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1a2b3c.js"></script>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

let root: string;
let app: FastifyInstance;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tessera-console-'));
  const dir = join(root, 'console');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'app-1a2b3c.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'app-1a2b3c.js.gz'), gzipSync(SCRIPT));
  writeFileSync(join(dir, 'assets', 'style-9f8e.css'), 'body{}');
  writeFileSync(join(root, 'secret.txt'), SECRET);
  symlinkSync(join(root, 'secret.txt'), join(dir, 'assets', 'link.txt'));
  app = Fastify();
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ errors: [{ message: 'not found', extensions: { code: 'NOT_FOUND' } }] }));
  installConsole(app, { dir });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe('console route', () => {
  it('serves index.html at /console and /console/, never cached without revalidation, with a strict CSP', async () => {
    for (const url of ['/console', '/console/', '/console/index.html']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.body).toBe(INDEX);
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-eval');
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
  });

  it('answers console pages (SPA paths) with index.html', async () => {
    const response = await app.inject({ url: '/console/apps/abc123/schema?x=1' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INDEX);
  });

  it('serves hashed assets with their type and a year-long immutable cache', async () => {
    const script = await app.inject({ url: '/console/assets/app-1a2b3c.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe(SCRIPT);
    const style = await app.inject({ url: '/console/assets/style-9f8e.css' });
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('sends the gzip copy to clients that accept it, as a representation of its own', async () => {
    const plain = await app.inject({ url: '/console/assets/app-1a2b3c.js' });
    const zipped = await app.inject({ url: '/console/assets/app-1a2b3c.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    expect(Number(zipped.headers['content-length'])).toBeLessThan(SCRIPT.length);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await app.inject({ url: '/console/' });
    const again = await app.inject({ url: '/console/', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers 404 (not index.html) for a missing asset', async () => {
    for (const url of ['/console/assets/missing-0000.js', '/console/favicon.ico']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it('never serves a file outside the build folder, whatever the path', async () => {
    const attempts = [
      '/console/../secret.txt',
      '/console/..%2fsecret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/%2e%2e%2fsecret.txt',
      '/console/assets/..%2f..%2fsecret.txt',
      '/console/assets/%2e%2e/%2e%2e/secret.txt',
      '/console/..%5c..%5csecret.txt',
      '/console//' + root.slice(1) + '/secret.txt',
      '/console/' + encodeURIComponent(join(root, 'secret.txt')),
      '/console/assets/link.txt',
      '/console/secret.txt%00.js',
    ];
    for (const url of attempts) {
      const response = await app.inject({ url });
      expect(response.body, url).not.toContain(SECRET);
      expect([200, 400, 404], url).toContain(response.statusCode);
    }
  });

  it('says the console is not built (503, not a 500) when the build folder is missing', async () => {
    const bare = Fastify();
    installConsole(bare, { dir: join(root, 'no-such-build') });
    const response = await bare.inject({ url: '/console/apps' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toContain('npm run build');
    await bare.close();
  });
});
