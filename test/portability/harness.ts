// What the portability tests share: an app with every relation kind, value kind and account
// feature, filled through its API; archives fetched and imported over HTTP as clients do; and
// the rows of an app read back from its tables, to compare two apps row for row.

import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';

export const SCHEMA_V1 = `
type User @model {
  posts: [Post] @relation(name: "PostAuthor")
  edits: [Post] @relation(name: "UserEdits")
  friends: [User] @relation(name: "Friendship")
  favoritePost: Post @relation(name: "FavoritePost")
  address: Address
}
type Post @model @permission(scope: EVERYONE, read: true) {
  title: String! @index
  body: Text
  rating: Float
  published: DateTime
  tags: [String]
  meta: JSON
  mood: Mood
  addresses: [Address]
  author: User @relation(name: "PostAuthor")
  editors: [User] @relation(name: "UserEdits")
  parent: Post @relation(name: "PostReplies")
  replies: [Post] @relation(name: "PostReplies")
  favoritedBy: [User] @relation(name: "FavoritePost")
}
type Country @model { name: String! capitalCity: City @relation(name: "CountryCapital") }
type City @model { name: String! capitalOf: Country @relation(name: "CountryCapital") }
type Friendship @join(relation: "Friendship") { status: String }
type Address { street: String city: String }
enum Mood { HAPPY SAD }
`;

/** Version 2 adds fields after the fact: the source app's columns are no longer in SDL order. */
export const SCHEMA_V2 = SCHEMA_V1.replace('title: String! @index', 'title: String! @index\n  views: Int @default(value: 0)\n  moods: [Mood]\n  done: Boolean');

export const PASSWORD = 'correct horse battery';

export interface FilledApp {
  app: TestApp;
  users: { alice: string; bob: string };
  /** Alice's TOTP secret and recovery codes: she has two-factor login on. */
  aliceSecret: string;
  recoveryCodes: string[];
  /** A token Bob got from this app. */
  bobToken: string;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function totpCode(secret: string): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret) });
}

/** An app of SCHEMA_V2 (through a migration) holding rows of every kind. */
export async function filledApp(server: TestServer, name?: string): Promise<FilledApp> {
  const app = await createTestApp(server, SCHEMA_V1, name);
  const user = async (username: string) =>
    (await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { i: { username, password: PASSWORD, address: { street: `${username} street`, city: 'Paris' } } })).createUser.changedUser.id as string;
  const alice = await user('alice');
  const bob = await user('bob');
  const carol = await user('Carol');
  await app.migrate(SCHEMA_V2);
  const post = async (input: Record<string, unknown>) => (await app.data('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: input })).createPost.changedPost.id as string;
  const first = await post({
    title: 'First',
    body: 'A long text\nwith "quotes", é and emoji 🎉',
    rating: 4.25,
    published: '2016-12-08T12:33:56.123Z',
    tags: ['a', 'b'],
    meta: { nested: { list: [1, 2.5, null, true], text: 'x' } },
    mood: 'HAPPY',
    moods: ['SAD', 'HAPPY'],
    addresses: [{ street: '1 rue', city: 'Lyon' }, { street: null, city: 'Nice' }],
    authorId: alice,
    views: 7,
    done: true,
  });
  const reply = await post({ title: 'Reply', parentId: first, authorId: bob, rating: 0.1 });
  await post({ title: 'Orphan', meta: [1, 'two'], tags: [] });
  for (let i = 0; i < 30; i++) await post({ title: `Bulk ${i}`, authorId: i % 2 ? alice : bob, parentId: i % 3 ? first : reply });
  await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id: alice, favoritePostId: reply } });
  await app.data('mutation($u: ID!, $p: ID!) { addToUserEditsConnection(input: { userId: $u, postId: $p }) { clientMutationId } }', { u: bob, p: first });
  await app.data('mutation($u: ID!, $p: ID!) { addToUserEditsConnection(input: { userId: $u, postId: $p }) { clientMutationId } }', { u: carol, p: first });
  await app.data('mutation($a: ID!, $b: ID!) { addToFriendshipConnection(input: { user1Id: $a, user2Id: $b, status: "close" }) { clientMutationId } }', { a: alice, b: bob });
  await app.data('mutation($a: ID!, $b: ID!) { addToFriendshipConnection(input: { user1Id: $a, user2Id: $b }) { clientMutationId } }', { a: carol, b: alice });
  const country = (await app.data('mutation { createCountry(input: { name: "France", capitalCity: { name: "Paris" } }) { changedCountry { id } } }')).createCountry.changedCountry.id;
  await app.data('mutation { createCity(input: { name: "Lyon" }) { changedCity { id } } }');
  expect(country).toBeTruthy();
  const role = (await app.data('mutation { createRole(input: { name: "editors" }) { changedRole { id } } }')).createRole.changedRole.id;
  await app.data('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r, accessLevel: readwrite }) { clientMutationId } }', { u: bob, r: role });

  // Alice turns two-factor login on; Bob logs in and keeps his token.
  const aliceToken = (await app.data('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username: 'alice', password: PASSWORD } })).loginUser.token as string;
  const enrol = await app.gql('mutation { enrollTotp(input: {}) { secret } }', {}, bearer(aliceToken));
  const aliceSecret: string = enrol.body.data.enrollTotp.secret;
  const confirmed = await app.gql('mutation($i: ConfirmTotpInput!) { confirmTotp(input: $i) { recoveryCodes } }', { i: { code: totpCode(aliceSecret) } }, bearer(aliceToken));
  if (confirmed.body.errors) throw new Error(`confirmTotp failed: ${JSON.stringify(confirmed.body.errors)}`);
  const bobToken = (await app.data('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username: 'bob', password: PASSWORD } })).loginUser.token as string;

  const settings = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: app.id, settings: { maxDepth: 12, defaultPageSize: 20 } } });
  if (settings.body.errors) throw new Error(JSON.stringify(settings.body.errors));
  const docs = await admin(server, 'mutation($i: SetTrustedDocumentsInput!) { setTrustedDocuments(input: $i) { count } }', { i: { appId: app.id, documents: ['{ viewer { id } }'], enforce: false } });
  if (docs.body.errors) throw new Error(JSON.stringify(docs.body.errors));
  return { app, users: { alice, bob }, aliceSecret, recoveryCodes: confirmed.body.data.confirmTotp.recoveryCodes as string[], bobToken };
}


