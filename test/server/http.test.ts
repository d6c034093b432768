// HTTP behaviour around the management API: platform-key checks as a table of cases, body
// limits, malformed and batched bodies, media types, unknown routes, health, metrics and logs.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, jsonOf, startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer('embedded');
});
afterAll(async () => {
  await server?.close();
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}`, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}

describe('platform key', () => {
  const cases: { who: string; authorization: () => string | undefined }[] = [
    { who: 'no Authorization header', authorization: () => undefined },
    { who: 'a wrong key', authorization: () => 'Bearer tsk_wrongwrongwrongwrongwrongwrong' },
    { who: 'a key one character short', authorization: () => `Bearer ${server.key.slice(0, -1)}` },
    { who: 'another scheme', authorization: () => `Basic ${server.key}` },
    { who: 'Bearer without credentials', authorization: () => 'Bearer ' },
    { who: 'the key without a scheme', authorization: () => server.key },
  ];

  it.each(cases)('refuses $who with 401 UNAUTHENTICATED', async ({ authorization }) => {
    const value = authorization();
    const response = await fetch(`${server.base}/admin/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(value === undefined ? {} : { authorization: value }) },
      body: JSON.stringify({ query: '{ apps { id } }' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = await jsonOf(response);
    expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED' } }] });
    expect(JSON.stringify(body)).not.toContain(server.key);
  });

  it('accepts the key with any case of the Bearer scheme', async () => {
    const reply = await admin(server, '{ apps { id } }', {}, { authorization: `bearer ${server.key}` });
    expect(reply.status).toBe(200);
  });

  it('checks the key before reading the body', async () => {
    const response = await fetch(`${server.base}/admin/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(response.status).toBe(401);
  });
});

describe('request bodies', () => {
  it('refuses a body over 1 MiB with 413 LIMIT_EXCEEDED', async () => {
    const big = JSON.stringify({ query: '{ apps { id } }', variables: { pad: 'x'.repeat(1024 * 1024) } });
    const reply = await post('/admin/graphql', big);
    expect(reply.status).toBe(413);
    expect(reply.json()).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'LIMIT_EXCEEDED' } }] });
  });

  it('accepts a body just under the limit', async () => {
    const query = '{ apps { id } }';
    const pad = 1024 * 1024 - JSON.stringify({ query, variables: { pad: '' } }).length;
    const reply = await post('/admin/graphql', JSON.stringify({ query, variables: { pad: 'x'.repeat(pad) } }));
    expect(reply.status).toBe(200);
  });

  it('refuses a batched (JSON array) body with BAD_USER_INPUT', async () => {
    const reply = await post('/admin/graphql', JSON.stringify([{ query: '{ apps { id } }' }, { query: '{ apps { id } }' }]));
    expect(reply.status).toBe(400);
    expect(reply.json().errors[0]).toMatchObject({ message: expect.stringContaining('Batched'), extensions: { code: 'BAD_USER_INPUT' } });
  });

  it.each([
    ['malformed JSON', '{"query": "{ apps { id } }"'],
    ['an empty body', ''],
    ['a JSON string', '"{ apps { id } }"'],
    ['a missing query', '{"variables": {}}'],
    ['variables that are not an object', '{"query": "{ apps { id } }", "variables": [1]}'],
  ])('answers %s with 400 BAD_USER_INPUT', async (_what, body) => {
    const reply = await post('/admin/graphql', body);
    expect(reply.status).toBe(400);
    expect(reply.json().errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(reply.json().data).toBeUndefined();
  });

  it('answers an unsupported content type with 415', async () => {
    const reply = await post('/admin/graphql', 'query { apps { id } }', { 'content-type': 'text/plain' });
    expect(reply.status).toBe(415);
    expect(reply.json().errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers a syntax error as a GraphQL error', async () => {
    const json = await post('/admin/graphql', JSON.stringify({ query: '{ apps { id }' }));
    expect(json.status).toBe(200);
    expect(json.json().errors[0]).toMatchObject({ locations: [{ line: 1, column: 14 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    const official = await post('/admin/graphql', JSON.stringify({ query: '{ apps { id }' }), {
      accept: 'application/graphql-response+json',
    });
    expect(official.status).toBe(400);
  });

  it('answers a missing variable with BAD_USER_INPUT and no data', async () => {
    const reply = await post('/admin/graphql', JSON.stringify({ query: 'query($id: ID!) { app(id: $id) { id } }' }));
    expect(reply.json()).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })] });
  });
});

describe('media types and methods', () => {
  it('negotiates the response media type from Accept', async () => {
    const body = JSON.stringify({ query: '{ apps { id } }' });
    expect((await post('/admin/graphql', body)).headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await post('/admin/graphql', body, { accept: '*/*' })).headers.get('content-type')).toBe('application/json; charset=utf-8');
    const official = await post('/admin/graphql', body, { accept: 'application/graphql-response+json, application/json;q=0.9' });
    expect(official.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    const refused = await post('/admin/graphql', body, { accept: 'text/html' });
    expect(refused.status).toBe(406);
  });

  it('answers other methods with 405 and Allow', async () => {
    const response = await fetch(`${server.base}/admin/graphql`, { method: 'PUT', headers: { authorization: `Bearer ${server.key}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });
});

