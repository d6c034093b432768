// Event delivery on both stores: retried with backoff while the endpoint fails or is down (the
// listing tells attempts, last status and error, next attempt), the same event id at every
// attempt; dead once the retry window is over (shortened through the server's options);
// redelivered on demand; and still delivered after the server stopped with events pending and
// a new one started on the same store.

import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { createServer, generatePlatformKey } from '../../src/server/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { admin } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { openTestStore } from '../helpers/stores.js';
import { sleep } from '../helpers/wait.js';
import { FAST, REDELIVER, Receiver, SCHEMA, codeOf, createEventFunction, startFunctionsServer, waitForDeliveries } from './harness.js';

describe.each(STORE_KINDS)('event delivery (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startFunctionsServer(kind, { schedule: { ...FAST, deadAfterMs: 1_500 } });
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  it('retries while the endpoint answers 503, then delivers the same event', async () => {
    const receiver = await Receiver.start();
    try {
      receiver.status = 503;
      await createEventFunction(server, app.id, receiver, ['createPost'], 'flaky');
      await app.data('mutation { createPost(input: { title: "retry me" }) { changedPost { id } } }');
      // An attempt is counted when it is claimed, so wait for two calls answered 503 before the
      // endpoint recovers: the listing then shows at least two attempts, the last one failed.
      await receiver.waitFor(2);
      const failing = await waitForDeliveries(server, app.id, (l) => l[0]?.attempts >= 2 && l[0]?.lastStatusCode === 503, 'flaky');
      expect(failing[0]).toMatchObject({ status: 'PENDING', lastStatusCode: 503, lastError: 'the endpoint answered 503', deliveredAt: null });
      expect(failing[0].nextAttemptAt).not.toBeNull();
      receiver.status = 200;
      const [done] = await waitForDeliveries(server, app.id, (l) => l[0]?.status === 'DELIVERED', 'flaky');
      expect(done).toMatchObject({ lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(done.attempts).toBeGreaterThanOrEqual(3);
      expect(done.attempts).toBe(receiver.received.length);
      expect(receiver.received.slice(0, 2).map((r) => r.answered)).toEqual([503, 503]);
      expect(receiver.received.at(-1)?.answered).toBe(200);
      expect(done.deliveredAt).not.toBeNull();
      // Every attempt carried the same event id, and each was signed.
      expect(new Set(receiver.received.map((r) => r.eventId))).toEqual(new Set([done.id]));
      expect(receiver.received.every((r) => r.verified && r.body.id === done.id)).toBe(true);
    } finally {
      await receiver.down();
    }
  });

  it('retries while the endpoint is down, and delivers once it is back', async () => {
    const receiver = await Receiver.start();
    await createEventFunction(server, app.id, receiver, ['createTag'], 'offline');
    await receiver.down();
    try {
      await app.data('mutation { createTag(input: { name: "while down" }) { changedTag { id } } }');
      const [failing] = await waitForDeliveries(server, app.id, (l) => l[0]?.attempts >= 2, 'offline');
      expect(failing).toMatchObject({ status: 'PENDING', lastStatusCode: null });
      expect(failing.lastError).toMatch(/ECONNREFUSED/);
      await receiver.up();
      const [body] = await receiver.waitFor(1);
      expect(body.event.after.name).toBe('while down');
      expect(body.id).toBe(failing.id);
      await waitForDeliveries(server, app.id, (l) => l[0]?.status === 'DELIVERED', 'offline');
    } finally {
      await receiver.down();
    }
  });

  it('marks an event dead once its retry window is over, and redelivers it on demand', async () => {
    const receiver = await Receiver.start();
    try {
      receiver.status = 500;
      await createEventFunction(server, app.id, receiver, ['createAuthor'], 'broken');
      await app.data('mutation { createAuthor(input: { name: "never heard" }) { changedAuthor { id } } }');
      const [dead] = await waitForDeliveries(server, app.id, (l) => l[0]?.status === 'DEAD', 'broken');
      expect(dead).toMatchObject({ lastStatusCode: 500, nextAttemptAt: null, deliveredAt: null });
      expect(dead.attempts).toBeGreaterThanOrEqual(2);
      const attempts = receiver.received.length;
      // Dead: no more attempts.
      await sleep(400);
      expect(receiver.received.length).toBe(attempts);
      receiver.status = 200;
      const again = await admin(server, REDELIVER, { i: { appId: app.id, deliveryId: dead.id } });
      expect(again.body.data.redeliver.delivery).toMatchObject({ id: dead.id, status: 'PENDING' });
      const [done] = await waitForDeliveries(server, app.id, (l) => l[0]?.status === 'DELIVERED', 'broken');
      expect(done.id).toBe(dead.id);
      expect(receiver.received.at(-1)?.eventId).toBe(dead.id);
      expect(receiver.received.at(-1)?.verified).toBe(true);
      // A delivered event can be sent again too.
      await admin(server, REDELIVER, { i: { appId: app.id, deliveryId: dead.id } });
      await receiver.waitFor(attempts + 2);
      expect(codeOf((await admin(server, REDELIVER, { i: { appId: app.id, deliveryId: '00000000-0000-4000-8000-000000000000' } })).body)).toBe('NOT_FOUND');
    } finally {
      await receiver.down();
    }
  });

  it('stops calling a deleted function: its pending deliveries go with it', async () => {
    const receiver = await Receiver.start();
    try {
      receiver.status = 500;
      await createEventFunction(server, app.id, receiver, ['deletePost'], 'removed');
      const id = (await app.data('mutation { createPost(input: { title: "gone soon" }) { changedPost { id } } }')).createPost.changedPost.id;
      await app.data('mutation($id: ID!) { deletePost(input: { id: $id }) { changedPost { id } } }', { id });
      await receiver.waitFor(1);
      await admin(server, 'mutation($i: DeleteFunctionInput!) { deleteFunction(input: $i) { deleted } }', { i: { appId: app.id, name: 'removed' } });
      const seen = receiver.received.length;
      await sleep(500);
      expect(receiver.received.length).toBeLessThanOrEqual(seen + 1);
      const settled = receiver.received.length;
      await sleep(500);
      expect(receiver.received.length).toBe(settled);
    } finally {
      await receiver.down();
    }
  });
});

describe.each(STORE_KINDS)('delivery across a restart (%s)', (kind) => {
  const secretKey = generateSecretKey();
  const key = generatePlatformKey();
  let store: Store;
  let dataDir: string | undefined;
  let closeTestStore: () => Promise<void>;

  beforeAll(async () => {
    const test = await openTestStore(kind);
    store = test.store;
    dataDir = test.dataDir;
    closeTestStore = test.close;
  });
  afterAll(async () => {
    if (kind === 'embedded') {
      await store?.close().catch(() => undefined);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    } else await closeTestStore?.();
  });

  async function serve(on: Store): Promise<{ app: FastifyInstance; base: string }> {
    const functions = { secrets: new SecretBox(secretKey), allowPrivate: true, schedule: FAST };
    const app = createServer({ store: on, admin: createAdminService(on, { functions }), adminKey: key, logLevel: 'silent', functions });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return { app, base: `http://127.0.0.1:${address.port}` };
  }

  it('delivers the events a stopped server left pending once a new one starts on the same store', async () => {
    const receiver = await Receiver.start();
    try {
      const first = await serve(store);
      const server = { base: first.base, key } as TestServer;
      const app = await createTestApp({ ...server, store } as TestServer, SCHEMA);
      await createEventFunction(server, app.id, receiver, ['createPost']);
      await receiver.down();
      for (const title of ['one', 'two', 'three']) await app.data(`mutation { createPost(input: { title: "${title}" }) { changedPost { id } } }`);
      await waitForDeliveries(server, app.id, (l) => l.length === 3 && l.every((d) => d.attempts >= 1));
      await first.app.close();
      if (kind === 'embedded') {
        // A real restart of the embedded store: closed, and opened again from its directory.
        await store.close();
        store = await openStore({ dataDir: dataDir as string });
      }
      await receiver.up();
      const second = await serve(store);
      try {
        const bodies = await receiver.waitFor(3);
        expect(bodies.map((b) => b.event.after.title).sort()).toEqual(['one', 'three', 'two']);
        expect(receiver.received.every((r) => r.verified)).toBe(true);
        const listed = await waitForDeliveries({ base: second.base, key } as TestServer, app.id, (l) => l.every((d) => d.status === 'DELIVERED'));
        expect(new Set(listed.map((d) => d.id))).toEqual(new Set(bodies.map((b) => b.id)));
      } finally {
        await second.app.close();
      }
    } finally {
      await receiver.down();
    }
  });
});