/** The app's archive, through exportApp's signed link. */
export async function exportArchive(server: TestServer, appId: string): Promise<Buffer> {
  const reply = await admin(server, 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url expiresAt } }', { i: { appId } });
  if (reply.body.errors) throw new Error(`exportApp failed: ${JSON.stringify(reply.body.errors)}`);
  const response = await fetch(reply.body.data.exportApp.url as string);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/gzip');
  return Buffer.from(await response.arrayBuffer());
}

export async function importArchive(server: Pick<TestServer, 'base' | 'key'>, body: Uint8Array, name?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server.base}/admin/apps/import${name ? `?name=${name}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/gzip', authorization: `Bearer ${server.key}`, ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** The archive's lines (uncompressed, without the final newline's empty line). */
export function archiveLines(archive: Buffer): string[] {
  return gunzipSync(archive).toString('utf8').split('\n').slice(0, -1);
}

/** An archive of these lines with a trailer that matches them (for content the checksum does not catch). */
export function packWithTrailer(lines: string[]): Buffer {
  const body = lines.slice(0, -1).map((l) => `${l}\n`).join('');
  const end = JSON.parse(lines.at(-1) as string) as Json;
  end.sha256 = createHash('sha256').update(body).digest('hex');
  end.lines = lines.length - 1;
  return gzipSync(`${body}${JSON.stringify(end)}\n`);
}

export function pack(lines: string[]): Buffer {
  return gzipSync(lines.map((l) => `${l}\n`).join(''));
}

/**
 * Every table of the app with its rows (order-independent columns), sorted by id. Not the rows'
 * link times (`tessera$linked`): those say which transaction of this database linked each row,
 * and an import's rows are linked by the import.
 */
export async function tableRows(server: TestServer, appId: string): Promise<Record<string, unknown[]>> {
  const { rows } = await server.store.query<{ table_name: string }>(sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${`app_${appId}`} ORDER BY table_name`);
  const out: Record<string, unknown[]> = {};
  for (const { table_name } of rows) {
    const data = await server.store.query<{ rows: unknown[] | null }>(sql`SELECT jsonb_agg(to_jsonb(t) - 'tessera$linked' ORDER BY t.id) AS rows FROM ${ident(`app_${appId}`, table_name)} t`);
    out[table_name] = data.rows[0]?.rows ?? [];
  }
  return out;
}

/** Apps and app schemas on the server: what a failed import must not change. */
export async function footprint(server: TestServer): Promise<{ apps: number; schemas: number }> {
  const apps = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM tessera.apps`);
  const schemas = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name LIKE 'app\\_%'`);
  return { apps: apps.rows[0]?.n ?? 0, schemas: schemas.rows[0]?.n ?? 0 };
}

/** An existing app (imported, forked) as the tests use one: an admin token of its own. */
export async function appAt(server: TestServer, appId: string): Promise<Pick<TestApp, 'id' | 'token' | 'endpoint' | 'gql' | 'data'>> {
  const reply = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: `tests${Math.random().toString(36).slice(2, 8)}` } });
  if (reply.body.errors) throw new Error(`createAdminToken failed: ${JSON.stringify(reply.body.errors)}`);
  const token: string = reply.body.data.createAdminToken.token;
  const endpoint = `${server.base}/graphql/${appId}`;
  const gql = async (query: string, variables: Record<string, unknown> = {}, headers?: Record<string, string>) => {
    const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...(headers ?? { authorization: `Bearer ${token}` }) }, body: JSON.stringify({ query, variables }) });
    return { status: response.status, body: (await response.json()) as Json };
  };
  return {
    id: appId,
    token,
    endpoint,
    gql,
    async data(query, variables) {
      const answer = await gql(query, variables);
      if (answer.body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(answer.body.errors)}`);
      return answer.body.data;
    },
  };
}

/** importApp through the management API: a GraphQL multipart request carrying the archive. */
export async function importAppMutation(server: Pick<TestServer, 'base' | 'key'>, archive: Uint8Array, name?: string, headers: Record<string, string> = { authorization: `Bearer ${server.key}` }): Promise<{ status: number; body: Json }> {
  const form = new FormData();
  form.append('operations', JSON.stringify({
    query: 'mutation($i: ImportAppInput!) { importApp(input: $i) { app { id name schemaVersion endpoint } rows warnings } }',
    variables: { i: { file: null, ...(name ? { name } : {}) } },
  }));
  form.append('map', JSON.stringify({ 0: ['variables.i.file'] }));
  form.append('0', new Blob([archive], { type: 'application/gzip' }), 'app.tessera.gz');
  const response = await fetch(`${server.base}/admin/graphql`, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as Json };
}
