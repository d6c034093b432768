// Internal failures are masked: with the store closed under a running server, the API answers
// 500 INTERNAL with a request id and no driver text, and the log holds the detail.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, admin, jsonOf, startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

describe.each(STORE_KINDS)('internal errors (%s store)', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.store.close();
  });
  afterAll(async () => {
    await server?.close().catch(() => undefined);
  });

  function expectMasked(body: unknown, requestId: string | null): void {
    expect(requestId).toBeTruthy();
    expect(body).toEqual({
      data: null,
      errors: [{ message: 'Internal server error', path: ['apps'], locations: expect.any(Array), extensions: { code: 'INTERNAL', requestId } }],
    });
  }

  it('answers a management query with 500 INTERNAL and a request id, nothing more', async () => {
    const reply = await admin(server, '{ apps { id name } }');
    expect(reply.status).toBe(500);
    expectMasked(reply.body, reply.headers.get('x-request-id'));
  });

  it('uses 500 with application/graphql-response+json too', async () => {
    const reply = await admin(server, '{ apps { id name } }', {}, { accept: 'application/graphql-response+json' });
    expect(reply.status).toBe(500);
    expectMasked(reply.body, reply.headers.get('x-request-id'));
  });

  it('masks failures outside GraphQL execution the same way', async () => {
    const response = await fetch(`${server.base}/graphql/abcdefabcdef`);
    expect(response.status).toBe(500);
    const requestId = response.headers.get('x-request-id');
    expect(await jsonOf(response)).toEqual({
      errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL', requestId } }],
    });
  });

  it('logs the detail under the request id', async () => {
    const reply = await admin(server, '{ apps { id } }');
    const requestId = reply.headers.get('x-request-id');
    const errorLines = server.logs.filter((l) => l.requestId === requestId && l.level === 50);
    expect(errorLines).toHaveLength(1);
    const err = errorLines[0]?.err as { message?: string; stack?: string } | undefined;
    expect(err?.message).toBeTruthy();
    expect(err?.stack).toBeTruthy();
    expect(JSON.stringify(reply.body)).not.toContain(err?.message ?? '-');
  });

  it('reports not ready while /healthz stays up', async () => {
    expect((await fetch(`${server.base}/readyz`)).status).toBe(503);
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
  });
});
