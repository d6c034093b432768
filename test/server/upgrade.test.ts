// Upgrades through the real server on both stores: only `Upgrade: websocket` on an app's path is
// a WebSocket; any other Upgrade header (`h2c`, which `curl --http2` sends) is ignored and the
// request served as plain HTTP, body included. WebSocket connections go through Fastify's
// lifecycle: refused ones are ordinary coded answers, and each connection is logged and
// counted like a request when it closes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { rawHttp, rawUpgrade } from '../helpers/raw.js';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

const H2C = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA';

describe.each(STORE_KINDS)('upgrades (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, 'type Note @model @permission(scope: EVERYONE, read: true) { text: String }');
  });
  afterAll(async () => server?.close());

  it('serves a request with Upgrade: h2c as plain HTTP: /healthz, a GET query and a POST with its body', async () => {
    const health = await rawHttp(server.base, `GET /healthz HTTP/1.1\r\n${H2C}`);
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok' }]);
    const get = await rawHttp(server.base, `GET /graphql/${app.id}?query=%7B__typename%7D HTTP/1.1\r\nAccept: application/json\r\n${H2C}`);
    expect([get.status, JSON.parse(get.body)]).toEqual([200, { data: { __typename: 'Query' } }]);
    const body = JSON.stringify({ query: 'mutation { createNote(input: { text: "over h2c" }) { changedNote { text } } }' });
    const post = await rawHttp(server.base, `POST /graphql/${app.id} HTTP/1.1\r\nContent-Type: application/json\r\nAuthorization: Bearer ${app.token}\r\n${H2C}`, body);
    expect([post.status, JSON.parse(post.body)]).toEqual([200, { data: { createNote: { changedNote: { text: 'over h2c' } } } }]);
  });

  it('serves Upgrade: websocket outside an app path as plain HTTP too', async () => {
    const health = await rawUpgrade(server.base, '/healthz');
    expect(health.status).toBe(200);
    const admin = await rawUpgrade(server.base, '/admin/graphql');
    expect(admin.status).toBe(401);
  });

  it('answers a refused upgrade with a coded body, and logs and counts a WebSocket connection when it closes', async () => {
    const unknown = await rawUpgrade(server.base, '/graphql/abcdefghijkl');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).errors[0].extensions.code).toBe('NOT_FOUND');
    const c = client(app.endpoint, app.token);
    const sub = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
    await waitForSubscriptions(server.base, 1);
    await sub.close();
    await c.dispose();
    const deadline = Date.now() + 5_000;
    while (!server.logs.some((l) => l.msg === 'websocket closed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const line = server.logs.find((l) => l.msg === 'websocket closed');
    expect(line).toMatchObject({ method: 'GET', path: `/graphql/${app.id}`, statusCode: 101, protocol: 'graphql-transport-ws', address: '127.0.0.1' });
    expect(typeof line?.requestId).toBe('string');
    expect(server.logs.some((l) => l.msg === 'request completed' && l.statusCode === 404 && l.path === '/graphql/abcdefghijkl')).toBe(true);
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    expect(metrics).toMatch(/tessera_http_requests_total\{method="GET",route="\/graphql\/:appId",status="101"\} [1-9]/);
  });
});
