// Response compression (TESSERA_COMPRESSION) through the real server, reading the bytes on the
// wire: off by default; when on, large answers come as Brotli or gzip to clients that accept
// it, and decode to exactly the uncompressed answer; small answers, clients that accept
// neither, and the console's precompressed files are left as they are; WebSockets still open.

import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { loadConfig } from '../../src/server/index.js';
import { startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

interface Wire {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** A request whose answer is read as sent: no decoding. */
function wire(base: string, path: string, headers: Record<string, string>, body?: string): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const LIST = '{ viewer { allNotes(first: 100) { edges { node { id text } } } } }';

async function seeded(server: TestServer): Promise<TestApp> {
  const app = await createTestApp(server, 'type Note @model @permission(scope: EVERYONE, read: true) { text: String }');
  for (let i = 0; i < 20; i += 1) await app.data('mutation($t: String) { createNote(input: { text: $t }) { changedNote { id } } }', { t: `note number ${i}, long enough to add up` });
  return app;
}

const post = (app: TestApp, encoding: string | undefined) =>
  wire(app.server.base, `/graphql/${app.id}`, { 'content-type': 'application/json', authorization: `Bearer ${app.token}`, ...(encoding ? { 'accept-encoding': encoding } : {}) }, JSON.stringify({ query: LIST }));

describe('with TESSERA_COMPRESSION=on', () => {
  let server: TestServer;
  let app: TestApp;
  let plain: Buffer;
  beforeAll(async () => {
    server = await startTestServer('embedded', { compression: loadConfig({}, { TESSERA_COMPRESSION: 'on' }).compression });
    app = await seeded(server);
    plain = (await post(app, undefined)).bytes;
    expect(plain.length).toBeGreaterThan(1024);
  });
  afterAll(async () => server?.close());

  it('sends a large answer as Brotli or gzip, whichever the client prefers, decoding to the same bytes', async () => {
    const br = await post(app, 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(br.bytes.length).toBeLessThan(plain.length / 2);
    expect(brotliDecompressSync(br.bytes).equals(plain)).toBe(true);
    const gzip = await post(app, 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.bytes).equals(plain)).toBe(true);
  });

  it('leaves small answers and clients that accept no encoding alone', async () => {
    const none = await post(app, undefined);
    expect(none.headers['content-encoding']).toBeUndefined();
    const identity = await post(app, 'identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    const health = await wire(server.base, '/healthz', { 'accept-encoding': 'br, gzip' });
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(health.bytes.toString())).toEqual({ status: 'ok' });
  });

  it('keeps an error answer coded, compressed or not', async () => {
    const bad = await wire(server.base, `/graphql/${app.id}`, { 'content-type': 'application/json', 'accept-encoding': 'gzip' }, '{"query": 1}');
    expect(bad.status).toBe(400);
    const body = bad.headers['content-encoding'] === 'gzip' ? gunzipSync(bad.bytes) : bad.bytes;
    expect(JSON.parse(body.toString()).errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it("serves the console's precompressed files once compressed, not twice", async () => {
    const page = await wire(server.base, '/console/', {});
    const script = /src="(\/console\/[^"]+\.js)"/.exec(page.bytes.toString())?.[1];
    expect(script).toBeDefined();
    const asset = await wire(server.base, script!, { 'accept-encoding': 'gzip, deflate, br' });
    expect(asset.headers['content-encoding']).toBe('gzip');
    const text = gunzipSync(asset.bytes);
    // One gunzip gives JavaScript, not another gzip stream (whose first bytes are 1f 8b).
    expect(text.subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]))).toBe(false);
    expect(text.toString()).toMatch(/import|function|const /);
  });

  it('still opens WebSockets', async () => {
    const c = client(app.endpoint, app.token);
    const sub = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
    await waitForSubscriptions(server.base, 1);
    await app.data('mutation { createNote(input: { text: "live" }) { changedNote { id } } }');
    expect(await sub.take(1)).toEqual([{ data: { subscribeToNote: { value: { text: 'live' } } } }]);
    await sub.close();
    await c.dispose();
  });
});

describe('by default', () => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer('embedded', { compression: loadConfig({}, {}).compression });
    app = await seeded(server);
  });
  afterAll(async () => server?.close());

  it('sends answers uncompressed, whatever the client accepts', async () => {
    const reply = await post(app, 'gzip, deflate, br');
    expect(reply.bytes.length).toBeGreaterThan(1024);
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(reply.bytes.toString()).data.viewer.allNotes.edges).toHaveLength(20);
  });
});

describe('TESSERA_COMPRESSION', () => {
  it('takes on and off, and refuses anything else by name', () => {
    expect(loadConfig({}, { TESSERA_COMPRESSION: 'ON' }).compression).toBe(true);
    expect(loadConfig({}, { TESSERA_COMPRESSION: 'false' }).compression).toBe(false);
    expect(() => loadConfig({}, { TESSERA_COMPRESSION: 'gzip' })).toThrow(/TESSERA_COMPRESSION must be "on" or "off"/);
  });
});
