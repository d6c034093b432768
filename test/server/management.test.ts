// The management API over real HTTP, against both stores: every operation of DESIGN.md
// section 7, its refusals (SCHEMA_INVALID, DESTRUCTIVE_CHANGE), dry runs and history.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, admin, jsonOf, startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

const V1 = 'type Post @model {\n  title: String!\n  body: Text\n}\n';
const V2 = 'type Post @model {\n  title: String!\n  body: Text\n  rating: Int\n}\n';
const V3 = 'type Post @model {\n  title: String!\n  rating: Int\n}\n';
const INVALID = 'type Post @model {\n  title: Strin\n  author: User @relation(name: "Lonely")\n}\n';

const CREATE = `mutation($input: CreateAppInput!) { createApp(input: $input) { app { id name endpoint schemaVersion } } }`;
const MIGRATE = `mutation($input: MigrateSchemaInput!) {
  migrateSchema(input: $input) { plan { kind description destructive } applied version }
}`;
const APP = `query($id: ID!) {
  app(id: $id) {
    id name endpoint schemaVersion createdAt schema
    settings { tokenLifetimeSeconds defaultPageSize maxPageSize maxDepth maxAliases maxTokens maxCost introspection fieldSuggestions statementTimeoutMs }
    history { version appliedAt steps }
    adminTokens { name createdAt }
  }
}`;

