// Users and tokens over HTTP on both stores: createUser's token, loginUser (same failure for
// an unknown user and a wrong password), changeUserPassword, tokens refused once the password
// changes or the user is gone, at another app, or tampered with; the JWKS document; hashes
// upgraded at login.

import { hash } from '@node-rs/argon2';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import { admin } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { TestApp } from './harness.js';

const SCHEMA = 'type Note @model { text: String }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token user { id username lastLogin } clientMutationId } }';
const CHANGE = 'mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { changedUser { username } } }';

describe.each(STORE_KINDS)('users and tokens (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  const anonymous = {};
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function signUp(username: string, password: string): Promise<{ id: string; token: string }> {
    const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username, password } });
    return { id: data.createUser.changedUser.id, token: data.createUser.token };
  }

  /** Whether the endpoint accepts the token (an operation every caller may send). */
  async function accepted(token: string, target: TestApp = app): Promise<number> {
    return (await target.gql('{ __typename }', {}, bearer(token))).status;
  }

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  it('createUser returns a token the endpoint accepts', async () => {
    const ann = await signUp('ann', 'correct horse');
    expect(ann.token.split('.')).toHaveLength(3);
    expect(await accepted(ann.token)).toBe(200);
  });

  it('loginUser answers a token and the user, any letter case of the username, and sets lastLogin', async () => {
    const reply = await app.gql(LOGIN, { i: { username: 'ANN', password: 'correct horse', clientMutationId: 'c1' } }, anonymous);
    expect(reply.body.errors).toBeUndefined();
    const login = reply.body.data.loginUser;
    expect(login.user.username).toBe('ann');
    expect(login.user.lastLogin).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(login.clientMutationId).toBe('c1');
    expect(await accepted(login.token)).toBe(200);
  });

  it('fails alike for a wrong password and an unknown user', async () => {
    const wrong = await app.gql(LOGIN, { i: { username: 'ann', password: 'nope' } }, anonymous);
    const unknown = await app.gql(LOGIN, { i: { username: 'nobody-at-all', password: 'nope' } }, anonymous);
    for (const reply of [wrong, unknown]) {
      expect(reply.body.data).toEqual({ loginUser: null });
      expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    expect(wrong.body.errors[0].message).toBe(unknown.body.errors[0].message);
  });

  it('refuses tampered tokens, tokens of another app and malformed headers with 401', async () => {
    const { token } = await signUp('tamper', 'pw-123456');
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, exp: (payload.exp as number) + 1e6 })).toString('base64url')}.${s}`;
    expect(await accepted(forged)).toBe(401);
    const other = await createTestApp(server, SCHEMA);
    expect(await accepted(token, other)).toBe(401);
    const reply = await app.gql('{ __typename }', {}, { authorization: 'Basic abc' });
    expect(reply.status).toBe(401);
    expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('changeUserPassword needs the old password; tokens issued before stop working', async () => {
    const bob = await signUp('bob', 'old-password');
    const refused = await app.gql(CHANGE, { i: { id: bob.id, oldPassword: 'wrong', newPassword: 'new-password' } }, bearer(bob.token));
    expect(refused.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const ann = await app.gql(LOGIN, { i: { username: 'ann', password: 'correct horse' } }, anonymous);
    const someoneElse = await app.gql(CHANGE, { i: { id: bob.id, oldPassword: 'old-password', newPassword: 'x' } }, bearer(ann.body.data.loginUser.token));
    expect(someoneElse.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const anonymousChange = await app.gql(CHANGE, { i: { id: bob.id, oldPassword: 'old-password', newPassword: 'x' } }, anonymous);
    expect(anonymousChange.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const changed = await app.gql(CHANGE, { i: { id: bob.id, oldPassword: 'old-password', newPassword: 'new-password' } }, bearer(bob.token));
    expect(changed.body.data.changeUserPassword.changedUser.username).toBe('bob');
    expect(await accepted(bob.token)).toBe(401);
    expect((await app.gql(LOGIN, { i: { username: 'bob', password: 'old-password' } }, anonymous)).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const again = await app.gql(LOGIN, { i: { username: 'bob', password: 'new-password' } }, anonymous);
    expect(await accepted(again.body.data.loginUser.token)).toBe(200);
  });

  it("refuses a deleted user's token", async () => {
    const gone = await signUp('gone', 'pw-123456');
    expect(await accepted(gone.token)).toBe(200);
    await app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: gone.id } });
    expect(await accepted(gone.token)).toBe(401);
  });

  it('publishes the public keys as JWKS, and they verify the tokens', async () => {
    const response = await fetch(`${app.endpoint}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    const jwks = (await response.json()) as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const { token, id } = await signUp('jwks', 'pw-123456');
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { audience: app.id, issuer: 'tessera', algorithms: ['EdDSA'] });
    expect(payload.sub).toBe(id);
  });

  it('upgrades a weaker stored hash at the next login', async () => {
    const weak = await signUp('weak', 'pw-123456');
    const table = ident(appSchemaName(app.id), 'User');
    const uuid = Buffer.from(weak.id, 'base64url').toString('utf8').split(':')[1];
    const old = await hash('pw-123456', { algorithm: 2, memoryCost: 4096, timeCost: 1, parallelism: 1 });
    await server.store.query(sql`UPDATE ${table} SET password = ${old} WHERE id = ${uuid}::uuid`);
    const login = await app.gql(LOGIN, { i: { username: 'weak', password: 'pw-123456' } }, anonymous);
    expect(login.body.errors).toBeUndefined();
    const { rows } = await server.store.query<{ password: string }>(sql`SELECT password FROM ${table} WHERE id = ${uuid}::uuid`);
    expect(rows[0]?.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('lets exactly one of 100 parallel sign-ups with one username through; the others get CONFLICT', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { i: { username: i % 2 ? 'Twin' : 'twin', password: 'pw-123456' } }, anonymous),
      ),
    );
    const codes = replies.map((r) => (r.body.errors ? r.body.errors[0].extensions.code : 'OK'));
    expect(codes.filter((c) => c === 'OK')).toHaveLength(1);
    expect(codes.filter((c) => c === 'CONFLICT')).toHaveLength(99);
  });

  it('refuses a revoked admin token on the next request', async () => {
    const created = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: app.id, name: 'short-lived' } });
    const token = created.body.data.createAdminToken.token as string;
    expect((await app.gql('{ viewer { allNotes { aggregations { count } } } }', {}, bearer(token))).status).toBe(200);
    await admin(server, 'mutation($i: RevokeAdminTokenInput!) { revokeAdminToken(input: $i) { revoked } }', { i: { appId: app.id, name: 'short-lived' } });
    const refused = await app.gql('{ __typename }', {}, bearer(token));
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('takes the platform key as an admin credential on the app endpoint, and nothing close to it', async () => {
    const asPlatform = await app.gql('{ viewer { allNotes { aggregations { count } } } }', {}, bearer(server.key));
    expect(asPlatform.status).toBe(200);
    expect(asPlatform.body.errors).toBeUndefined();
    expect(typeof asPlatform.body.data.viewer.allNotes.aggregations.count).toBe('number');
    const near = await app.gql('{ __typename }', {}, bearer(`${server.key.slice(0, -1)}x`));
    expect(near.status).toBe(401);
    expect(near.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('rotates the signing key: old tokens keep working, new ones carry the new kid, JWKS lists both', async () => {
    const before = await signUp('rotator', 'pw-123456');
    const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8')).kid as string;
    const rotated = await admin(server, 'mutation($i: RotateSigningKeyInput!) { rotateSigningKey(input: $i) { kid } }', { i: { appId: app.id } });
    const kid = rotated.body.data.rotateSigningKey.kid as string;
    expect(kid).not.toBe(kidOf(before.token));
    expect(await accepted(before.token)).toBe(200);
    const after = await app.gql(LOGIN, { i: { username: 'rotator', password: 'pw-123456' } }, anonymous);
    expect(kidOf(after.body.data.loginUser.token)).toBe(kid);
    expect(await accepted(after.body.data.loginUser.token)).toBe(200);
    const jwks = (await (await fetch(`${app.endpoint}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([kid, kidOf(before.token)]));
  });
});