describe('routes', () => {
  it('answers unknown routes with 404 NOT_FOUND, not echoing the query string', async () => {
    const response = await fetch(`${server.base}/nowhere?secret=s3cr3t`);
    expect(response.status).toBe(404);
    const body = await jsonOf(response);
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(JSON.stringify(body)).not.toContain('s3cr3t');
  });

  it('answers a URL that does not decode with 404 NOT_FOUND: it names nothing that exists', async () => {
    const response = await fetch(`${server.base}/graphql/%zz`);
    expect(response.status).toBe(404);
    expect((await jsonOf(response)).errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${server.base}/healthz`);
    expect([health.status, await jsonOf(health)]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${server.base}/readyz`);
    expect([ready.status, await jsonOf(ready)]).toEqual([200, { status: 'ok', clusters: [{ name: 'main', status: 'ok' }] }]);
  });

  it('serves Prometheus metrics labelled by route pattern, never by app id', async () => {
    await fetch(`${server.base}/graphql/someappid123`);
    await fetch(`${server.base}/graphql/otherappid45`);
    const response = await fetch(`${server.base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    expect(text).toMatch(/tessera_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toMatch(/tessera_http_requests_total\{method="GET",route="\/graphql\/:appId",status="404"\} 2/);
    expect(text).toMatch(/tessera_http_requests_total\{method="POST",route="\/admin\/graphql",status="401"\} \d+/);
    expect(text).toContain('tessera_http_request_duration_seconds_bucket{');
    expect(text).not.toContain('someappid123');
  });
});

describe('logs', () => {
  it('are JSON lines with a request id, and the request id is returned to the client', async () => {
    const reply = await admin(server, '{ apps { id } }');
    const requestId = reply.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const lines = server.logs.filter((l) => l.requestId === requestId);
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'request completed', method: 'POST', path: '/admin/graphql', statusCode: 200, address: '127.0.0.1', responseTime: expect.any(Number) }),
    ]);
  });

  it('redact Authorization and Cookie headers wherever they appear', async () => {
    server.app.log.info({ headers: { authorization: 'Bearer leaked-in-headers', cookie: 'session=leaked' } }, 'redaction check');
    const line = server.logs.find((l) => l.msg === 'redaction check');
    expect(line?.headers).toEqual({ authorization: '[redacted]', cookie: '[redacted]' });
    // One level down under any key; the caller's objects stay as they were.
    const delivery = { url: 'https://hooks.example/x', headers: { Accept: 'application/json', authorization: 'Bearer leaked-in-delivery' } };
    const child = server.app.log.child({ component: 'redaction' });
    child.warn({ request: { method: 'GET', headers: { cookie: 'session=leaked-in-request' } }, delivery, attempt: 2, ok: false }, 'nested redaction check');
    const nested = server.logs.find((l) => l.msg === 'nested redaction check');
    expect(nested).toMatchObject({
      component: 'redaction',
      request: { method: 'GET', headers: { cookie: '[redacted]' } },
      delivery: { url: 'https://hooks.example/x', headers: { Accept: 'application/json', authorization: '[redacted]' } },
      attempt: 2,
      ok: false,
    });
    expect(delivery.headers.authorization).toBe('Bearer leaked-in-delivery');
    expect(JSON.stringify(server.logs)).not.toMatch(/leaked-in-(request|delivery)/);
  });

  it('never contain the platform key or Authorization header', async () => {
    await admin(server, '{ apps { id } }');
    await fetch(`${server.base}/admin/graphql`, { method: 'POST', headers: { authorization: 'Bearer tsk_wrong_key_in_logs' } });
    const text = JSON.stringify(server.logs);
    expect(text).not.toContain(server.key);
    expect(text).not.toContain('tsk_wrong_key_in_logs');
  });
});
