// GraphQL over HTTP conformance as data: graphql-http's server audits, run against the real
// management endpoint (with the platform key). MUST audits must pass; SHOULD audits too.

import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer('embedded');
});
afterAll(async () => {
  await server?.close();
});

describe('GraphQL over HTTP audits (/admin/graphql)', () => {
  const audits = serverAudits({
    url: () => `${server.base}/admin/graphql`,
    fetchFn: (input: string | URL | Request, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${server.key}`);
      return fetch(input, { ...init, headers });
    },
  });

  it.each(audits.map((audit) => [audit.name, audit] as const))('%s', async (_name, audit) => {
    const result = await audit.fn();
    expect(result.status, 'reason' in result ? result.reason : '').toBe('ok');
  });
});