describe.each(STORE_KINDS)('management API (%s store)', (kind) => {
  let server: TestServer;
  let appId: string;

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates an app and reports its full endpoint URL', async () => {
    const reply = await admin(server, CREATE, { input: { name: 'blog', schema: V1 } });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    const app = reply.body.data.createApp.app;
    expect(app).toMatchObject({ name: 'blog', schemaVersion: 1 });
    expect(app.id).toMatch(/^[a-z][a-z0-9]{11}$/);
    expect(app.endpoint).toBe(`${server.base}/graphql/${app.id}`);
    appId = app.id;
  });

  it('refuses an invalid schema with every problem positioned', async () => {
    const reply = await admin(server, CREATE, { input: { name: 'broken', schema: INVALID } });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toBeNull();
    const [error] = reply.body.errors ?? [];
    expect(error?.extensions?.code).toBe('SCHEMA_INVALID');
    expect(error?.extensions?.problems).toEqual([
      expect.objectContaining({ line: 2, column: 10, message: expect.stringContaining('Strin') }),
      expect.objectContaining({ line: 3, message: expect.stringContaining('Lonely') }),
    ]);
  });

  it('answers 400 for a refusal when the client accepts application/graphql-response+json', async () => {
    const reply = await admin(
      server,
      CREATE,
      { input: { name: 'broken', schema: INVALID } },
      { accept: 'application/graphql-response+json' },
    );
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('SCHEMA_INVALID');
  });

  it('refuses a duplicate app name', async () => {
    const reply = await admin(server, CREATE, { input: { name: 'blog', schema: V1 } });
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  it('lists apps and finds one by id or by name, with settings, schema, history and tokens', async () => {
    const list = await admin(server, '{ apps { id name endpoint schemaVersion } }');
    expect(list.body.data.apps).toEqual([
      { id: appId, name: 'blog', endpoint: `${server.base}/graphql/${appId}`, schemaVersion: 1 },
    ]);
    const byId = await admin(server, APP, { id: appId });
    const byName = await admin(server, APP, { id: 'blog' });
    expect(byName.body.data).toEqual(byId.body.data);
    const app = byId.body.data.app;
    expect(app.schema).toBe(V1);
    expect(new Date(app.createdAt).toISOString()).toBe(app.createdAt);
    expect(app.settings).toEqual({
      tokenLifetimeSeconds: 15 * 24 * 3600,
      defaultPageSize: 100,
      maxPageSize: 1000,
      maxDepth: 15,
      maxAliases: 30,
      maxTokens: 5000,
      maxCost: 50000,
      introspection: true,
      fieldSuggestions: true,
      statementTimeoutMs: 10000,
    });
    expect(app.history).toEqual([{ version: 1, appliedAt: expect.any(String), steps: expect.any(Number) }]);
    expect(app.adminTokens).toEqual([]);
  });

  it('answers null for an unknown app', async () => {
    const reply = await admin(server, APP, { id: 'nosuchapp' });
    expect(reply.body).toEqual({ data: { app: null } });
  });

  it('dry-runs a migration: the plan and the version it would create, nothing applied', async () => {
    const reply = await admin(server, MIGRATE, { input: { appId, schema: V2, dryRun: true } });
    const result = reply.body.data.migrateSchema;
    expect(result).toMatchObject({ applied: false, version: 2 });
    expect(result.plan).toContainEqual({ kind: 'addField', description: expect.stringContaining('rating'), destructive: false });
    expect(result.plan.filter((s: { destructive: boolean }) => s.destructive)).toEqual([]);
    const app = await admin(server, APP, { id: appId });
    expect(app.body.data.app.schemaVersion).toBe(1);
  });

  it('applies an additive migration as a new version', async () => {
    const reply = await admin(server, MIGRATE, { input: { appId, schema: V2 } });
    expect(reply.body.data.migrateSchema).toMatchObject({ applied: true, version: 2 });
    const same = await admin(server, MIGRATE, { input: { appId: 'blog', schema: V2 } });
    expect(same.body.data.migrateSchema).toEqual({ plan: [], applied: false, version: 2 });
  });

  it('refuses destructive steps unless allowed, listing them and applying nothing', async () => {
    const refused = await admin(server, MIGRATE, { input: { appId, schema: V3 } });
    const [error] = refused.body.errors ?? [];
    expect(error?.extensions?.code).toBe('DESTRUCTIVE_CHANGE');
    expect(error?.extensions?.steps).toEqual([{ kind: 'dropField', description: expect.stringContaining('body') }]);
    expect((await admin(server, APP, { id: appId })).body.data.app.schemaVersion).toBe(2);

    const dry = await admin(server, MIGRATE, { input: { appId, schema: V3, dryRun: true } });
    expect(dry.body.data.migrateSchema).toMatchObject({ applied: false, version: 3 });
    expect(dry.body.data.migrateSchema.plan).toContainEqual(expect.objectContaining({ kind: 'dropField', destructive: true }));

    const allowed = await admin(server, MIGRATE, { input: { appId, schema: V3, allowDestructive: true } });
    expect(allowed.body.data.migrateSchema).toMatchObject({ applied: true, version: 3 });
  });

  it('lists every version in the history, the live one last', async () => {
    const app = (await admin(server, APP, { id: appId })).body.data.app;
    expect(app.schema).toBe(V3);
    expect(app.history.map((h: { version: number }) => h.version)).toEqual([1, 2, 3]);
    expect(app.history[2].steps).toBeGreaterThanOrEqual(1);
  });

  it('refuses an invalid schema push with its problems', async () => {
    const reply = await admin(server, MIGRATE, { input: { appId, schema: INVALID } });
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('SCHEMA_INVALID');
    expect(reply.body.errors?.[0]?.extensions?.problems).toHaveLength(2);
  });

  it('updates settings, changing only those given, and refuses out-of-range values', async () => {
    const update = `mutation($input: UpdateAppInput!) { updateApp(input: $input) { app { id settings { maxDepth defaultPageSize introspection } } } }`;
    const reply = await admin(server, update, { input: { appId, settings: { maxDepth: 12, introspection: false } } });
    expect(reply.body.data.updateApp.app).toEqual({
      id: appId,
      settings: { maxDepth: 12, defaultPageSize: 100, introspection: false },
    });
    const refused = await admin(server, update, { input: { appId, settings: { maxPageSize: 0 } } });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('creates, lists and revokes admin tokens', async () => {
    const create = `mutation($input: CreateAdminTokenInput!) { createAdminToken(input: $input) { token } }`;
    const revoke = `mutation($input: RevokeAdminTokenInput!) { revokeAdminToken(input: $input) { revoked } }`;
    const created = await admin(server, create, { input: { appId, name: 'ci' } });
    expect(created.body.data.createAdminToken.token).toMatch(/^tat_[A-Za-z0-9_-]{43}$/);
    const tokens = (await admin(server, APP, { id: appId })).body.data.app.adminTokens;
    expect(tokens).toEqual([{ name: 'ci', createdAt: expect.any(String) }]);
    expect((await admin(server, revoke, { input: { appId, name: 'ci' } })).body.data.revokeAdminToken).toEqual({ revoked: true });
    expect((await admin(server, revoke, { input: { appId, name: 'ci' } })).body.data.revokeAdminToken).toEqual({ revoked: false });
    const missing = await admin(server, create, { input: { appId: 'nosuchapp', name: 'ci' } });
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('serves the data API at a live app endpoint and 404 at an unknown one', async () => {
    const ask = (headers: Record<string, string>) =>
      fetch(`${server.base}/graphql/${appId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ viewer { id } }' }),
      });
    const anonymous = await ask({});
    expect(anonymous.status).toBe(200);
    expect(await jsonOf(anonymous)).toEqual({ data: { viewer: { id: expect.any(String) } } });
    const token = (await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: 'data' } })).body.data.createAdminToken.token;
    const allowed = await jsonOf(await ask({ authorization: `Bearer ${token}` }));
    expect(allowed).toEqual({ data: { viewer: { id: expect.any(String) } } });
    const forged = await ask({ authorization: 'Bearer tat_forged' });
    expect(forged.status).toBe(401);
    expect((await jsonOf(forged)).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const byName = await fetch(`${server.base}/graphql/blog`);
    expect(byName.status).toBe(404);
    const unknown = await fetch(`${server.base}/graphql/nosuchapp?query=%7Bx%7D`);
    expect(unknown.status).toBe(404);
    expect((await jsonOf(unknown)).errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('serves queries over GET and refuses mutations over GET', async () => {
    const headers = { authorization: `Bearer ${server.key}` };
    const query = await fetch(`${server.base}/admin/graphql?query=${encodeURIComponent('{ apps { name } }')}`, { headers });
    expect(query.status).toBe(200);
    expect(await jsonOf(query)).toEqual({ data: { apps: [{ name: 'blog' }] } });
    const mutation = encodeURIComponent('mutation { deleteApp(input: { appId: "blog" }) { deleted } }');
    const refused = await fetch(`${server.base}/admin/graphql?query=${mutation}`, { headers });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
  });

  it('deletes an app: it disappears from the API and its endpoint answers 404', async () => {
    const remove = `mutation($input: DeleteAppInput!) { deleteApp(input: $input) { deleted } }`;
    expect((await admin(server, remove, { input: { appId } })).body.data.deleteApp).toEqual({ deleted: true });
    expect((await admin(server, remove, { input: { appId } })).body.data.deleteApp).toEqual({ deleted: false });
    expect((await admin(server, APP, { id: appId })).body.data.app).toBeNull();
    expect((await admin(server, '{ apps { id } }')).body.data.apps).toEqual([]);
    const endpoint = await fetch(`${server.base}/graphql/${appId}`, { method: 'POST' });
    expect(endpoint.status).toBe(404);
    expect((await jsonOf(endpoint)).errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('reports validation errors with suggestions, and answers introspection', async () => {
    const typo = await admin(server, '{ aps { id } }');
    expect(typo.status).toBe(200);
    expect(typo.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/Did you mean .*"apps"/),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const introspection = await admin(server, '{ __type(name: "MigrateSchemaInput") { inputFields { name } } }');
    expect(introspection.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual([
      'appId',
      'schema',
      'dryRun',
      'allowDestructive',
    ]);
  });
});
