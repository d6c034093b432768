// Delivery with several instances on one PostgreSQL database: two servers sharing it deliver
// every event once (no duplicate while both run normally), whichever instance wrote it; and a
// `tessera serve` process killed with SIGKILL right after a write loses nothing — the next
// process on the database delivers the event.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { createServer, generatePlatformKey } from '../../src/server/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import type { TestServer } from '../server/harness.js';
import { createTestApp } from '../api/harness.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { cleanEnv, startServe } from '../cli/run.js';
import type { ServeChild } from '../cli/run.js';
import { FAST, Receiver, SCHEMA, createEventFunction, waitForDeliveries } from './harness.js';

describe.runIf(STORES.includes('postgres'))('event delivery with several instances (postgres)', () => {
  let database: TestStore;
  const secretKey = generateSecretKey();
  const key = generatePlatformKey();
  const instances: { app: FastifyInstance; store: Store; base: string }[] = [];

  beforeAll(async () => {
    database = await openTestStore('postgres');
    for (let i = 0; i < 2; i++) {
      const store = await openStore({ databaseUrl: database.databaseUrl as string });
      const functions = { secrets: new SecretBox(secretKey), allowPrivate: true, schedule: { ...FAST, concurrency: 4 } };
      const app = createServer({ store, admin: createAdminService(store, { functions }), adminKey: key, logLevel: 'silent', functions });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      instances.push({ app, store, base: `http://127.0.0.1:${address.port}` });
    }
  });
  afterAll(async () => {
    for (const instance of instances) {
      await instance.app.close();
      await instance.store.close();
    }
    await database?.close();
  });

  it('delivers each event once, whichever instance wrote it', async () => {
    const receiver = await Receiver.start();
    try {
      const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
      const serverA = { base: a.base, key, store: a.store } as TestServer;
      const app = await createTestApp(serverA, SCHEMA);
      await createEventFunction(serverA, app.id, receiver, ['createPost']);
      const endpointB = `${b.base}/graphql/${app.id}`;
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const query = `mutation { createPost(input: { title: "post ${i}" }) { changedPost { id } } }`;
        // Every other write goes to the second instance, which learns of the function through the catalog.
        writes.push(
          i % 2 === 0
            ? app.data(query)
            : fetch(endpointB, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}` }, body: JSON.stringify({ query }) }).then((r) => r.json()),
        );
      }
      await Promise.all(writes);
      await receiver.waitFor(40);
      await waitForDeliveries(serverA, app.id, (l) => l.length === 40 && l.every((d) => d.status === 'DELIVERED'));
      const ids = receiver.received.map((r) => r.eventId);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
      expect(new Set(receiver.bodies().map((b) => b.event.after.title)).size).toBe(40);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
    } finally {
      await receiver.down();
    }
  });
});

describe.runIf(STORES.includes('postgres'))('event delivery after kill -9 (postgres)', () => {
  let dir: string;
  let database: TestStore;
  const adminKey = generatePlatformKey();
  const env = () =>
    cleanEnv({
      DATABASE_URL: database.databaseUrl ?? '',
      TESSERA_DATA_DIR: dir,
      TESSERA_LOG_LEVEL: 'warn',
      TESSERA_ADMIN_KEY: adminKey,
      TESSERA_SECRET_KEY: generateSecretKeyOnce(),
      TESSERA_FUNCTIONS_ALLOW_PRIVATE: 'true',
    });
  let secret: string | undefined;
  const generateSecretKeyOnce = () => (secret ??= generateSecretKey());

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-functions-kill-'));
    database = await openTestStore('postgres', { catalog: false });
  });
  afterAll(async () => {
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('delivers an event whose process was killed before delivering it', async () => {
    const receiver = await Receiver.start();
    let serve: ServeChild | undefined;
    try {
      serve = await startServe(['serve'], env());
      const server = { base: serve.url, key: adminKey } as TestServer;
      const app = await createTestApp(server, SCHEMA);
      // A short timeout: a call cut short by the kill holds its lease for timeoutMs + 10 s.
      await createEventFunction(server, app.id, receiver, ['createPost'], 'hook', { timeoutMs: 1000 });
      await receiver.down();
      await app.data('mutation { createPost(input: { title: "survives kill -9" }) { changedPost { id } } }');
      serve.child.kill('SIGKILL');
      expect(await serve.exited).toBeNull();
      serve = undefined;
      await receiver.up();
      expect(receiver.received).toEqual([]);
      serve = await startServe(['serve'], env());
      const [body] = await receiver.waitFor(1, 'createPost', 45_000);
      expect(body.event.after.title).toBe('survives kill -9');
      expect(receiver.received[0]?.verified).toBe(true);
    } finally {
      serve?.child.kill('SIGKILL');
      await serve?.exited;
      await receiver.down();
    }
  });
});
