// The cache of user tokens on both stores, through the real server: a user token presented again
// costs no statement, yet every change that ends a user's tokens — a new password (an admin's
// updateUser, changeUserPassword, resetPassword), logging out everywhere, deleting the user —
// refuses the old token on the very next request on the instance that made the change, and
// within moments on a second instance sharing the PostgreSQL database, which had it cached too.
// Other users' tokens keep working; an expired, tampered, other app's or no longer signed token
// is refused even when its twin is cached.

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { passwordFingerprint, signUserToken } from '../../src/accounts/index.js';
import { createServer } from '../../src/server/index.js';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName, listSigningKeys, openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { admin, startCountingServer, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { Inbox, codeIn } from '../helpers/inbox.js';
import { sleep } from '../helpers/wait.js';

const SCHEMA = 'type Note @model { text: String }';
const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token refreshToken } }';
const VIEWER = '{ viewer { user { id username } } }';
const PASSWORD = 'correct horse';

interface Member {
  id: string;
  token: string;
}

/** An endpoint of the app on one instance. */
type Endpoint = (token: string) => Promise<{ status: number; body: Json }>;

function endpointOf(base: string, appId: string): Endpoint {
  return async (token) => {
    const response = await fetch(`${base}/graphql/${appId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: VIEWER }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
}

/** A second server on the first one's PostgreSQL database. */
async function secondInstance(first: TestServer): Promise<{ base: string; close(): Promise<void> }> {
  const store: Store = await openStore({ databaseUrl: first.databaseUrl as string });
  const app: FastifyInstance = createServer({ store, admin: createAdminService(store), adminKey: first.key, logLevel: 'silent' as never });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    base: `http://127.0.0.1:${address.port}`,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

describe.each(STORE_KINDS)('user token cache (%s)', (kind) => {
  let inbox: Inbox;
  let server: TestServer;
  let second: Awaited<ReturnType<typeof secondInstance>> | undefined;
  let app: TestApp;
  /** The app on each instance: the first (where changes are made), and the second on PostgreSQL. */
  let here: Endpoint;
  let there: Endpoint | undefined;

  beforeAll(async () => {
    inbox = await new Inbox().start();
    server = await startTestServer(kind, { mail: { smtpUrl: inbox.url(), from: 'Tessera <noreply@tessera.test>' } });
    app = await createTestApp(server, SCHEMA);
    here = endpointOf(server.base, app.id);
    if (kind === 'postgres') {
      second = await secondInstance(server);
      there = endpointOf(second.base, app.id);
    }
  });
  afterAll(async () => {
    await second?.close();
    await server?.close();
    await inbox?.close();
  });

  async function signUp(username: string, email?: string): Promise<Member> {
    const reply = await app.gql(SIGN_UP, { i: { username, password: PASSWORD, ...(email ? { email } : {}) } }, {});
    expect(reply.body.errors).toBeUndefined();
    return { id: reply.body.data.createUser.changedUser.id, token: reply.body.data.createUser.token };
  }

  const instances = (): Endpoint[] => (there ? [here, there] : [here]);

  /** The token works on every instance, twice (the second time from each instance's cache). */
  async function accepted(member: Member): Promise<void> {
    for (const endpoint of instances()) {
      for (let i = 0; i < 2; i++) {
        const reply = await endpoint(member.token);
        expect(reply.status).toBe(200);
        expect(reply.body.data.viewer.user.id).toBe(member.id);
      }
    }
  }

  /** Refused on the next request here, and within moments on the second instance. */
  async function refusedEverywhere(token: string): Promise<void> {
    const reply = await here(token);
    expect(reply.status).toBe(401);
    expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    if (!there) return;
    const deadline = Date.now() + 5_000;
    let status = (await there(token)).status;
    while (status === 200 && Date.now() < deadline) {
      await sleep(20);
      status = (await there(token)).status;
    }
    expect(status).toBe(401);
  }

  it("an admin's updateUser with a new password ends the tokens issued before, and no one else's", async () => {
    const [ann, bob] = [await signUp('ann'), await signUp('bob')];
    await accepted(ann);
    await accepted(bob);
    await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id: ann.id, password: 'another horse' } });
    await refusedEverywhere(ann.token);
    await accepted(bob);
    // A change that is no new password ends nothing.
    const cid = await signUp('cid');
    await accepted(cid);
    await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id: cid.id, username: 'cid2' } });
    await accepted(cid);
  });

  it('changeUserPassword ends the tokens issued before; a login after it works everywhere', async () => {
    const dan = await signUp('dan');
    await accepted(dan);
    const changed = await app.gql(
      'mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { changedUser { id } } }',
      { i: { id: dan.id, oldPassword: PASSWORD, newPassword: 'new horse' } },
      { authorization: `Bearer ${dan.token}` },
    );
    expect(changed.body.errors).toBeUndefined();
    await refusedEverywhere(dan.token);
    const login = await app.gql('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username: 'dan', password: 'new horse' } }, {});
    await accepted({ id: dan.id, token: login.body.data.loginUser.token });
  });

  it('resetPassword ends the tokens issued before', async () => {
    const eve = await signUp('eve', 'eve@example.com');
    await accepted(eve);
    await app.gql('mutation($i: RequestPasswordResetInput!) { requestPasswordReset(input: $i) { clientMutationId } }', { i: { email: 'eve@example.com' } }, {});
    const mail = await inbox.next('eve@example.com', 1);
    const reset = await app.gql('mutation($i: ResetPasswordInput!) { resetPassword(input: $i) { user { username } } }', { i: { token: codeIn(mail), newPassword: 'reset horse' } }, {});
    expect(reset.body.errors).toBeUndefined();
    await refusedEverywhere(eve.token);
  });

  it('logoutUser(allSessions) ends the tokens issued before, including the one that asked', async () => {
    const fay = await signUp('fay');
    const other = await signUp('gus');
    await accepted(fay);
    const out = await app.gql('mutation { logoutUser(input: { allSessions: true }) { endedSessions } }', {}, { authorization: `Bearer ${fay.token}` });
    expect(out.body.errors).toBeUndefined();
    await refusedEverywhere(fay.token);
    await accepted(other);
  });

  it('deleteUser ends the tokens of the user', async () => {
    const hal = await signUp('hal');
    await accepted(hal);
    await app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: hal.id } });
    await refusedEverywhere(hal.token);
  });

  it('refuses an expired token that was cached, saying it expired', async () => {
    const ivy = await signUp('ivy');
    const uuid = await userUuid('ivy');
    const { rows } = await server.store.query<{ password: string }>(sql`SELECT password FROM ${ident(appSchemaName(app.id), 'User')} WHERE id = ${uuid}::uuid`);
    // A token of the app's own key, issued so that it expires in a few seconds.
    const short = await signUserToken(await listSigningKeys(server.store, app.id), {
      appId: app.id,
      userId: ivy.id,
      lifetimeSeconds: 4,
      passwordFingerprint: passwordFingerprint((rows[0] as { password: string }).password),
    });
    await accepted({ id: ivy.id, token: short });
    const exp = (JSON.parse(Buffer.from(short.split('.')[1] as string, 'base64url').toString('utf8')) as { exp: number }).exp;
    await sleep(exp * 1000 - Date.now() + 50);
    for (const endpoint of instances()) {
      const reply = await endpoint(short);
      expect(reply.status).toBe(401);
      expect(reply.body.errors[0].message).toMatch(/expired/);
    }
    await accepted(ivy);
  });

  it('refuses a tampered token although the genuine one is cached', async () => {
    const jay = await signUp('jay');
    const kim = await signUp('kim');
    await accepted(jay);
    await accepted(kim);
    const [header, payload, signature] = jay.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    // Kim's id under Jay's signature; Jay's claims with the signature's first character changed.
    const swapped = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: kim.id })).toString('base64url')}.${signature}`;
    const flipped = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    for (const token of [swapped, flipped, `${jay.token}x`]) {
      for (const endpoint of instances()) expect((await endpoint(token)).status).toBe(401);
    }
    await accepted(jay);
  });

  it("never takes a token of one app at another, though it is cached at the first", async () => {
    const other = await createTestApp(server, SCHEMA);
    const lee = await signUp('lee');
    // The same username at the other app: a user its token could be mistaken for.
    expect((await other.gql(SIGN_UP, { i: { username: 'lee', password: PASSWORD } }, {})).body.errors).toBeUndefined();
    await accepted(lee);
    const elsewhere = endpointOf(server.base, other.id);
    const reply = await elsewhere(lee.token);
    expect(reply.status).toBe(401);
    expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    await accepted(lee);
  });

  it('refuses a cached token once the key that signed it is no longer the app\'s', async () => {
    const max = await signUp('max');
    await accepted(max);
    const [key] = await listSigningKeys(server.store, app.id);
    // Rotate, then take the old key away (as an operator removing a leaked key would).
    const rotated = await admin(server, 'mutation($i: RotateSigningKeyInput!) { rotateSigningKey(input: $i) { kid } }', { i: { appId: app.id } });
    expect(rotated.body.errors).toBeUndefined();
    await accepted(max);
    await server.store.query(sql`DELETE FROM tessera.signing_keys WHERE app_id = ${app.id} AND kid = ${key?.kid as string}`);
    await admin(server, 'mutation($i: RotateSigningKeyInput!) { rotateSigningKey(input: $i) { kid } }', { i: { appId: app.id } });
    await refusedEverywhere(max.token);
    const login = await app.gql('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username: 'max', password: PASSWORD } }, {});
    await accepted({ id: max.id, token: login.body.data.loginUser.token });
  });

  async function userUuid(username: string): Promise<string> {
    const { rows } = await server.store.query<{ id: string }>(sql`SELECT id FROM ${ident(appSchemaName(app.id), 'User')} WHERE username = ${username}`);
    return (rows[0] as { id: string }).id;
  }
});

describe.each(STORE_KINDS)('a repeated user token (%s)', (kind) => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  let app: TestApp;

  beforeAll(async () => {
    server = await startCountingServer(kind);
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  it('costs no statement more than an admin token once its user has been read', async () => {
    const reply = await app.gql(SIGN_UP, { i: { username: 'nia', password: PASSWORD } }, {});
    const token: string = reply.body.data.createUser.token;
    const statements = async (authorization: string) => {
      const before = server.statements();
      const answer = await app.gql('{ __typename }', {}, { authorization: `Bearer ${authorization}` });
      expect(answer.status).toBe(200);
      return server.statements() - before;
    };
    await statements(app.token);
    const byAdmin = await statements(app.token);
    expect(await statements(token)).toBe(byAdmin + 1);
    expect(await statements(token)).toBe(byAdmin);
  });
});
