// GraphQL over HTTP conformance as data: graphql-http's server audits, run against the real
// management endpoint (with the platform key) and an app's data endpoint (with an admin token
// of the app). MUST audits must pass; SHOULD audits too.

import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

let server: TestServer;
let appId: string;
let appToken: string;

beforeAll(async () => {
  server = await startTestServer('embedded');
  const created = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', {
    i: { name: 'conformance', schema: 'type Note @model { text: String }' },
  });
  appId = created.body.data.createApp.app.id;
  const token = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', {
    i: { appId, name: 'audits' },
  });
  appToken = token.body.data.createAdminToken.token;
});
afterAll(async () => {
  await server?.close();
});

/** fetch with a bearer token added to whatever headers an audit sends. */
function withBearer(token: () => string) {
  return (input: string | URL | Request, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token()}`);
    return fetch(input, { ...init, headers });
  };
}

const endpoints = [
  { name: '/admin/graphql', url: () => `${server.base}/admin/graphql`, token: () => server.key },
  { name: '/graphql/:appId', url: () => `${server.base}/graphql/${appId}`, token: () => appToken },
];

describe.each(endpoints)('GraphQL over HTTP audits ($name)', ({ url, token }) => {
  const audits = serverAudits({ url, fetchFn: withBearer(token) });

  it.each(audits.map((audit) => [audit.name, audit] as const))('%s', async (_name, audit) => {
    const result = await audit.fn();
    expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
  });
});

describe('mutations over GET (/graphql/:appId)', () => {
  it('are refused with 405 and Allow: POST, nothing written', async () => {
    const query = encodeURIComponent('mutation { createNote(input: { text: "via GET" }) { changedNote { id } } }');
    const reply = await fetch(`${server.base}/graphql/${appId}?query=${query}`, { headers: { authorization: `Bearer ${appToken}` } });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
    const body = (await reply.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const count = await fetch(`${server.base}/graphql/${appId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${appToken}` },
      body: JSON.stringify({ query: '{ viewer { allNotes { aggregations { count } } } }' }),
    });
    expect(((await count.json()) as { data: { viewer: { allNotes: { aggregations: { count: number } } } } }).data.viewer.allNotes.aggregations.count).toBe(0);
  });
});
