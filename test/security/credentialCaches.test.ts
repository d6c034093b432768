// The two credential caches added for speed, attacked through the real server over HTTP: the
// admin-token verdicts (src/server/tokenVerdicts.ts, kept by src/server/appRegistry.ts) and the
// user-token cache (src/accounts/tokenCache.ts, read by src/accounts/callers.ts and
// src/server/operation/callers.ts). DESIGN.md §5 promises that an admin token's revocation
// "takes effect on the next request", that a user's tokens stop working when the user is deleted
// or changes password, that a token of one app is worthless at another, and that an expired
// token gets 401; §6 that a revoked token gets 401 too. Each test below checks one of those
// promises where a cache could break it: a verdict or user read while the change is being made,
// another app that shares everything with the first but its id, a deleted app, and attackers
// sending many or huge tokens.
//
// Some tests run on a "gated" server: its store can hold back the answer of one chosen statement
// until the test lets it go, which is how a slow database (or a busy event loop) orders a lookup
// and a concurrent change. Nothing else about the server differs from production.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKey } from '../../src/admin/service.js';
import { passwordFingerprint, signUserToken, verifyUserToken } from '../../src/accounts/index.js';
import { MAX_CACHED_TOKEN, UserTokenCache } from '../../src/accounts/tokenCache.js';
import { MAX_KEPT_TOKEN, MAX_VERDICTS } from '../../src/server/tokenVerdicts.js';
import { openStore } from '../../src/store/index.js';
import type { SigningKeyRow } from '../../src/store/index.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { sleep } from '../helpers/wait.js';
import { admin, gatedServer, startGatedServer } from '../server/harness.js';
import type { GatedServer, TestServer } from '../server/harness.js';

const SCHEMA = 'type Note @model { text: String }';
const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }';
const PASSWORD = 'correct horse';

// The gated server (test/server/harness.ts) holds back one chosen statement's answer.

/** A second gated instance on the first one's PostgreSQL database (same platform key). */
async function secondGatedInstance(first: GatedServer): Promise<GatedServer> {
  const store = await openStore({ databaseUrl: first.databaseUrl as string });
  return gatedServer(store, first.key, store, first.databaseUrl);
}

/** The statement that checks an admin token against the catalog (src/store/catalog/adminTokens.ts). */
const ADMIN_TOKEN_LOOKUP = /FROM tessera\.admin_tokens\s+WHERE app_id = \$1 AND token_hash/;
/** The statement that reads a user's password and token generation (src/accounts/callers.ts, userState). */
const USER_STATE_READ = /LEFT JOIN tessera\.user_generations/;

// ---------------------------------------------------------------------------------------------
// Requests.

const VIEWER = '{ viewer { user { id } } }';

/** One request to an app's endpoint on `base` with `token` as the bearer. */
async function ask(base: string, appId: string, token: string, query = VIEWER): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}/graphql/${appId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** The reply a refused token gets: 401 with UNAUTHENTICATED (DESIGN.md §5, §6). */
function expectRefused(reply: { status: number; body: Json }): void {
  expect(reply.status).toBe(401);
  expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
}

async function createAdminToken(server: Pick<TestServer, 'base' | 'key'>, appId: string, name: string): Promise<string> {
  const reply = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name } });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.createAdminToken.token as string;
}

async function revokeAdminToken(server: Pick<TestServer, 'base' | 'key'>, appId: string, name: string): Promise<void> {
  const reply = await admin(server, 'mutation($i: RevokeAdminTokenInput!) { revokeAdminToken(input: $i) { revoked } }', { i: { appId, name } });
  expect(reply.body.data.revokeAdminToken.revoked).toBe(true);
}

async function forkApp(server: Pick<TestServer, 'base' | 'key'>, appId: string): Promise<string> {
  const reply = await admin(server, 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id } } }', { i: { appId, name: `fork${Math.random().toString(36).slice(2, 10)}` } });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.forkApp.app.id as string;
}

// ---------------------------------------------------------------------------------------------

