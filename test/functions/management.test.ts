// Functions in the management API on both stores: created with a secret answered once (never in
// a listing, the catalog or the logs, stored sealed like header values), every bad input refused
// with a coded error and nothing stored, changed (the secret rotated), deleted; and isolation: an
// app's admin token reaches no function, and one app's id never reaches another app's functions
// or deliveries.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { CREATE, DELETE, REDELIVER, Receiver, SCHEMA, UPDATE, codeOf, createEventFunction, deliveries, startFunctionsServer, waitForDeliveries } from './harness.js';

const LIST = 'query($id: ID!) { app(id: $id) { functions { name kind url operations headers { name } timeoutMs enabled order createdAt updatedAt } } }';

describe.each(STORE_KINDS)('functions in the management API (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    app = await createTestApp(server, SCHEMA);
    other = await createTestApp(server, SCHEMA);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.down();
  });

  const create = (input: Record<string, unknown>) => admin(server, CREATE, { i: { appId: app.id, kind: 'EVENT', url: receiver.url, operations: ['createPost'], ...input } });
  const list = async (appId: string): Promise<Json[]> => (await admin(server, LIST, { id: appId })).body.data.app.functions;

  it('creates a function and answers its secret once, and never again', async () => {
    const reply = await create({ name: 'audit', headers: [{ name: 'Authorization', value: 'Bearer endpoint-token-91ab' }], timeoutMs: 2000, order: 3 });
    expect(reply.body.errors).toBeUndefined();
    const { function: fn, secret } = reply.body.data.createFunction;
    expect(secret).toMatch(/^tfs_[A-Za-z0-9_-]{43}$/);
    expect(fn).toEqual({ name: 'audit', kind: 'EVENT', url: receiver.url, operations: ['createPost'], headers: [{ name: 'Authorization' }], timeoutMs: 2000, enabled: true, order: 3 });
    const listed = await list(app.id);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(JSON.stringify(listed)).not.toContain('endpoint-token-91ab');
    // No field of the API holds a secret or a header value.
    const fields = await admin(server, '{ f: __type(name: "AppFunction") { fields { name } } h: __type(name: "FunctionHeader") { fields { name } } }');
    expect(fields.body.data.f.fields.map((f: Json) => f.name)).not.toContain('secret');
    expect(fields.body.data.h.fields.map((f: Json) => f.name)).toEqual(['name']);
    // Stored sealed: the catalog holds neither in clear.
    const { rows } = await server.store.query<{ s: string; h: string }>(sql`SELECT secret_sealed AS s, headers::text AS h FROM tessera.functions WHERE app_id = ${app.id}`);
    expect(rows[0]?.s).toMatch(/^v1\./);
    expect(rows[0]?.s).not.toContain(secret);
    expect(rows[0]?.h).not.toContain('endpoint-token-91ab');
    // Nor the logs.
    expect(JSON.stringify(server.logs)).not.toContain(secret);
    expect(JSON.stringify(server.logs)).not.toContain('endpoint-token-91ab');
  });

  it.each([
    ['a name with a space', { name: 'bad name' }, 'name'],
    ['a name starting with a digit', { name: '1hook' }, 'name'],
    ['an unknown operation', { name: 'x1', operations: ['createNothing'] }, 'operations'],
    ['an account mutation for an EVENT function', { name: 'x2', operations: ['loginUser'] }, 'operations'],
    ['an EVENT function without operations', { name: 'x3', operations: [] }, 'operations'],
    ['a RESOLVER with operations', { name: 'x4', kind: 'RESOLVER', operations: ['createPost'] }, 'operations'],
    ['an ftp URL', { name: 'x5', url: 'ftp://example.com/hook' }, 'url'],
    ['a relative URL', { name: 'x6', url: '/hook' }, 'url'],
    ['a URL with credentials', { name: 'x7', url: 'https://user:pw@example.com/hook' }, 'url'],
    ['a timeout too short', { name: 'x8', timeoutMs: 50 }, 'timeoutMs'],
    ['a timeout too long', { name: 'x9', timeoutMs: 40_000 }, 'timeoutMs'],
    ['a header Tessera sets', { name: 'x10', headers: [{ name: 'Tessera-Signature', value: 'forged' }] }, 'headers[0]'],
    ['a header name that is not one', { name: 'x11', headers: [{ name: 'Bad Header', value: 'v' }] }, 'headers[0]'],
    ['a header value with a line break', { name: 'x12', headers: [{ name: 'X-Key', value: 'a\r\nX-Injected: 1' }] }, 'headers[0]'],
    ['a header given twice', { name: 'x13', headers: [{ name: 'X-Key', value: 'a' }, { name: 'x-key', value: 'b' }] }, 'headers[1]'],
    ['an order out of range', { name: 'x14', order: 1_000_000 }, 'order'],
  ])('refuses %s with BAD_USER_INPUT, storing nothing', async (_what, input, field) => {
    const reply = await create(input);
    expect(codeOf(reply.body)).toBe('BAD_USER_INPUT');
    expect(reply.body.errors[0].extensions.field).toBe(field);
    expect((await list(app.id)).map((f) => f.name)).not.toContain(input.name);
  });

  it('refuses an unknown kind (the enum) and a second function of one name', async () => {
    expect(codeOf((await create({ name: 'kindless', kind: 'AFTER' })).body)).toBe('BAD_USER_INPUT');
    expect(codeOf((await create({ name: 'twice' })).body)).toBeUndefined();
    const again = await create({ name: 'twice' });
    expect(codeOf(again.body)).toBe('CONFLICT');
  });

  it('accepts a RESOLVER without operations and a BEFORE function on any mutation of the app', async () => {
    expect((await create({ name: 'quotes', kind: 'RESOLVER', operations: [] })).body.errors).toBeUndefined();
    expect((await create({ name: 'guard', kind: 'BEFORE', operations: ['createPost', 'loginUser'] })).body.errors).toBeUndefined();
  });

  it('changes a function, rotates its secret, and deletes it', async () => {
    const created = await create({ name: 'rotating', headers: [{ name: 'X-Key', value: 'one' }] });
    const first: string = created.body.data.createFunction.secret;
    const changed = await admin(server, UPDATE, { i: { appId: app.id, name: 'rotating', operations: ['createPost', 'deletePost'], timeoutMs: 1000, enabled: false, headers: [] } });
    expect(changed.body.data.updateFunction).toEqual({
      function: expect.objectContaining({ operations: ['createPost', 'deletePost'], timeoutMs: 1000, enabled: false, headers: [] }),
      secret: null,
    });
    const rotated = await admin(server, UPDATE, { i: { appId: app.id, name: 'rotating', rotateSecret: true } });
    const second: string = rotated.body.data.updateFunction.secret;
    expect(second).toMatch(/^tfs_/);
    expect(second).not.toBe(first);
    expect(JSON.stringify(server.logs)).not.toContain(second);
    expect(codeOf((await admin(server, UPDATE, { i: { appId: app.id, name: 'rotating', url: 'gopher://x' } })).body)).toBe('BAD_USER_INPUT');
    expect(codeOf((await admin(server, UPDATE, { i: { appId: app.id, name: 'rotating', operations: ['nope'] } })).body)).toBe('BAD_USER_INPUT');
    expect(codeOf((await admin(server, UPDATE, { i: { appId: app.id, name: 'absent', enabled: true } })).body)).toBe('NOT_FOUND');
    expect((await admin(server, DELETE, { i: { appId: app.id, name: 'rotating' } })).body.data.deleteFunction.deleted).toBe(true);
    expect((await admin(server, DELETE, { i: { appId: app.id, name: 'rotating' } })).body.data.deleteFunction.deleted).toBe(false);
    expect(codeOf((await admin(server, DELETE, { i: { appId: 'nosuchappxyz', name: 'rotating' } })).body)).toBe('NOT_FOUND');
  });

  it("keeps each app's functions and deliveries to itself", async () => {
    const fn = await createEventFunction(server, app.id, receiver, ['createTag'], 'isolated');
    await app.data('mutation { createTag(input: { name: "t" }) { changedTag { id } } }');
    const [delivery] = await waitForDeliveries(server, app.id, (l) => l.length === 1, 'isolated');
    // The other app sees none of them, and cannot reach them by name or by id.
    expect((await list(other.id)).map((f) => f.name)).not.toContain('isolated');
    expect((await admin(server, 'query($id: ID!) { app(id: $id) { function(name: "isolated") { name } } }', { id: other.id })).body.data.app.function).toBeNull();
    expect(codeOf((await admin(server, UPDATE, { i: { appId: other.id, name: 'isolated', url: 'http://127.0.0.1:1/x' } })).body)).toBe('NOT_FOUND');
    expect((await admin(server, DELETE, { i: { appId: other.id, name: 'isolated' } })).body.data.deleteFunction.deleted).toBe(false);
    expect(codeOf((await admin(server, REDELIVER, { i: { appId: other.id, deliveryId: delivery.id } })).body)).toBe('NOT_FOUND');
    expect(codeOf((await admin(server, REDELIVER, { i: { appId: app.id, deliveryId: "x' OR 1=1 --" } })).body)).toBe('BAD_USER_INPUT');
    expect(fn.function.name).toBe('isolated');
    expect(await deliveries(server, app.id, 'isolated')).toHaveLength(1);
    // An app's admin token is no platform key: the management API refuses it.
    const withAppToken = await admin({ base: server.base, key: app.token }, LIST, { id: app.id });
    expect(withAppToken.status).toBe(401);
    expect(codeOf(withAppToken.body)).toBe('UNAUTHENTICATED');
    // And the app's own API has no field that reaches functions.
    const probe = await app.gql('{ functions { name } }');
    expect(codeOf(probe.body)).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('lists deliveries within bounds only', async () => {
    const reply = await admin(server, 'query($id: ID!) { app(id: $id) { function(name: "isolated") { deliveries(first: 1000) { id } } } }', { id: app.id });
    expect(codeOf(reply.body)).toBe('BAD_USER_INPUT');
  });
});

