// An app's functions travel with it, on both stores: the archive holds them with their secret
// and header values sealed (never in clear); an import (same server key) or a fork brings them
// back disabled, with a warning, so a copy never calls the endpoint until it is turned on. The
// import keeps the signing secret (calls verify as before); a fork's functions get new ones.
// On a server with another secret key, they stay behind with a warning.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/functions/index.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import { admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { FUNCTION_FIELDS, Receiver, SCHEMA, UPDATE, createEventFunction, deliveries, startFunctionsServer } from '../functions/harness.js';
import { appAt, archiveLines, exportArchive, importArchive } from './harness.js';

const HEADER_VALUE = 'endpoint-key-9c1e';
const LIST = `query($id: ID!) { app(id: $id) { functions { ${FUNCTION_FIELDS} } } }`;
const CREATE_POST = 'mutation($t: String!) { createPost(input: { title: $t }) { changedPost { id } } }';
const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

describe.each(STORE_KINDS)('functions in export, import and fork (%s)', (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  let sourceId: string;
  let secret: string;
  let archive: Buffer;
  let listed: Json[];

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    receiver = await Receiver.start();
    const app = await createTestApp(server, SCHEMA);
    sourceId = app.id;
    const created = await createEventFunction(server, app.id, receiver, ['createPost'], 'hook', { headers: [{ name: 'X-Api-Key', value: HEADER_VALUE }], timeoutMs: 2500, order: 3 });
    secret = created.secret;
    listed = (await admin(server, LIST, { id: app.id })).body.data.app.functions;
    archive = await exportArchive(server, app.id);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await receiver?.down();
  });

  /** The calls the receiver got from an app. */
  const callsFrom = (appId: string) => receiver.received.filter((r) => r.body.app === appId);

  async function waitForCall(appId: string): Promise<(typeof receiver.received)[number]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const call = callsFrom(appId)[0];
      if (call) return call;
      if (Date.now() > deadline) throw new Error(`no call from ${appId}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('the archive holds a function record with its secret and header values sealed, never in clear', () => {
    const text = archiveLines(archive).join('\n');
    const record = archiveLines(archive).map((l) => JSON.parse(l) as Json).find((r) => r.kind === 'function');
    expect(record).toMatchObject({ name: 'hook', functionKind: 'EVENT', url: receiver.url, operations: ['createPost'], enabled: true, timeoutMs: 2500, order: 3, headers: [{ name: 'X-Api-Key' }] });
    expect(typeof record.sealedSecret).toBe('string');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(HEADER_VALUE);
  });

  it('imported, the function arrives disabled with a warning, calls nothing until turned on, then signs with its old secret', async () => {
    const reply = await importArchive(server, archive, unique('copy'));
    expect(reply.body.errors).toBeUndefined();
    const appId: string = reply.body.app.id;
    expect(reply.body.warnings).toEqual([expect.stringMatching(/Function "hook" was carried over disabled/)]);
    const functions = (await admin(server, LIST, { id: appId })).body.data.app.functions;
    expect(functions).toEqual(listed.map((f) => ({ ...f, enabled: false })));

    const app = await appAt(server, appId);
    await app.data(CREATE_POST, { t: 'while disabled' });
    expect(await deliveries(server, appId)).toEqual([]);

    const enabled = await admin(server, UPDATE, { i: { appId, name: 'hook', enabled: true } });
    expect(enabled.body.errors).toBeUndefined();
    expect(enabled.body.data.updateFunction.secret).toBeNull();
    await app.data(CREATE_POST, { t: 'once enabled' });
    const call = await waitForCall(appId);
    expect(call.body.event.after.title).toBe('once enabled');
    expect(call.verified).toBe(true);
    expect(call.headers['x-api-key']).toBe(HEADER_VALUE);
  });

  it('forked, the function arrives disabled with a new secret: the old one no longer verifies its calls', async () => {
    const reply = await admin(server, 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id } warnings } }', { i: { appId: sourceId, name: unique('fork') } });
    expect(reply.body.errors).toBeUndefined();
    const forkId: string = reply.body.data.forkApp.app.id;
    expect(reply.body.data.forkApp.warnings).toEqual([expect.stringMatching(/Function "hook" was copied disabled, with a new signing secret/)]);
    expect((await admin(server, LIST, { id: forkId })).body.data.app.functions).toEqual(listed.map((f) => ({ ...f, enabled: false })));

    const app = await appAt(server, forkId);
    await app.data(CREATE_POST, { t: 'fork disabled' });
    expect(await deliveries(server, forkId)).toEqual([]);
    await admin(server, UPDATE, { i: { appId: forkId, name: 'hook', enabled: true } });
    await app.data(CREATE_POST, { t: 'fork enabled' });
    const call = await waitForCall(forkId);
    expect(call.verified).toBe(false);
    expect(call.headers['x-api-key']).toBe(HEADER_VALUE);

    const rotated = await admin(server, UPDATE, { i: { appId: forkId, name: 'hook', rotateSecret: true } });
    const fresh: string = rotated.body.data.updateFunction.secret;
    expect(fresh).not.toBe(secret);
    await app.data(CREATE_POST, { t: 'fork rotated' });
    const deadline = Date.now() + 15_000;
    while (!callsFrom(forkId).some((c) => c.body.event.after.title === 'fork rotated') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const last = callsFrom(forkId).find((c) => c.body.event.after.title === 'fork rotated');
    expect(last && verifySignature(fresh, last.headers['tessera-signature'] as string, last.raw, 300)).toBe(true);
    // The original's function is untouched: still enabled, still signing with its secret.
    expect((await admin(server, LIST, { id: sourceId })).body.data.app.functions).toEqual(listed);
  });

  it('on a server with another secret key, the function stays behind with a warning; the rest imports', async () => {
    const other = await startFunctionsServer(kind);
    try {
      const reply = await importArchive(other, archive, 'elsewhere');
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.warnings).toEqual([expect.stringMatching(/Function "hook" was not carried over: .*sealed under another server's secret key/)]);
      expect((await admin(other, LIST, { id: reply.body.app.id })).body.data.app.functions).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