describe.each(STORE_KINDS)('admin token verdicts over HTTP (%s)', (kind) => {
  let server: GatedServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startGatedServer(kind);
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  it('refuses a revoked token on the next request, though its verdict was cached', async () => {
    const token = await createAdminToken(server, app.id, 'cached');
    // Twice: the second answer comes from the verdict kept by the first.
    for (let i = 0; i < 2; i++) expect((await ask(server.base, app.id, token)).status).toBe(200);
    await revokeAdminToken(server, app.id, 'cached');
    expectRefused(await ask(server.base, app.id, token));
    expectRefused(await ask(server.base, app.id, token));
  });

  // A lookup that read the catalog before the revocation must not keep its "valid" verdict once
  // the revocation has cleared the verdicts (TokenVerdicts.generation): it once did, and the
  // revoked token then worked for up to TOKEN_AGE_MS (30 s) more.
  it('refuses a token revoked while a lookup of it was in flight, from the next request on', async () => {
    const token = await createAdminToken(server, app.id, 'racing');
    // The token's first request reads the catalog (the token is live) and its answer is held back…
    const held = server.holdNext(ADMIN_TOKEN_LOOKUP);
    const inFlight = ask(server.base, app.id, token);
    await held.ran;
    // …while the operator revokes the token; the revocation has answered before the lookup does.
    await revokeAdminToken(server, app.id, 'racing');
    held.release();
    // The request that began before the revocation may pass: its check predates it.
    expect((await inFlight).status).toBe(200);
    // Every request after the revocation answered must be refused (DESIGN.md §5).
    expectRefused(await ask(server.base, app.id, token));
  });

  it("never takes one app's admin token at another app, nor at a fork of it, though cached at the first", async () => {
    const token = await createAdminToken(server, app.id, 'home');
    expect((await ask(server.base, app.id, token)).status).toBe(200);
    const other = await createTestApp(server, SCHEMA);
    const fork = await forkApp(server, app.id);
    for (const elsewhere of [other.id, fork]) {
      for (let i = 0; i < 2; i++) expectRefused(await ask(server.base, elsewhere, token));
    }
    // …and the other way round: the other app's own token is no credential here.
    for (let i = 0; i < 2; i++) expectRefused(await ask(server.base, app.id, other.token));
    expect((await ask(server.base, app.id, token)).status).toBe(200);
  });

  it('answers NOT_FOUND for a deleted app whose token was cached, and the token is no credential after', async () => {
    const doomed = await createTestApp(server, SCHEMA);
    for (let i = 0; i < 2; i++) expect((await ask(server.base, doomed.id, doomed.token)).status).toBe(200);
    const deleted = await admin(server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: doomed.id } });
    expect(deleted.body.data.deleteApp.deleted).toBe(true);
    const reply = await ask(server.base, doomed.id, doomed.token);
    expect(reply.status).toBe(404);
    expect(reply.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expectRefused(await ask(server.base, app.id, doomed.token));
  });

  it('keeps no verdict of a token longer than any issued: each try of a huge made-up token is read again', async () => {
    // An unknown short token's verdict is kept: asked twice, the catalog is read once.
    const short = `tat_${'s'.repeat(MAX_KEPT_TOKEN - 4)}`;
    let before = server.count(ADMIN_TOKEN_LOOKUP);
    for (let i = 0; i < 3; i++) expectRefused(await ask(server.base, app.id, short));
    expect(server.count(ADMIN_TOKEN_LOOKUP) - before).toBe(1);
    // A token one character longer than any issued is never kept, however often it comes.
    for (const huge of [`tat_${'h'.repeat(MAX_KEPT_TOKEN - 3)}`, `tat_${'h'.repeat(8 * 1024)}`]) {
      before = server.count(ADMIN_TOKEN_LOOKUP);
      for (let i = 0; i < 3; i++) expectRefused(await ask(server.base, app.id, huge));
      expect(server.count(ADMIN_TOKEN_LOOKUP) - before).toBe(3);
    }
  });

  // Sent once, on the embedded store: ten thousand requests are the point, not the driver.
  if (kind === 'embedded')
    it('does not grow past its bound under a flood of distinct made-up tokens: the genuine token is read again after it', async () => {
    const token = await createAdminToken(server, app.id, 'flooded');
    expect((await ask(server.base, app.id, token)).status).toBe(200);
    let before = server.count(ADMIN_TOKEN_LOOKUP);
    expect((await ask(server.base, app.id, token)).status).toBe(200);
    expect(server.count(ADMIN_TOKEN_LOOKUP) - before).toBe(0);
    // MAX_VERDICTS distinct made-up tokens, each refused (and each read from the catalog once).
    const flood = Array.from({ length: MAX_VERDICTS }, (_, i) => `tat_flood${i}`);
    for (let i = 0; i < flood.length; i += 50) {
      const replies = await Promise.all(flood.slice(i, i + 50).map((t) => ask(server.base, app.id, t, '{ __typename }')));
      for (const reply of replies) expect(reply.status).toBe(401);
    }
    // Were every verdict kept, the genuine token's would still be: it is read again instead.
    before = server.count(ADMIN_TOKEN_LOOKUP);
    expect((await ask(server.base, app.id, token)).status).toBe(200);
    expect(server.count(ADMIN_TOKEN_LOOKUP) - before).toBe(1);
  }, 180_000);
});

