// Cross-origin calls from browser apps, in headless Chromium against the real server on both
// stores: pages served from two other origins call the data API, the management API and open
// WebSockets; the server's allowed origins (TESSERA_CORS_ORIGINS) hold unless an app sets its
// own (`corsOrigins`); preflights carry the methods, headers and cache time; origins that are
// not allowed get no Access-Control-Allow-Origin and their WebSockets are refused (403).

import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { launchBrowser, missingPrerequisite } from '../console/harness.js';
import { admin, startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><p>a browser app</p>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${port}` };
}

/** Runs `fetch` in the page; the outcome as JSON, or `blocked` when the browser refused it. */
function pageFetch(page: Page, url: string, init: Record<string, unknown>): Promise<Json> {
  return page.evaluate(`fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}).then(async (r) => ({ status: r.status, body: await r.json(), requestId: r.headers.get('x-request-id') }), () => 'blocked')`);
}

/** Opens a WebSocket from the page: `open`, or `refused` when it errs before opening. */
function pageSocket(page: Page, url: string): Promise<string> {
  return page.evaluate(`new Promise((resolve) => { const s = new WebSocket(${JSON.stringify(url)}, 'graphql-transport-ws'); s.onopen = () => { s.close(); resolve('open'); }; s.onerror = () => resolve('refused'); })`);
}

const missing = missingPrerequisite();
if (missing !== undefined && !missing.includes('console')) throw new Error(`The CORS browser tests cannot run: ${missing}`);

describe.each(STORE_KINDS)('CORS for browser apps (%s)', (kind) => {
  let server: TestServer;
  let browser: Browser;
  let pageA: { server: Server; origin: string };
  let pageB: { server: Server; origin: string };
  let shared: TestApp;
  let own: TestApp;
  const QUERY = { query: '{ viewer { allNotes { aggregations { count } } } }' };

  beforeAll(async () => {
    pageA = await pageServer();
    pageB = await pageServer();
    server = await startTestServer(kind, { corsOrigins: [pageA.origin] });
    shared = await createTestApp(server, 'type Note @model { text: String }');
    own = await createTestApp(server, 'type Note @model { text: String }');
    const set = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { settings { corsOrigins } } } }', { i: { appId: own.id, settings: { corsOrigins: [pageB.origin] } } });
    expect(set.body.data.updateApp.app.settings.corsOrigins).toEqual([pageB.origin]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    pageA?.server.close();
    pageB?.server.close();
  });

  async function at(origin: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(origin);
    return page;
  }

  it('lets a page of an allowed origin call the data API with a token, and blocks the others', async () => {
    const fromA = await at(pageA.origin);
    const fromB = await at(pageB.origin);
    const init = (token: string) => ({ method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(QUERY) });
    const ok = await pageFetch(fromA, shared.endpoint, init(shared.token));
    expect(ok).toMatchObject({ status: 200, body: { data: { viewer: { allNotes: { aggregations: { count: 0 } } } } } });
    // Exposed: the request id a client quotes when something goes wrong.
    expect(ok.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await pageFetch(fromB, shared.endpoint, init(shared.token))).toBe('blocked');
    // The app's own list replaces the server's.
    expect(await pageFetch(fromB, own.endpoint, init(own.token))).toMatchObject({ status: 200 });
    expect(await pageFetch(fromA, own.endpoint, init(own.token))).toBe('blocked');
    // The management API follows the server's list.
    const manage = { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` }, body: JSON.stringify({ query: '{ apps { id } }' }) };
    expect(await pageFetch(fromA, `${server.base}/admin/graphql`, manage)).toMatchObject({ status: 200 });
    expect(await pageFetch(fromB, `${server.base}/admin/graphql`, manage)).toBe('blocked');
    // A persisted query from the page: registered once, then fetched by hash alone with GET.
    const query = '{ viewer { allNotes { aggregations { count } } } }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } };
    const register = await pageFetch(fromA, shared.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, extensions }) });
    expect(register).toMatchObject({ status: 200 });
    const byHash = await pageFetch(fromA, `${shared.endpoint}?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { method: 'GET' });
    expect(byHash).toMatchObject({ status: 200, body: { data: { viewer: { allNotes: { aggregations: { count: 0 } } } } } });
    await fromA.close();
    await fromB.close();
  });

  it('refuses a WebSocket from an origin that is not allowed, and opens one from an allowed origin', async () => {
    const fromA = await at(pageA.origin);
    const fromB = await at(pageB.origin);
    const ws = (app: TestApp) => app.endpoint.replace(/^http/, 'ws');
    expect(await pageSocket(fromA, ws(shared))).toBe('open');
    expect(await pageSocket(fromB, ws(shared))).toBe('refused');
    expect(await pageSocket(fromB, ws(own))).toBe('open');
    // A page of the server's own origin (the console) is not cross-origin.
    const fromServer = await at(`${server.base}/healthz`);
    expect(await pageSocket(fromServer, ws(shared))).toBe('open');
    await fromServer.close();
    // What the refused page got: a 403 with a coded body, logged like any request.
    expect(server.logs.some((l) => l.msg === 'request completed' && l.statusCode === 403 && l.path === `/graphql/${shared.id}`)).toBe(true);
    await fromA.close();
    await fromB.close();
  });

  it('answers preflights with the methods, headers and cache time, and nothing to other origins', async () => {
    const preflight = (origin: string, url = shared.endpoint) =>
      fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });
    const allowed = await preflight(pageA.origin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(pageA.origin);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(allowed.headers.get('access-control-max-age')).toBe('7200');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await preflight(pageB.origin);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // An app open to any origin.
    const open = await createTestApp(server, 'type Note @model { text: String }');
    await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: open.id, settings: { corsOrigins: ['*'] } } });
    expect((await preflight('https://anywhere.example', open.endpoint)).headers.get('access-control-allow-origin')).toBe('*');
    // Paths outside the two APIs answer no preflight.
    expect((await preflight(pageA.origin, `${server.base}/metrics`)).status).toBe(404);
  });

  it('varies every answer on Origin, and gives CORS headers only to a request that sends one', async () => {
    const open = await createTestApp(server, 'type Note @model { text: String }');
    await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: open.id, settings: { corsOrigins: ['*'] } } });
    const post = (app: TestApp, origin?: string) =>
      fetch(app.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}`, ...(origin ? { origin } : {}) }, body: JSON.stringify(QUERY) });
    for (const app of [shared, open]) {
      // A server, a mobile app or a same-origin page: the same answer, and a cache told it depends on Origin.
      const plain = await post(app);
      expect(plain.status).toBe(200);
      expect(await plain.json()).toEqual({ data: { viewer: { allNotes: { aggregations: { count: 0 } } } } });
      expect(plain.headers.get('vary')?.toLowerCase()).toContain('origin');
      expect(plain.headers.get('access-control-allow-origin')).toBeNull();
      expect(plain.headers.get('access-control-expose-headers')).toBeNull();
    }
    const fromA = await post(shared, pageA.origin);
    expect(fromA.headers.get('access-control-allow-origin')).toBe(pageA.origin);
    expect(fromA.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-request-id');
    expect(fromA.headers.get('vary')?.toLowerCase()).toContain('origin');
    expect((await post(shared, pageB.origin)).headers.get('access-control-allow-origin')).toBeNull();
    expect((await post(open, 'https://anywhere.example')).headers.get('access-control-allow-origin')).toBe('*');
    // A preflight without Origin is not a browser's: nothing allowed.
    const bare = await fetch(open.endpoint, { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
    expect(bare.status).toBeGreaterThanOrEqual(400);
    expect(bare.headers.get('access-control-allow-origin')).toBeNull();
    // Nor is an OPTIONS that asks for no method: not found, with a coded body.
    const notPreflight = await fetch(open.endpoint, { method: 'OPTIONS', headers: { origin: pageA.origin } });
    expect(notPreflight.status).toBe(404);
    expect(((await notPreflight.json()) as Json).errors[0].extensions.code).toBe('NOT_FOUND');
    // A GET (cacheable by revalidation) varies on the caller's token and on Origin both.
    const get = await fetch(`${shared.endpoint}?query=${encodeURIComponent(QUERY.query)}`, { headers: { authorization: `Bearer ${shared.token}`, origin: pageA.origin } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe(pageA.origin);
    expect(get.headers.get('etag')).toBeTruthy();
    const varies = (get.headers.get('vary') ?? '').toLowerCase().split(',').map((v) => v.trim());
    expect(varies).toEqual(expect.arrayContaining(['origin', 'authorization']));
    expect(new Set(varies).size).toBe(varies.length);
  });

  it('refuses an allowed-origins setting that is not a list of origins', async () => {
    for (const corsOrigins of [['https://app.example.com/'], ['app.example.com'], ['ftp://x.example'], ['https://x.example/path'], Array.from({ length: 101 }, (_, i) => `https://a${i}.example`)]) {
      const reply = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: own.id, settings: { corsOrigins } } });
      expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    // null gives the app back the server's list.
    const reset = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { settings { corsOrigins } } } }', { i: { appId: own.id, settings: { corsOrigins: null } } });
    expect(reset.body.data.updateApp.app.settings.corsOrigins).toBeNull();
  });
});
