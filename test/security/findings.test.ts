// Regression tests for the holes an outside attack run found, sent the way a hostile client
// would, through the real server on both stores: a user granting himself a role's access by
// creating the role, a field rule on User closing sign-up, malformed app ids in the path
// answering 500, and one account's password guessed from many addresses.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';
import { postFrom, rawHttp, rawUpgrade } from '../helpers/raw.js';

function codes(reply: GraphQLResult | { body: Json }): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions?.code as string);
}

const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }';

/** Request targets a hostile client may send where an app id belongs, as raw request-line text. */
const MALFORMED_IDS: readonly string[] = [
  '%00',
  'abcdefghijk%00',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%2f..%2fadmin%2fgraphql',
  '%2e%2e',
  'a'.repeat(2000),
  'b'.repeat(13),
  'ABCDEFGHIJKL',
  '%C3%A9t%C3%A9abcdefgh',
  Buffer.from('étéabcdefghi', 'utf8').toString('latin1'),
  '%E0%A4%A',
  '%FF%FE%FD',
  '%u0041bcdefghijk',
  'a%20bcdefghijk',
  'abcdefghijkl%2F..',
  '%',
];

describe.each(STORE_KINDS)('findings of the outside attack run (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startApiServer(kind);
  });
  afterAll(async () => server?.close());

  async function signUp(app: TestApp, username: string): Promise<{ id: string; token: string }> {
    const reply = await app.gql(SIGN_UP, { i: { username, password: 'pw-123456' } }, {});
    expect(codes(reply)).toEqual([]);
    return { id: reply.body.data.createUser.changedUser.id, token: reply.body.data.createUser.token };
  }

  describe('1. roles named by a ROLE rule cannot be created by the users they would empower', () => {
    const SCHEMA = `
      type Salary @model @permission(scope: ROLE, roles: ["Managers"], read: true) { amount: Int }
    `;
    let app: TestApp;
    beforeAll(async () => {
      app = await createTestApp(server, SCHEMA);
      await app.data('mutation { createSalary(input: { amount: 100000 }) { changedSalary { id } } }');
    });

    it('refuses createRole to a signed-up user and leaves the guarded rows hidden', async () => {
      const mallory = await signUp(app, 'mallory');
      const as = (query: string, variables?: Record<string, unknown>) => app.gql(query, variables, { authorization: `Bearer ${mallory.token}` });
      const created = await as('mutation { createRole(input: { name: "Managers" }) { changedRole { id name } } }');
      expect(codes(created)).toEqual(['FORBIDDEN']);
      expect(created.body.data.createRole).toBeNull();
      // Nested: the role created through the user's own sign-up or an update is refused too.
      const nested = await app.gql(SIGN_UP, { i: { username: 'mallory2', password: 'pw-123456', roles: [{ name: 'Managers' }] } }, {});
      expect(codes(nested)).toEqual(['FORBIDDEN']);
      const read = await as('{ viewer { allSalaries { edges { node { amount } } aggregations { count } } } }');
      expect(codes(read)).toEqual([]);
      expect(read.body.data.viewer.allSalaries).toEqual({ edges: [], aggregations: { count: 0 } });
      const roles = await app.data('{ viewer { allRoles { edges { node { name } } } } }');
      expect(roles.viewer.allRoles.edges.map((e: Json) => e.node.name)).toEqual(['admin']);
    });

    it('lets app admins create the role; its admin members then enrol others, never into the admin role', async () => {
      const boss = await signUp(app, 'boss');
      const worker = await signUp(app, 'worker');
      const roleOf = async (name: string): Promise<string> =>
        (await app.data(`{ viewer { allRoles(where: { name: { eq: "${name}" } }) { edges { node { id } } } } }`)).viewer.allRoles.edges[0]?.node.id;
      let managers = await roleOf('Managers');
      if (!managers) managers = (await app.data('mutation { createRole(input: { name: "Managers" }) { changedRole { id } } }')).createRole.changedRole.id;
      const adminRole = await roleOf('admin');
      const enrol = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }';
      await app.data(enrol, { i: { userId: boss.id, roleId: managers, accessLevel: 'admin' } });
      const asBoss = (query: string, variables?: Record<string, unknown>) => app.gql(query, variables, { authorization: `Bearer ${boss.token}` });
      expect(codes(await asBoss(enrol, { i: { userId: worker.id, roleId: managers, accessLevel: 'readonly' } }))).toEqual([]);
      // The role's admin may not hand out the built-in admin role, to others or to himself.
      expect(codes(await asBoss(enrol, { i: { userId: worker.id, roleId: adminRole, accessLevel: 'readonly' } }))).toEqual(['FORBIDDEN']);
      expect(codes(await asBoss(enrol, { i: { userId: boss.id, roleId: adminRole, accessLevel: 'admin' } }))).toEqual(['FORBIDDEN']);
      // Nor rename his role, nor create another.
      expect(codes(await asBoss('mutation($i: UpdateRoleInput!) { updateRole(input: $i) { changedRole { name } } }', { i: { id: managers, name: 'Bosses' } }))).toEqual(['FORBIDDEN']);
      expect(codes(await asBoss('mutation { createRole(input: { name: "Auditors" }) { changedRole { id } } }'))).toEqual(['FORBIDDEN']);
      // The worker now reads what the rule guards, as the app's admins meant.
      const read = await app.gql('{ viewer { allSalaries { edges { node { amount } } } } }', {}, { authorization: `Bearer ${worker.token}` });
      expect(read.body.data.viewer.allSalaries.edges).toEqual([{ node: { amount: 100000 } }]);
    });
  });

  describe('2. a field rule on User leaves sign-up open', () => {
    const SCHEMA = `
      type User @model { email: String @permission(scope: SELF, read: true, update: true) }
      type Note @model { text: String }
    `;
    it('signs up anonymously, reads and changes its own email, and keeps others\' hidden', async () => {
      const app = await createTestApp(server, SCHEMA);
      const reply = await app.gql(SIGN_UP.replace('changedUser { id }', 'changedUser { id email }'), { i: { username: 'ann', password: 'pw-123456', email: 'ann@example.com' } }, {});
      expect(codes(reply)).toEqual([]);
      expect(reply.body.data.createUser.changedUser.email).toBe('ann@example.com');
      const ann = { id: reply.body.data.createUser.changedUser.id as string, token: reply.body.data.createUser.token as string };
      const asAnn = (query: string, variables?: Record<string, unknown>) => app.gql(query, variables, { authorization: `Bearer ${ann.token}` });
      const updated = await asAnn('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { email } } }', { i: { id: ann.id, email: 'new@example.com' } });
      expect(codes(updated)).toEqual([]);
      expect(updated.body.data.updateUser.changedUser.email).toBe('new@example.com');
      const bob = await signUp(app, 'bob');
      // The type defaults still hold: another user's object is not readable at all.
      const seen = await app.gql(`{ getUser(id: "${ann.id}") { username email } }`, {}, { authorization: `Bearer ${bob.token}` });
      expect(seen.body.data.getUser).toBeNull();
      const changed = await app.gql('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { email } } }', { i: { id: ann.id, email: 'x@example.com' } }, { authorization: `Bearer ${bob.token}` });
      expect(codes(changed)).toEqual(['NOT_FOUND']);
    });
  });

  describe('3. a malformed app id in the path is 404 NOT_FOUND, never a 5xx', () => {
    it.each(MALFORMED_IDS.map((id) => [id.length > 40 ? `${id.slice(0, 20)}… (${id.length} characters)` : id, id]))('%s', async (_label, id) => {
      const body = JSON.stringify({ query: '{ __typename }' });
      const targets = [
        ['POST', `/graphql/${id}`, body],
        ['GET', `/graphql/${id}?query=%7B__typename%7D`, ''],
        ['GET', `/graphql/${id}/.well-known/jwks.json`, ''],
      ] as const;
      for (const [method, target, payload] of targets) {
        const reply = await rawHttp(server.base, `${method} ${target} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json`, payload);
        expect({ target, status: reply.status }).toEqual({ target, status: 404 });
        expect(JSON.parse(reply.body).errors[0].extensions.code).toBe('NOT_FOUND');
      }
      for (const protocol of ['graphql-transport-ws', 'graphql-ws']) {
        const upgrade = await rawUpgrade(server.base, `/graphql/${id}`, protocol);
        expect({ id, status: upgrade.status }).toEqual({ id, status: 404 });
      }
    });

    it('still serves the app after every malformed id, and the management API answers null for them', async () => {
      const app = await createTestApp(server, 'type Note @model { text: String }');
      expect(codes(await app.gql('{ viewer { id } }'))).toEqual([]);
      for (const id of ['\u0000', 'a'.repeat(2000), 'été', '../x']) {
        const reply = await fetch(`${server.base}/admin/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
          body: JSON.stringify({ query: 'query($id: ID!) { app(id: $id) { id } }', variables: { id } }),
        });
        const json = (await reply.json()) as Json;
        expect(reply.status).toBeLessThan(500);
        expect(json.data?.app ?? null).toBeNull();
        expect(codes({ body: json }).filter((c) => c === 'INTERNAL')).toEqual([]);
      }
    });
  });

  describe('4. one account guessed from many addresses', () => {
    const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';
    let app: TestApp;
    beforeAll(async () => {
      app = await createTestApp(server, 'type Note @model { text: String }');
    });
    const from = (i: number) => `127.0.${Math.floor(i / 200) + 1}.${(i % 200) + 2}`;
    const login = (i: number, username: string, password: string) => postFrom(from(i), app.endpoint, { query: LOGIN, variables: { i: { username, password } } });

    it('refuses the 31st attempt at one username from the 31st address, the right password included', async () => {
      await signUp(app, 'victim');
      for (let i = 0; i < 30; i++) expect(codes(await login(i, 'victim', `guess-${i}`))).toEqual(['UNAUTHENTICATED']);
      const blocked = await login(30, 'victim', 'pw-123456');
      expect(blocked.status).toBe(429);
      expect(codes(blocked)).toEqual(['RATE_LIMITED']);
      // Case and Unicode spelling do not make another account.
      expect(codes(await login(31, 'VICTIM', 'pw-123456'))).toEqual(['RATE_LIMITED']);
    });

    it('throttles an unknown username at exactly the same point', async () => {
      for (let i = 100; i < 130; i++) expect(codes(await login(i, 'nobody-here', `guess-${i}`))).toEqual(['UNAUTHENTICATED']);
      expect(codes(await login(130, 'nobody-here', 'pw-123456'))).toEqual(['RATE_LIMITED']);
    });

    it('leaves other accounts alone', async () => {
      await signUp(app, 'bystander');
      expect(codes(await login(200, 'bystander', 'pw-123456'))).toEqual([]);
    });
  });
});