describe.each(STORE_KINDS)('function addresses without TESSERA_FUNCTIONS_ALLOW_PRIVATE (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startFunctionsServer(kind, { allowPrivate: false });
    app = await createTestApp(server, SCHEMA);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.down();
  });

  it.each(['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/hook', 'http://[::ffff:127.0.0.1]/hook', 'http://192.168.0.10/hook'])(
    'refuses the literal private address %s at creation',
    async (url) => {
      const reply = await admin(server, CREATE, { i: { appId: app.id, name: 'ssrf', kind: 'EVENT', url, operations: ['createPost'] } });
      expect(codeOf(reply.body)).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].extensions.field).toBe('url');
    },
  );

  it('refuses at each call a host name that resolves to a loopback address, and records why', async () => {
    // `localhost` is a name: accepted when stored, refused on the address it resolves to.
    const url = `http://localhost:${receiver.port}/hook`;
    const created = await admin(server, CREATE, { i: { appId: app.id, name: 'named', kind: 'EVENT', url, operations: ['createPost'] } });
    expect(created.body.errors).toBeUndefined();
    await app.data('mutation { createPost(input: { title: "to a private address" }) { changedPost { id } } }');
    const [delivery] = await waitForDeliveries(server, app.id, (l) => l.length === 1 && l[0].attempts >= 1 && l[0].lastError !== null, 'named');
    expect(delivery).toMatchObject({ status: 'PENDING', lastStatusCode: null });
    expect(delivery.lastError).toMatch(/private, loopback or link-local/);
    expect(receiver.received).toEqual([]);
  });
});
