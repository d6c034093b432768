// The data route answered before Fastify (src/server/routes/appGraphqlDirect.ts) against the
// same route through Fastify: two servers on one store, one with the direct route and one
// without, get the same requests and must give the same answers — status, headers (but for
// the date and the request id), body, log line and metrics. A hook on each server counts what
// reaches Fastify, so the tests also see which route took each request: a change that sent the
// common request back through Fastify, or a strange one past it, fails here. The route is the
// HTTP layer's and knows no store; the embedded store serves both servers.

import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { createServer, generatePlatformKey } from '../../src/server/index.js';
import type { ServerOptions } from '../../src/server/index.js';
import { openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import type { Json } from './harness.js';

interface Running {
  base: string;
  logs: Record<string, unknown>[];
  /** Requests Fastify has seen, by URL. */
  fastify: string[];
  close(): Promise<void>;
}

const key = generatePlatformKey();

async function start(store: TestStore['store'], options: Partial<ServerOptions>): Promise<Running> {
  const logs: Record<string, unknown>[] = [];
  const fastify: string[] = [];
  const app = createServer({
    store,
    admin: createAdminService(store),
    adminKey: key,
    logLevel: 'info',
    logDestination: { write: (line) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    ...options,
  });
  app.addHook('onRequest', async (req) => void fastify.push(req.url));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { base: `http://127.0.0.1:${address.port}`, logs, fastify, close: () => app.close() };
}

interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, or its parts, written one after the other (a part may end inside a character). */
  body?: string | Buffer[];
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(base: string, sent: Sent): Promise<Answer> {
  const parts = typeof sent.body === 'string' ? [Buffer.from(sent.body)] : (sent.body ?? []);
  const length = parts.reduce((n, p) => n + p.length, 0);
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: sent.method ?? 'POST', path: sent.path, agent: false, headers: { 'content-length': String(length), ...sent.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const write = (i: number) => {
      const part = parts[i];
      if (part === undefined) return void req.end();
      req.write(part);
      setTimeout(() => write(i + 1), 20);
    };
    write(0);
  });
}

/** What must agree between the two routes: all but the date and the request id. */
function comparable(answer: Answer): { status: number; headers: Record<string, unknown>; body: string } {
  const { date: _date, 'x-request-id': id, ...headers } = answer.headers;
  return { status: answer.status, headers, body: id === undefined ? answer.body : answer.body.replaceAll(String(id), '<request id>') };
}

let store: TestStore;
let direct: Running;
let framework: Running;
let app: TestApp;
let postId: string;
let other: TestApp;

beforeAll(async () => {
  store = await openTestStore('embedded');
  direct = await start(store.store, {});
  framework = await start(store.store, { directRoute: false });
  const server = { base: direct.base, key, store: store.store, app: undefined as never, logs: direct.logs, close: async () => undefined };
  app = await createTestApp(server, 'type Post @model @permission(scope: EVERYONE, read: true) { title: String! }');
  const created = await app.data('mutation { createPost(input: { title: "first" }) { changedPost { id } } }');
  postId = created.createPost.changedPost.id;
  other = await createTestApp(server, 'type Post @model { title: String! }');
});

afterAll(async () => {
  await direct?.close();
  await framework?.close();
  await store?.close();
});

const json = { 'content-type': 'application/json' };
const auth = () => ({ ...json, authorization: `Bearer ${app.token}` });
const path = () => `/graphql/${app.id}`;

/**
 * Sends `sent` to both servers; returns both answers and whether the direct server's went
 * through Fastify's hooks (`refusedBeforeHooks`: a request Fastify refuses before its hooks run).
 */
async function both(sent: Sent, refusedBeforeHooks = false): Promise<{ direct: Answer; framework: Answer; directViaFastify: boolean }> {
  const before = direct.fastify.length;
  const a = await send(direct.base, sent);
  const directViaFastify = direct.fastify.length > before;
  const beforeFramework = framework.fastify.length;
  const b = await send(framework.base, sent);
  // The hook sees every request that reaches Fastify's hooks: the server without the direct route shows it.
  expect(framework.fastify.length).toBe(beforeFramework + (refusedBeforeHooks ? 0 : 1));
  return { direct: a, framework: b, directViaFastify };
}

describe('the direct route answers as the Fastify route does', () => {
  const cases: { name: string; sent: () => Sent; status: number }[] = [
    { name: 'a query', status: 200, sent: () => ({ path: path(), headers: auth(), body: JSON.stringify({ query: 'query($id: ID!) { getPost(id: $id) { id title } }', variables: { id: postId } }) }) },
    { name: 'a query as an anonymous caller', status: 200, sent: () => ({ path: path(), headers: json, body: JSON.stringify({ query: '{ viewer { allPosts(first: 1) { edges { node { title } } } } }' }) }) },
    { name: 'a mutation that writes the same each time', status: 200, sent: () => ({ path: path(), headers: auth(), body: JSON.stringify({ query: 'mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { title } } }', variables: { i: { id: postId, title: 'été 🚀 ∑' } } }) }) },
    { name: 'a write refused to an anonymous caller', status: 200, sent: () => ({ path: path(), headers: json, body: JSON.stringify({ query: 'mutation { createPost(input: { title: "x" }) { changedPost { id } } }' }) }) },
    { name: 'the GraphQL response media type, with an error', status: 400, sent: () => ({ path: path(), headers: { ...auth(), accept: 'application/graphql-response+json' }, body: JSON.stringify({ query: '{ getPost(' }) }) },
    { name: 'an Accept it cannot answer', status: 406, sent: () => ({ path: path(), headers: { ...auth(), accept: 'text/html' }, body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'a document that does not parse', status: 200, sent: () => ({ path: path(), headers: auth(), body: JSON.stringify({ query: '{ viewer {' }) }) },
    { name: 'a body without a query', status: 400, sent: () => ({ path: path(), headers: auth(), body: JSON.stringify({ variables: {} }) }) },
    { name: 'a body that is not JSON', status: 400, sent: () => ({ path: path(), headers: auth(), body: '{"query": "{ __typename }"' }) },
    { name: 'a JSON array', status: 400, sent: () => ({ path: path(), headers: auth(), body: '[{"query": "{ __typename }"}]' }) },
    { name: 'a JSON null', status: 400, sent: () => ({ path: path(), headers: auth(), body: 'null' }) },
    { name: 'a body with a __proto__ key', status: 400, sent: () => ({ path: path(), headers: auth(), body: '{"query": "{ __typename }", "__proto__": {"admin": true}}' }) },
    { name: 'a body with constructor.prototype', status: 400, sent: () => ({ path: path(), headers: auth(), body: '{"query": "{ __typename }", "variables": {"constructor": {"prototype": {"admin": true}}}}' }) },
    { name: 'an unknown app', status: 404, sent: () => ({ path: '/graphql/nosuchapp0000', headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'a wrong token', status: 401, sent: () => ({ path: path(), headers: { ...json, authorization: 'Bearer not-a-token' }, body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'another app’s admin token', status: 401, sent: () => ({ path: path(), headers: { ...json, authorization: `Bearer ${other.token}` }, body: JSON.stringify({ query: '{ viewer { allPosts { edges { node { title } } } } }' }) }) },
    { name: 'a charset parameter', status: 200, sent: () => ({ path: path(), headers: { ...auth(), 'content-type': 'Application/JSON; charset=UTF-8' }, body: JSON.stringify({ query: '{ __typename }' }) }) },
    {
      name: 'a body cut inside a character',
      status: 200,
      sent: () => {
        const whole = Buffer.from(JSON.stringify({ query: 'query($id: ID!) { getPost(id: $id) { title } }', variables: { id: postId, note: '🚀🚀' } }));
        const cut = whole.indexOf(Buffer.from('🚀')) + 2;
        return { path: path(), headers: auth(), body: [whole.subarray(0, cut), whole.subarray(cut)] };
      },
    },
  ];

  it.each(cases)('$name: answered without Fastify, the same', async ({ sent, status }) => {
    const answers = await both(sent());
    expect(answers.directViaFastify).toBe(false);
    expect(answers.direct.status).toBe(status);
    expect(comparable(answers.direct)).toEqual(comparable(answers.framework));
    // Every answer says what it varies on and which request it was.
    expect(answers.direct.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(answers.framework.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(answers.direct.headers.vary).toBe('Origin');
    expect(answers.direct.headers['content-length']).toBe(String(Buffer.byteLength(answers.direct.body)));
  });

  it('keeps the text of a body cut inside a character', async () => {
    const title = 'été 🚀 ∑';
    const whole = Buffer.from(JSON.stringify({ query: 'mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { title } } }', variables: { i: { id: postId, title } } }));
    const cut = whole.indexOf(Buffer.from('🚀')) + 1;
    const answer = await send(direct.base, { path: path(), headers: auth(), body: [whole.subarray(0, cut), whole.subarray(cut)] });
    expect(JSON.parse(answer.body)).toEqual({ data: { updatePost: { changedPost: { title } } } });
  });

  const declined: { name: string; sent: () => Sent; refusedBeforeHooks?: boolean }[] = [
    { name: 'a request with Origin (CORS)', sent: () => ({ path: path(), headers: { ...auth(), origin: 'https://elsewhere.example' }, body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'a query string', sent: () => ({ path: `${path()}?x=1`, headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'a GET', sent: () => ({ method: 'GET', path: `${path()}?query=%7B__typename%7D`, headers: { authorization: `Bearer ${app.token}` } }) },
    { name: 'a text/plain body', sent: () => ({ path: path(), headers: { ...auth(), 'content-type': 'text/plain' }, body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'an empty body', sent: () => ({ path: path(), headers: auth(), body: '' }) },
    { name: 'a body over the limit', sent: () => ({ path: path(), headers: auth(), body: JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(1024 * 1024) } }) }) },
    { name: 'a trailing slash', sent: () => ({ path: `${path()}/`, headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'an encoded app id', sent: () => ({ path: `/graphql/${encodeURIComponent('é')}${app.id}`, headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'an app id of 101 characters', refusedBeforeHooks: true, sent: () => ({ path: `/graphql/${'a'.repeat(101)}`, headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'a gzip-encoded body', sent: () => ({ path: path(), headers: { ...auth(), 'content-encoding': 'gzip' }, body: JSON.stringify({ query: '{ __typename }' }) }) },
    { name: 'a PUT', sent: () => ({ method: 'PUT', path: path(), headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) }) },
  ];

  it.each(declined)('$name: left to Fastify, the same', async ({ sent, refusedBeforeHooks }) => {
    const answers = await both(sent(), refusedBeforeHooks);
    expect(answers.directViaFastify).toBe(!refusedBeforeHooks);
    expect(comparable(answers.direct)).toEqual(comparable(answers.framework));
  });

  it('writes the same log line, under the id the answer names', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const lines = async (server: Running) => {
      const before = server.logs.length;
      const answer = await send(server.base, { path: `${path()}`, headers: auth(), body });
      await new Promise((r) => setTimeout(r, 20));
      const line = server.logs.slice(before).find((l) => l.msg === 'request completed') as Json;
      expect(line.requestId).toBe(answer.headers['x-request-id']);
      const { time: _t, pid: _p, hostname: _h, requestId: _r, responseTime, ...rest } = line;
      expect(typeof responseTime).toBe('number');
      return rest;
    };
    const a = await lines(direct);
    expect(a).toEqual({ level: 30, msg: 'request completed', method: 'POST', path: path(), statusCode: 200, address: '127.0.0.1' });
    expect(a).toEqual(await lines(framework));
  });

  it('logs a refusal and an internal failure under the request id', async () => {
    const before = direct.logs.length;
    const answer = await send(direct.base, { path: '/graphql/nosuchapp0000', headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) });
    await new Promise((r) => setTimeout(r, 20));
    const refused = direct.logs.slice(before).find((l) => l.msg === 'request refused') as Json;
    expect(refused).toMatchObject({ requestId: answer.headers['x-request-id'], code: 'NOT_FOUND' });
  });

  it('counts its answers in the HTTP metrics under the route pattern', async () => {
    const count = async () => {
      const text = await (await fetch(`${direct.base}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('tessera_http_requests_total{') && l.includes('route="/graphql/:appId"') && l.includes('status="404"') && l.includes('method="POST"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count();
    await send(direct.base, { path: '/graphql/nosuchapp0000', headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) });
    await send(direct.base, { path: '/graphql/nosuchapp0000', headers: auth(), body: JSON.stringify({ query: '{ __typename }' }) });
    expect(await count()).toBe(before + 2);
  });
});

describe('the client address behind a trusted proxy', () => {
  const settings: { name: string; trustProxy: ServerOptions['trustProxy'] }[] = [
    { name: 'not trusted', trustProxy: false },
    { name: 'trusted', trustProxy: true },
    { name: 'one hop', trustProxy: 1 },
    { name: 'by address', trustProxy: ['127.0.0.1'] },
    { name: 'another address', trustProxy: ['10.0.0.1'] },
  ];

  it.each(settings)('$name: the log line names the address Fastify names', async ({ trustProxy }) => {
    const servers = [await start(store.store, { trustProxy }), await start(store.store, { trustProxy, directRoute: false })];
    try {
      const addresses: unknown[] = [];
      for (const server of servers) {
        const before = server.logs.length;
        await send(server.base, { path: path(), headers: { ...auth(), 'x-forwarded-for': '203.0.113.9, 198.51.100.7' }, body: JSON.stringify({ query: '{ __typename }' }) });
        await new Promise((r) => setTimeout(r, 20));
        addresses.push((server.logs.slice(before).find((l) => l.msg === 'request completed') as Json).address);
      }
      expect(servers[0]?.fastify.filter((u) => u.startsWith('/graphql/'))).toEqual([]);
      expect(addresses[0]).toBe(addresses[1]);
      // Trusted hops are skipped from the socket's end: all of them, one, or the one from 127.0.0.1.
      const expected = trustProxy === true ? '203.0.113.9' : trustProxy === 1 || (Array.isArray(trustProxy) && trustProxy[0] === '127.0.0.1') ? '198.51.100.7' : '127.0.0.1';
      expect(addresses[0]).toBe(expected);
    } finally {
      for (const server of servers) await server.close();
    }
  });
});

describe('shutting down', () => {
  it('answers a request under way with Connection: close', async () => {
    const server = await start(store.store, {});
    const body = Buffer.from(JSON.stringify({ query: '{ __typename }' }));
    const { port } = new URL(server.base);
    // A keep-alive agent, as load balancers use: only the drain makes the answer close the connection.
    const agent = new Agent({ keepAlive: true });
    let req!: ReturnType<typeof request>;
    const answer = new Promise<Answer>((resolve, reject) => {
      req = request({ host: '127.0.0.1', port, method: 'POST', path: path(), agent, headers: { ...auth(), 'content-length': String(body.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
    });
    req.write(body.subarray(0, 5));
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    await new Promise((r) => setTimeout(r, 100));
    req.end(body.subarray(5));
    const done = await answer;
    expect(done.status).toBe(200);
    expect(done.headers.connection).toBe('close');
    expect(JSON.parse(done.body)).toEqual({ data: { __typename: 'Query' } });
    expect(server.fastify.filter((u) => u.startsWith('/graphql/'))).toEqual([]);
    await closing;
    agent.destroy();
  });
});
