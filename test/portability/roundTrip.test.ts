// Export and import over HTTP on both stores: an app with every relation kind, embedded values,
// lists, enums, JSON and DateTime, users, roles, two-factor factors and trusted documents comes
// back as a new app equal row for row, ids included; its users log in with their old passwords
// (and still need their codes), tokens of the old app are worthless there, and the export is
// one point in time even while writes go on.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS } from '../api/harness.js';
import { PASSWORD, SCHEMA_V2, archiveLines, exportArchive, filledApp, importArchive, packWithTrailer, tableRows } from './harness.js';
import type { FilledApp } from './harness.js';

const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token user { id } } }';
const APP = 'query($id: ID!) { app(id: $id) { id name schema schemaVersion settings { maxDepth defaultPageSize maxPageSize } trustedDocuments { count enforce } } }';

async function gqlAt(server: TestServer, appId: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server.base}/graphql/${appId}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  return { status: response.status, body: (await response.json()) as Json };
}

describe.each(STORE_KINDS)('export and import (%s)', (kind) => {
  let server: TestServer;
  let source: FilledApp;
  let archive: Buffer;
  let imported: Json;

  beforeAll(async () => {
    server = await startTestServer(kind);
    source = await filledApp(server);
    archive = await exportArchive(server, source.app.id);
    const reply = await importArchive(server, archive, `copy${Math.random().toString(36).slice(2, 8)}`);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.status).toBe(200);
    imported = reply.body;
  }, 120_000);
  afterAll(() => server?.close());

  it('the archive is gzip-compressed JSON lines: header, schema, settings, tables with their rows, account records, trailer', () => {
    const lines = archiveLines(archive).map((l) => JSON.parse(l) as Json);
    expect(lines[0]).toMatchObject({ kind: 'header', format: 'tessera-app-archive', version: 2, app: { id: source.app.id }, store: kind });
    expect(lines[1]).toMatchObject({ kind: 'schema', version: 2, sdl: SCHEMA_V2 });
    expect(lines[2]).toMatchObject({ kind: 'settings', settings: { maxDepth: 12, defaultPageSize: 20 } });
    const tables = lines.filter((l) => l.kind === 'table').map((l) => l.name as string);
    expect(tables).toEqual(['City', 'Country', 'File', 'Post', 'Role', 'User', 'Friendship', 'UserEdits', 'UserRoles']);
    const kinds = new Set(lines.map((l) => (Array.isArray(l) ? 'row' : (l.kind as string))));
    expect([...kinds]).toEqual(expect.arrayContaining(['totpFactor', 'trustedDocuments', 'end']));
    const end = lines.at(-1);
    expect(end).toMatchObject({ kind: 'end', lines: lines.length - 1 });
    expect(end.rows.Post).toBe(33);
    expect(end.rows.User).toBe(3);
    // No token of any kind travels: no session, admin token or signing key record.
    expect(archiveLines(archive).join('\n')).not.toMatch(/refresh|signingKey|private_jwk|tat_/);
  });

  it('the import equals the export row for row, ids included, in every table', async () => {
    expect(imported.rows).toBe(Object.values(JSON.parse(archiveLines(archive).at(-1) as string).rows as Record<string, number>).reduce((a, b) => a + b, 0));
    const before = await tableRows(server, source.app.id);
    const after = await tableRows(server, imported.app.id as string);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
    expect(before.Post).toHaveLength(33);
    // Every imported row is linked by the import, whatever the source said: no row counts as
    // linked before an event of the new app (docs/realtime.md).
    const linked = await server.store.query<{ n: number; unset: number }>(
      sql`SELECT count(*)::int AS n, count(*) FILTER (WHERE ${ident('tessera$linked')} IS NULL)::int AS unset FROM ${ident(`app_${imported.app.id as string}`, 'Post')}`,
    );
    expect(linked.rows[0]).toEqual({ n: 33, unset: 0 });
  });

  it('an archive of format version 1 (no function records) still imports', async () => {
    const lines = archiveLines(archive);
    const header = JSON.parse(lines[0] as string) as Json;
    const reply = await importArchive(server, packWithTrailer([JSON.stringify({ ...header, version: 1 }), ...lines.slice(1)]), `v1${Math.random().toString(36).slice(2, 8)}`);
    expect(reply.body.errors).toBeUndefined();
    expect(await tableRows(server, reply.body.app.id as string)).toEqual(await tableRows(server, imported.app.id as string));
  });

  it('the new app has the same schema (as version 1), settings and trusted documents, under a new id and endpoint', async () => {
    const [a, b] = [await admin(server, APP, { id: source.app.id }), await admin(server, APP, { id: imported.app.id })];
    expect(b.body.data.app.id).not.toBe(a.body.data.app.id);
    expect(b.body.data.app.schema).toBe(a.body.data.app.schema);
    expect(b.body.data.app.schemaVersion).toBe(1);
    expect(b.body.data.app.settings).toEqual(a.body.data.app.settings);
    expect(b.body.data.app.trustedDocuments).toEqual({ count: 1, enforce: false });
    expect(imported.app.endpoint).toBe(`${server.base}/graphql/${imported.app.id}`);
  });

  it('the data API answers the same: nested relations, join fields, embedded values, lists, enums, JSON, DateTime', async () => {
    const query = `{ viewer { allPosts(orderBy: { field: title, direction: ASC }, where: { title: { in: ["First", "Reply", "Orphan", "Bulk 1"] } }) { edges { node {
      id title body rating published tags meta mood moods views done addresses { street city }
      author { id username address { city } } parent { id } replies { aggregations { count } }
      editors { edges { node { id } } } favoritedBy { edges { node { id } } } } } }
      allUsers(orderBy: { field: username, direction: ASC }) { edges { node { id username friends { edges { status node { id } } } roles { edges { accessLevel node { name } } } } } }
      allCountries { edges { node { name capitalCity { id name capitalOf { name } } } } } } }`;
    const token = (id: string) => ({ authorization: `Bearer ${source.app.token}`, 'x-app': id });
    const a = await gqlAt(server, source.app.id, query, {}, token(source.app.id));
    const adminToken = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: imported.app.id, name: 'tests' } });
    const b = await gqlAt(server, imported.app.id, query, {}, { authorization: `Bearer ${adminToken.body.data.createAdminToken.token}` });
    expect(a.body.errors).toBeUndefined();
    expect(b.body).toEqual(a.body);
    expect(JSON.stringify(a.body)).toContain('2016-12-08T12:33:56.123Z');
  });

  it('users log in with their old passwords; two-factor login stays on; tokens of the old app are worthless in the new one', async () => {
    const bob = await gqlAt(server, imported.app.id, LOGIN, { i: { username: 'bob', password: PASSWORD } });
    expect(bob.body.errors).toBeUndefined();
    expect(bob.body.data.loginUser.user.id).toBe((await gqlAt(server, source.app.id, LOGIN, { i: { username: 'bob', password: PASSWORD } })).body.data.loginUser.user.id);
    const wrong = await gqlAt(server, imported.app.id, LOGIN, { i: { username: 'bob', password: 'not it' } });
    expect(wrong.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const alice = await gqlAt(server, imported.app.id, LOGIN, { i: { username: 'alice', password: PASSWORD } });
    expect(alice.body.errors[0].extensions.code).toBe('MFA_REQUIRED');
    // Her recovery codes travelled (as hashes) with her factor.
    const withCode = await gqlAt(server, imported.app.id, LOGIN, { i: { username: 'alice', password: PASSWORD, totpCode: source.recoveryCodes[0] } });
    expect(withCode.body.errors).toBeUndefined();
    const old = await gqlAt(server, imported.app.id, '{ viewer { user { id } } }', {}, { authorization: `Bearer ${source.bobToken}` });
    expect(old.status).toBe(401);
    expect(old.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // Admin tokens do not travel either.
    const adminOld = await gqlAt(server, imported.app.id, '{ viewer { id } }', {}, { authorization: `Bearer ${source.app.token}` });
    expect(adminOld.status).toBe(401);
  });

  it('imported again without a name, the exported name is taken: CONFLICT, and nothing is left behind', async () => {
    const reply = await importArchive(server, archive);
    expect(reply.status).toBe(409);
    expect(reply.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('an OpenID provider whose secret this server cannot open stays behind with a warning; its identities travel', async () => {
    const lines = archiveLines(archive);
    const provider = { kind: 'oidcProvider', name: 'corp', issuer: 'https://id.example', clientId: 'c1', sealedSecret: 'v1.otherkey.aaaa.bbbb.cccc', scopes: ['openid'], metadata: { issuer: 'https://id.example' }, createdAt: '2024-01-01T00:00:00.000Z' };
    const identity = { kind: 'oidcIdentity', issuer: 'https://id.example', subject: 'sub-1', userId: (JSON.parse(lines.find((l) => l.startsWith('["') && l.includes('"bob"')) as string) as string[])[0], createdAt: '2024-01-01T00:00:00.000Z', lastLoginAt: null };
    const reply = await importArchive(server, packWithTrailer([...lines.slice(0, -1), JSON.stringify(identity), JSON.stringify(provider), lines.at(-1) as string]), `oidc${Math.random().toString(36).slice(2, 8)}`);
    expect(reply.status).toBe(200);
    expect(reply.body.warnings).toEqual([expect.stringMatching(/OpenID provider "corp" was not carried over/)]);
    const providers = await admin(server, 'query($id: ID!) { app(id: $id) { oidcProviders { name } } }', { id: reply.body.app.id });
    expect(providers.body.data.app.oidcProviders).toEqual([]);
    const rows = await server.store.query<{ subject: string }>(sql`SELECT subject FROM tessera.oidc_identities WHERE app_id = ${reply.body.app.id as string}`);
    expect(rows.rows).toEqual([{ subject: 'sub-1' }]);
  });

  it('the export is one point in time: rows written while it streams are not in it', async () => {
    const link = await admin(server, 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url } }', { i: { appId: source.app.id } });
    const response = await fetch(link.body.data.exportApp.url as string);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    // Any byte of the archive comes after its snapshot was taken.
    const first = await reader.read();
    if (first.value) chunks.push(first.value);
    const late = await source.app.data('mutation { createPost(input: { title: "Late" }) { changedPost { id } } }');
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const text = archiveLines(Buffer.concat(chunks)).join('\n');
    expect(text).not.toContain('"Late"');
    expect(JSON.parse(archiveLines(Buffer.concat(chunks)).at(-1) as string).rows.Post).toBe(33);
    await source.app.data('mutation($i: DeletePostInput!) { deletePost(input: $i) { changedPost { id } } }', { i: { id: late.createPost.changedPost.id } });
  });
});
