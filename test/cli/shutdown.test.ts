// Graceful shutdown of `tessera serve`: on SIGTERM it stops accepting connections, lets a
// request that is still arriving finish and be answered, closes the store and exits 0.

import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startServe } from './run.js';
import type { ServeChild } from './run.js';

const KEY = 'shutdown-test-platform-key';
let dir: string;
let serve: ServeChild;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-shutdown-'));
  serve = await startServe(['serve'], cleanEnv({ TESSERA_DATA_DIR: dir, TESSERA_ADMIN_KEY: KEY }));
});

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('SIGTERM', () => {
  it('finishes the in-flight request, refuses new ones, and exits 0', async () => {
    const url = new URL(serve.url);
    const body = JSON.stringify({ query: '{ apps { id } }' });
    const half = Math.floor(body.length / 2);

    // A request whose body is only half sent when the signal arrives.
    const answer = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/admin/graphql',
          method: 'POST',
          // A keep-alive agent, as load balancers use: the server must close the connection itself.
          agent: new Agent({ keepAlive: true, keepAliveMsecs: 60_000 }),
          // Expect: 100-continue makes the server say when it has read the headers and started
          // the request, so the signal below comes while the request is in flight however slow
          // the machine (a fixed wait would let a busy server read the headers only after it,
          // which is a new request and rightly refused).
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${KEY}`, expect: '100-continue' },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.on('continue', () => {
        req.write(body.slice(0, half));
        setTimeout(() => {
          serve.child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(half)), 500);
        }, 200);
      });
      req.flushHeaders();
    });

    const done = await answer;
    const answeredAt = Date.now();
    expect(done.status).toBe(200);
    expect(done.connection).toBe('close');
    expect(JSON.parse(done.text)).toEqual({ data: { apps: [] } });
    expect(await serve.exited).toBe(0);
    // The kept-alive connection is closed after the answer, so it does not hold the exit up.
    expect(Date.now() - answeredAt).toBeLessThan(3000);
    await expect(fetch(`${serve.url}/healthz`)).rejects.toThrow();
    expect(serve.stdout()).toContain('shutdown complete');
    expect(serve.stdout()).not.toContain(KEY);
  });
});
