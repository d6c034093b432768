// Durable removal of file bytes, through the real server on both stores and both drivers:
// deleting a File or its app queues the bytes in the same transaction and the worker removes
// them within seconds; a rolled-back delete removes nothing; the queue lives in the database,
// so a worker of a fresh instance finishes what another left; and an S3 store that is down
// for a while gets the removal once it is back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileRemover } from '../../src/files/index.js';
import { listFileRemovals } from '../../src/store/index.js';
import { admin, STORE_KINDS } from '../server/harness.js';
import { DRIVER_KINDS, createTestApp, eventually, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer } from './harness.js';

const COMBOS = STORE_KINDS.flatMap((kind) => DRIVER_KINDS.map((driver) => [kind, driver] as const));
const DELETE = 'mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { name } } }';

describe.each(COMBOS)('file removal (%s store, %s storage)', (kind, driver) => {
  let fs: FileServer;
  beforeAll(async () => {
    fs = await startFileServer(kind, driver);
  });
  afterAll(async () => fs?.close());

  it("removes a deleted File's bytes within seconds, and no one else's", async () => {
    const app = await createTestApp(fs.server, '');
    const alice = await signUp(app, 'alice');
    const doomed = (await uploadFile(app, alice.headers, { filename: 'a.txt', bytes: 'doomed' })).body.data.createFile.changedFile;
    const kept = (await uploadFile(app, alice.headers, { filename: 'b.txt', bytes: 'kept' })).body.data.createFile.changedFile;
    expect(await fs.stored(app.id)).toHaveLength(2);
    const reply = await app.gql(DELETE, { i: { id: doomed.id } }, alice.headers);
    expect(reply.body.data.deleteFile.changedFile.name).toBe('a.txt');
    expect(await eventually(async () => (await fs.stored(app.id)).length === 1)).toBe(true);
    expect(await (await fetch(kept.url)).text()).toBe('kept');
    expect(await eventually(async () => (await listFileRemovals(fs.server.store, app.id)).length === 0)).toBe(true);
  });

  it('removes nothing for a delete that is refused', async () => {
    const app = await createTestApp(fs.server, '');
    const alice = await signUp(app, 'alice');
    const bob = await signUp(app, 'bob');
    const file = (await uploadFile(app, alice.headers, { filename: 'a.txt', bytes: 'mine' })).body.data.createFile.changedFile;
    const reply = await app.gql(DELETE, { i: { id: file.id } }, bob.headers);
    expect(reply.body.data.deleteFile.changedFile).toBeNull();
    expect(await listFileRemovals(fs.server.store, app.id)).toEqual([]);
    expect(await (await fetch(file.url)).text()).toBe('mine');
  });

  it("removes every byte of a deleted app, and only that app's", async () => {
    const doomed = await createTestApp(fs.server, '');
    const kept = await createTestApp(fs.server, '');
    for (const app of [doomed, kept]) {
      const user = await signUp(app, 'user');
      for (const name of ['1.txt', '2.txt']) await uploadFile(app, user.headers, { filename: name, bytes: name });
    }
    const removed = await admin(fs.server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: doomed.id } });
    expect(removed.body.data.deleteApp.deleted).toBe(true);
    expect(await eventually(async () => (await fs.stored(doomed.id)).length === 0)).toBe(true);
    expect(await fs.stored(kept.id)).toHaveLength(2);
    expect(await eventually(async () => (await listFileRemovals(fs.server.store, doomed.id)).length === 0)).toBe(true);
  });
});

describe.each(STORE_KINDS)('the removal queue is durable (%s store)', (kind) => {
  it("is finished by another worker when this instance's never ran (a restart, another instance)", async () => {
    // An instance that removes nothing itself (as one that stopped before its worker ran).
    const fs = await startFileServer(kind, 'disk', { removals: false });
    try {
      const app = await createTestApp(fs.server, '');
      const alice = await signUp(app, 'alice');
      const file = (await uploadFile(app, alice.headers, { filename: 'a.txt', bytes: 'bytes' })).body.data.createFile.changedFile;
      await app.gql(DELETE, { i: { id: file.id } }, alice.headers);
      expect((await listFileRemovals(fs.server.store, app.id)).map((r) => r.pendingUpload)).toEqual([false]);
      expect(await fs.stored(app.id)).toHaveLength(1);
      // What a fresh instance's worker does at its start.
      const fresh = new FileRemover(fs.server.store, fs.storage);
      expect(await fresh.runOnce()).toBe(1);
      expect(await fs.stored(app.id)).toEqual([]);
      expect(await listFileRemovals(fs.server.store, app.id)).toEqual([]);
    } finally {
      await fs.close();
    }
  });

  it('retries while the S3 store is down, and removes the bytes once it is back', async () => {
    const fs = await startFileServer(kind, 's3');
    try {
      const app = await createTestApp(fs.server, '');
      const alice = await signUp(app, 'alice');
      const file = (await uploadFile(app, alice.headers, { filename: 'a.txt', bytes: 'bytes' })).body.data.createFile.changedFile;
      const s3 = fs.s3 as NonNullable<typeof fs.s3>;
      await s3.stop();
      const reply = await app.gql(DELETE, { i: { id: file.id } }, alice.headers);
      expect(reply.body.data.deleteFile.changedFile.name).toBe('a.txt');
      // Tried and failed while the store is down: the entry stays, with why.
      expect(await eventually(async () => (await listFileRemovals(fs.server.store, app.id)).some((r) => r.attempts > 0 && r.lastError !== null))).toBe(true);
      await s3.start();
      expect(await eventually(async () => (await listFileRemovals(fs.server.store, app.id)).length === 0, 30_000)).toBe(true);
      expect(await fs.stored(app.id)).toEqual([]);
    } finally {
      await fs.close();
    }
  });
});
