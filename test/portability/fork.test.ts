// forkApp on both stores: a new app with the same schema, settings and rows (ids included),
// made inside the database, independent of its original from then on; migrations of the fork
// leave the original alone; users of the fork log in with their passwords; refusals are coded.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS } from '../api/harness.js';
import { PASSWORD, SCHEMA_V2, filledApp, footprint, tableRows } from './harness.js';
import type { FilledApp } from './harness.js';

const FORK = 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id name schemaVersion endpoint settings { maxDepth } } warnings } }';

async function gqlAt(server: TestServer, appId: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
  const response = await fetch(`${server.base}/graphql/${appId}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
  return response.json();
}

describe.each(STORE_KINDS)('forkApp (%s)', (kind) => {
  let server: TestServer;
  let source: FilledApp;
  let fork: Json;
  let forkToken: string;

  beforeAll(async () => {
    server = await startTestServer(kind);
    source = await filledApp(server);
    const reply = await admin(server, FORK, { i: { appId: source.app.id, name: `fork${Math.random().toString(36).slice(2, 8)}` } });
    expect(reply.body.errors).toBeUndefined();
    fork = reply.body.data.forkApp;
    const token = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: fork.app.id, name: 'tests' } });
    forkToken = token.body.data.createAdminToken.token;
  }, 120_000);
  afterAll(() => server?.close());

  it('copies every row, ids included, with the schema (version 1) and settings', async () => {
    expect(fork.app).toMatchObject({ schemaVersion: 1, settings: { maxDepth: 12 } });
    expect(fork.warnings).toEqual([]);
    const schema = await admin(server, 'query($id: ID!) { app(id: $id) { schema } }', { id: fork.app.id });
    expect(schema.body.data.app.schema).toBe(SCHEMA_V2);
    const [a, b] = [await tableRows(server, source.app.id), await tableRows(server, fork.app.id as string)];
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
    expect(Object.keys(b)).toEqual(Object.keys(a));
  });

  it('is independent: writes to either side stay there; users log in on both', async () => {
    const posts = '{ viewer { allPosts { aggregations { count } } } }';
    await gqlAt(server, fork.app.id, forkToken, 'mutation { createPost(input: { title: "Only in the fork" }) { changedPost { id } } }');
    const first = (await source.app.data('{ viewer { allPosts(where: { title: { eq: "First" } }) { edges { node { id } } } } }')).viewer.allPosts.edges[0].node.id;
    await source.app.data('mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { id } } }', { i: { id: first, title: 'Changed in the original' } });
    expect((await source.app.data(posts)).viewer.allPosts.aggregations.count).toBe(33);
    expect((await gqlAt(server, fork.app.id, forkToken, posts)).data.viewer.allPosts.aggregations.count).toBe(34);
    const inFork = await gqlAt(server, fork.app.id, forkToken, 'query($id: ID!) { getPost(id: $id) { title } }', { id: first });
    expect(inFork.data.getPost.title).toBe('First');
    const login = await fetch(`${server.base}/graphql/${fork.app.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', variables: { i: { username: 'bob', password: PASSWORD } } }) });
    expect(((await login.json()) as Json).data.loginUser.token).toEqual(expect.any(String));
    // A token of the original is worthless in the fork.
    const old = await fetch(`${server.base}/graphql/${fork.app.id}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${source.bobToken}` }, body: JSON.stringify({ query: '{ viewer { id } }' }) });
    expect(old.status).toBe(401);
  });

  it('a migration tried on the fork leaves the original as it was', async () => {
    const migrated = await admin(server, 'mutation($i: MigrateSchemaInput!) { migrateSchema(input: $i) { applied version } }', {
      i: { appId: fork.app.id, schema: SCHEMA_V2.replace('  rating: Float\n', ''), allowDestructive: true },
    });
    expect(migrated.body.data.migrateSchema).toEqual({ applied: true, version: 2 });
    const original = await source.app.gql('{ viewer { allPosts(first: 1) { edges { node { rating } } } } }');
    expect(original.body.errors).toBeUndefined();
    const schema = await admin(server, 'query($id: ID!) { app(id: $id) { schemaVersion } }', { id: source.app.id });
    expect(schema.body.data.app.schemaVersion).toBe(2);
  });

  it('refusals are coded and leave nothing: an unknown app, a bad or taken name, no platform key', async () => {
    const before = await footprint(server);
    const unknown = await admin(server, FORK, { i: { appId: 'nosuchapp000', name: 'x1' } });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const badName = await admin(server, FORK, { i: { appId: source.app.id, name: '../x' } });
    expect(badName.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const taken = await admin(server, FORK, { i: { appId: source.app.id, name: fork.app.name } });
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
    const noKey = await admin({ base: server.base, key: 'tsk_wrong' }, FORK, { i: { appId: source.app.id, name: 'x2' } });
    expect(noKey.status).toBe(401);
    expect(await footprint(server)).toEqual(before);
  });
});
