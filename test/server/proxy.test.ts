// Which client address the server believes behind a proxy (TESSERA_TRUST_PROXY), through the
// real server: the request log's `address`, which the login throttle counts too. A named range
// is handed to Fastify as such, so `loopback` trusts a proxy on this machine and `uniquelocal`
// (private networks, where a container's proxy sits) does not.

import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/index.js';
import { startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function addressSeen(trust: string | undefined): Promise<unknown> {
  const trustProxy = loadConfig({}, trust === undefined ? {} : { TESSERA_TRUST_PROXY: trust }).trustProxy;
  server = await startTestServer('embedded', { trustProxy });
  const response = await fetch(`${server.base}/healthz`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
  expect(response.status).toBe(200);
  return server.logs.find((l) => l.msg === 'request completed' && l.path === '/healthz')?.address;
}

describe('TESSERA_TRUST_PROXY', () => {
  it.each([
    { trust: undefined, seen: '127.0.0.1' },
    { trust: 'loopback', seen: '203.0.113.9' },
    { trust: 'uniquelocal', seen: '127.0.0.1' },
    { trust: '127.0.0.1', seen: '203.0.113.9' },
    { trust: '10.0.0.0/8', seen: '127.0.0.1' },
  ])('$trust: the client address is $seen', async ({ trust, seen }) => {
    expect(await addressSeen(trust)).toBe(seen);
  });
});