// ---------------------------------------------------------------------------------------------

describe.each(STORE_KINDS)('user token cache over HTTP (%s)', (kind) => {
  let server: GatedServer;
  let second: GatedServer | undefined;
  let app: TestApp;

  beforeAll(async () => {
    server = await startGatedServer(kind);
    app = await createTestApp(server, SCHEMA);
    if (kind === 'postgres') second = await secondGatedInstance(server);
  });
  afterAll(async () => {
    await second?.close();
    await server?.close();
  });

  async function signUp(username: string): Promise<{ id: string; token: string }> {
    const reply = await app.gql(SIGN_UP, { i: { username, password: PASSWORD } }, {});
    expect(reply.body.errors).toBeUndefined();
    return { id: reply.body.data.createUser.changedUser.id, token: reply.body.data.createUser.token };
  }

  async function resetPassword(userId: string): Promise<void> {
    await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id: userId, password: 'another horse' } });
  }

  /** The changes after which DESIGN.md (§5, §11) says a user's earlier tokens stop working. */
  const ENDINGS: [string, (user: { id: string; token: string }) => Promise<void>][] = [
    ["an admin's new password", (user) => resetPassword(user.id)],
    [
      'changeUserPassword',
      async (user) => {
        const reply = await app.gql('mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { changedUser { id } } }', { i: { id: user.id, oldPassword: PASSWORD, newPassword: 'new horse' } }, { authorization: `Bearer ${user.token}` });
        expect(reply.body.errors).toBeUndefined();
      },
    ],
    [
      'logoutUser(allSessions)',
      async (user) => {
        const reply = await app.gql('mutation { logoutUser(input: { allSessions: true }) { endedSessions } }', {}, { authorization: `Bearer ${user.token}` });
        expect(reply.body.errors).toBeUndefined();
      },
    ],
    ['deleteUser', (user) => app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: user.id } }).then(() => undefined)],
  ];

  // The race the admin verdicts lose (above), for users: a user's state read before the change
  // commits must not be cached once the change is known. Sound: the hold and the epoch of
  // UserTokenCache (tokenCache.ts:181-200) keep the stale read out.
  for (const [i, [change, end]] of ENDINGS.entries()) {
    it(`does not cache a user read in flight during ${change} on this instance`, async () => {
      const user = await signUp(`racer${i}`);
      const held = server.holdNext(USER_STATE_READ);
      const inFlight = ask(server.base, app.id, user.token);
      await held.ran;
      await end(user);
      held.release();
      expect((await inFlight).status).toBe(200);
      expectRefused(await ask(server.base, app.id, user.token));
      expectRefused(await ask(server.base, app.id, user.token));
    });
  }

  // A second instance shares the store: PostgreSQL only.
  if (kind === 'postgres')
    it('does not cache a user read in flight on a second instance while their password changes on the first', async () => {
    const instance = second as GatedServer;
    const bob = await signUp('bob');
    const held = instance.holdNext(USER_STATE_READ);
    const inFlight = ask(instance.base, app.id, bob.token);
    await held.ran;
    await resetPassword(bob.id);
    // The change is heard of on the second instance through LISTEN/NOTIFY: give it a moment.
    await sleep(300);
    held.release();
    expect((await inFlight).status).toBe(200);
    expectRefused(await ask(instance.base, app.id, bob.token));
  });

  it('refuses a cached token at a fork of its app, whose users have the same ids and passwords', async () => {
    const cid = await signUp('cid');
    for (let i = 0; i < 2; i++) expect((await ask(server.base, app.id, cid.token)).status).toBe(200);
    const fork = await forkApp(server, app.id);
    for (let i = 0; i < 2; i++) expectRefused(await ask(server.base, fork, cid.token));
    // The fork's own login for the same user works there, and not at the original.
    const login = await fetch(`${server.base}/graphql/${fork}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', variables: { i: { username: 'cid', password: PASSWORD } } }),
    });
    const forkToken: string = ((await login.json()) as Json).data.loginUser.token;
    const there = await ask(server.base, fork, forkToken);
    expect(there.status).toBe(200);
    expect(there.body.data.viewer.user.id).toBe(cid.id);
    expectRefused(await ask(server.base, app.id, forkToken));
  });

  it('refuses many forged and huge user tokens without reading the database, and keeps the genuine one working', async () => {
    const dan = await signUp('dan');
    expect((await ask(server.base, app.id, dan.token)).status).toBe(200);
    const [header, payload, signature] = dan.token.split('.') as [string, string, string];
    const forged = Array.from({ length: 300 }, (_, i) => `${header}.${payload}.${signature.slice(0, -6)}${i.toString(36).padStart(6, 'A')}`);
    // As long as Node's header limit (16 KiB in all) lets through: a genuine token with 8 KiB
    // more, and a payload padded to 6 KiB under the genuine signature.
    const huge = [`${dan.token}${'A'.repeat(8 * 1024)}`, `${header}.${Buffer.from(JSON.stringify({ pad: 'x'.repeat(4 * 1024) })).toString('base64url')}.${signature}`];
    const before = server.count(USER_STATE_READ);
    for (let i = 0; i < forged.length; i += 50) {
      for (const reply of await Promise.all(forged.slice(i, i + 50).map((t) => ask(server.base, app.id, t, '{ __typename }')))) expectRefused(reply);
    }
    for (const token of huge) expectRefused(await ask(server.base, app.id, token));
    // A forged token is refused by its signature, before any user is read.
    expect(server.count(USER_STATE_READ) - before).toBe(0);
    const reply = await ask(server.base, app.id, dan.token);
    expect(reply.status).toBe(200);
    expect(reply.body.data.viewer.user.id).toBe(dan.id);
  });
});

// ---------------------------------------------------------------------------------------------

describe('user token cache, unit', () => {
  const APP_ID = 'aaaaaaaaaaaa';
  const keys: SigningKeyRow[] = [{ ...signingKey(), createdAt: new Date(), retiredAt: null }];

  it("lets a cached token go at the very millisecond the signature check (jose) stops accepting it", async () => {
    const issuedAt = Date.UTC(2030, 0, 1, 12, 0, 0, 500);
    const token = await signUserToken(keys, { appId: APP_ID, userId: 'VXNlcjp4', lifetimeSeconds: 60, passwordFingerprint: passwordFingerprint('hash'), now: issuedAt });
    const claims = await verifyUserToken(keys, APP_ID, token, issuedAt);
    const expiresAt = claims.exp * 1000;
    const cache = new UserTokenCache();
    const [key0] = keys as [SigningKeyRow];
    cache.rememberToken(APP_ID, token, { userId: 'u', pwf: claims.pwf, gen: claims.gen, expiresAt, kid: key0.kid, publicKey: String((key0.publicJwk as { x: string }).x) });
    // One millisecond before: both accept.
    await expect(verifyUserToken(keys, APP_ID, token, expiresAt - 1)).resolves.toBeDefined();
    expect(cache.token(APP_ID, token, keys, expiresAt - 1)).toBeDefined();
    // At expiry: both refuse, and the cache forgets the token.
    await expect(verifyUserToken(keys, APP_ID, token, expiresAt)).rejects.toThrow(/expired/);
    expect(cache.token(APP_ID, token, keys, expiresAt)).toBeUndefined();
    expect(cache.token(APP_ID, token, keys, expiresAt - 1)).toBeUndefined();
  });

  it('holds at most its bound of tokens, least recently used first out, none longer than any app issues, each for its own app only', () => {
    const cache = new UserTokenCache(100);
    const [key0] = keys as [SigningKeyRow];
    const verified = { userId: 'u', pwf: '', gen: 0, expiresAt: Date.now() + 60_000, kid: key0.kid, publicKey: String((key0.publicJwk as { x: string }).x) };
    cache.rememberToken(APP_ID, 'token 0', verified);
    for (let i = 1; i < 1_000; i++) cache.rememberToken(APP_ID, `token ${i}`, verified);
    expect(cache.token(APP_ID, 'token 0', keys)).toBeUndefined();
    expect(cache.token(APP_ID, 'token 999', keys)).toBe(verified);
    // The same token at another app is not known there, and stays known at its own.
    expect(cache.token('bbbbbbbbbbbb', 'token 999', keys)).toBeUndefined();
    expect(cache.token(APP_ID, 'token 999', keys)).toBe(verified);
    // A token longer than any issued is not kept: its length cannot grow the cache.
    const long = 'x'.repeat(MAX_CACHED_TOKEN + 1);
    cache.rememberToken(APP_ID, long, verified);
    expect(cache.token(APP_ID, long, keys)).toBeUndefined();
    const longest = 'y'.repeat(MAX_CACHED_TOKEN);
    cache.rememberToken(APP_ID, longest, verified);
    expect(cache.token(APP_ID, longest, keys)).toBe(verified);
  });

  it('is not asked to keep a token longer than it keeps: an issued token is well under the bound', async () => {
    const token = await signUserToken(keys, { appId: APP_ID, userId: 'VXNlcjp4', lifetimeSeconds: 60, passwordFingerprint: passwordFingerprint('hash') });
    expect(token.length).toBeLessThan(MAX_CACHED_TOKEN / 2);
  });
});
