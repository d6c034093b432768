// Sessions over HTTP on both stores: loginUser and createUser start one (a refresh token),
// refreshUserToken rotates it, a rotated token presented again revokes the whole family, and
// every other way a refresh token can be wrong (unknown, malformed, expired, of another app,
// of a changed password or a deleted user) answers the same UNAUTHENTICATED. logoutUser ends
// one session or all of a user's — and with them the access tokens issued before.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';

const SCHEMA = 'type Note @model { text: String }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token refreshToken user { id } } }';
const REFRESH = 'mutation($i: RefreshUserTokenInput!) { refreshUserToken(input: $i) { token refreshToken user { username } clientMutationId } }';
const LOGOUT = 'mutation($i: LogoutUserInput!) { logoutUser(input: $i) { endedSessions clientMutationId } }';
const REFUSED = 'The refresh token is invalid, expired or revoked';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function codes(reply: GraphQLResult): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions.code as string);
}

describe.each(STORE_KINDS)('sessions (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  async function signUp(username: string, password = 'correct horse'): Promise<{ id: string; token: string; refreshToken: string }> {
    const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token refreshToken } }', { i: { username, password } });
    return { id: data.createUser.changedUser.id, token: data.createUser.token, refreshToken: data.createUser.refreshToken };
  }

  async function login(username: string, password = 'correct horse', target: TestApp = app): Promise<{ token: string; refreshToken: string; id: string }> {
    const reply = await target.gql(LOGIN, { i: { username, password } }, {});
    expect(reply.body.errors).toBeUndefined();
    const { token, refreshToken, user } = reply.body.data.loginUser;
    return { token, refreshToken, id: user.id };
  }

  const refresh = (refreshToken: unknown, target: TestApp = app, headers: Record<string, string> = {}) => target.gql(REFRESH, { i: { refreshToken, clientMutationId: 'r1' } }, headers);
  const logout = (input: Record<string, unknown>, headers: Record<string, string> = {}) => app.gql(LOGOUT, { i: input }, headers);
  /** The status the endpoint answers an operation every caller may send with this token. */
  const accepted = async (token: string) => (await app.gql('{ __typename }', {}, bearer(token))).status;

  function expectRefused(reply: GraphQLResult): void {
    expect(reply.body.data).toEqual({ refreshUserToken: null });
    expect(codes(reply)).toEqual(['UNAUTHENTICATED']);
    expect(reply.body.errors[0].message).toBe(REFUSED);
  }

  it('loginUser and createUser start a session: an opaque refresh token', async () => {
    const created = await signUp('ann');
    expect(created.refreshToken).toMatch(/^trt_[A-Za-z0-9_-]{43}$/);
    const session = await login('ann');
    expect(session.refreshToken).toMatch(/^trt_[A-Za-z0-9_-]{43}$/);
    expect(session.refreshToken).not.toBe(created.refreshToken);
    // Only its hash is stored.
    const { rows } = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM tessera.refresh_tokens WHERE token_hash = ${session.refreshToken}`);
    expect(rows[0]?.n).toBe(0);
  });

  it('refreshUserToken answers a new token and the next refresh token, and the user', async () => {
    const session = await login('ann');
    const reply = await refresh(session.refreshToken);
    expect(reply.body.errors).toBeUndefined();
    const next = reply.body.data.refreshUserToken;
    expect(next.user).toEqual({ username: 'ann' });
    expect(next.clientMutationId).toBe('r1');
    expect(next.refreshToken).toMatch(/^trt_/);
    expect(next.refreshToken).not.toBe(session.refreshToken);
    expect(await accepted(next.token)).toBe(200);
    const me = await app.gql('{ viewer { user { username } } }', {}, bearer(next.token));
    expect(me.body.data.viewer.user).toEqual({ username: 'ann' });
    // The session goes on with the next token.
    const again = await refresh(next.refreshToken);
    expect(again.body.errors).toBeUndefined();
  });

  it('a rotated token presented again is refused and ends the whole session, and only that one', async () => {
    const stolen = await login('ann');
    const other = await login('ann');
    const first = (await refresh(stolen.refreshToken)).body.data.refreshUserToken;
    // The thief (or the owner) replays the used token: refused, and the family is revoked.
    expectRefused(await refresh(stolen.refreshToken));
    expectRefused(await refresh(first.refreshToken));
    // Another session of the same user goes on.
    expect((await refresh(other.refreshToken)).body.errors).toBeUndefined();
  });

  it('of two refreshes with one token at once, exactly one succeeds, and the session ends', async () => {
    const session = await login('ann');
    const replies = await Promise.all([refresh(session.refreshToken), refresh(session.refreshToken)]);
    const won = replies.filter((r) => r.body.errors === undefined);
    expect(won).toHaveLength(1);
    expectRefused(replies.find((r) => r.body.errors !== undefined) as GraphQLResult);
    expectRefused(await refresh((won[0] as GraphQLResult).body.data.refreshUserToken.refreshToken));
  });

  it('refuses every other wrong token with the same answer', async () => {
    const { token } = await login('ann');
    const other = await createTestApp(server, SCHEMA);
    await other.data('mutation { createUser(input: { username: "ann", password: "correct horse" }) { changedUser { id } } }');
    const elsewhere = await login('ann', 'correct horse', other);
    const wrong: unknown[] = [
      `trt_${'A'.repeat(43)}`, // well formed, never issued
      'trt_short',
      '',
      'x'.repeat(5000),
      token, // an access token
      app.token, // an admin token
      `${elsewhere.refreshToken}`.slice(0, -1) + (elsewhere.refreshToken.endsWith('A') ? 'B' : 'A'),
    ];
    for (const value of wrong) expectRefused(await refresh(value));
    // A refresh token of another app is worthless here, and still good there.
    expectRefused(await refresh(elsewhere.refreshToken));
    expect((await refresh(elsewhere.refreshToken, other)).body.errors).toBeUndefined();
    // A NUL is bad input, as everywhere.
    expect(codes(await refresh('trt_\u0000'))).toEqual(['BAD_USER_INPUT']);
  });

  it('refuses an expired refresh token', async () => {
    const session = await login('ann');
    await server.store.query(sql`UPDATE tessera.refresh_tokens SET expires_at = now() - interval '1 second' WHERE app_id = ${app.id} AND used_at IS NULL AND revoked_at IS NULL`);
    expectRefused(await refresh(session.refreshToken));
  });

  it('ends the sessions of a changed password and of a deleted user', async () => {
    const bob = await signUp('bob', 'old password');
    const session = await login('bob', 'old password');
    const changed = await app.gql('mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { changedUser { id } } }', { i: { id: bob.id, oldPassword: 'old password', newPassword: 'new password' } }, bearer(session.token));
    expect(changed.body.errors).toBeUndefined();
    expectRefused(await refresh(session.refreshToken));
    expectRefused(await refresh(bob.refreshToken));
    const fresh = await login('bob', 'new password');
    await app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: bob.id } });
    expectRefused(await refresh(fresh.refreshToken));
  });

  it('logoutUser ends one session; logging out again is no error', async () => {
    const kept = await login('ann');
    const session = await login('ann');
    const reply = await logout({ refreshToken: session.refreshToken, clientMutationId: 'l1' });
    expect(reply.body).toEqual({ data: { logoutUser: { endedSessions: 1, clientMutationId: 'l1' } } });
    expectRefused(await refresh(session.refreshToken));
    expect((await logout({ refreshToken: session.refreshToken })).body.data.logoutUser.endedSessions).toBe(0);
    expect((await logout({ refreshToken: `trt_${'B'.repeat(43)}` })).body.data.logoutUser.endedSessions).toBe(0);
    // The other session, and the access token, go on until they expire.
    expect((await refresh(kept.refreshToken)).body.errors).toBeUndefined();
    expect(await accepted(session.token)).toBe(200);
  });

  it('logoutUser with allSessions ends every session of the user and the access tokens issued before', async () => {
    const cat = await signUp('cat');
    const phone = await login('cat');
    const laptop = await login('cat');
    const dan = await signUp('dan');
    const reply = await logout({ allSessions: true }, bearer(phone.token));
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.logoutUser.endedSessions).toBe(3);
    for (const token of [cat.token, phone.token, laptop.token]) expect(await accepted(token)).toBe(401);
    for (const refreshToken of [cat.refreshToken, phone.refreshToken, laptop.refreshToken]) expectRefused(await refresh(refreshToken));
    // Someone else's sessions are untouched; a new login works at once.
    expect(await accepted(dan.token)).toBe(200);
    expect((await refresh(dan.refreshToken)).body.errors).toBeUndefined();
    const again = await login('cat');
    expect(await accepted(again.token)).toBe(200);
    expect((await refresh(again.refreshToken)).body.errors).toBeUndefined();
  });

  it('logoutUser with a live refresh token and allSessions does the same; a used one does not', async () => {
    await signUp('eve');
    const a = await login('eve');
    const b = await login('eve');
    const used = a.refreshToken;
    const next = (await refresh(used)).body.data.refreshUserToken;
    // A used token ends its own session (as a replay would), not the user's others.
    expect((await logout({ refreshToken: used, allSessions: true })).body.data.logoutUser.endedSessions).toBe(1);
    expect(await accepted(b.token)).toBe(200);
    expectRefused(await refresh(next.refreshToken));
    // b's session and the one sign-up started.
    const reply = await logout({ refreshToken: b.refreshToken, allSessions: true });
    expect(reply.body.data.logoutUser.endedSessions).toBe(2);
    expect(await accepted(b.token)).toBe(401);
  });

  it("only an admin token ends another user's sessions", async () => {
    const fay = await signUp('fay');
    const gus = await signUp('gus');
    const forbidden = await logout({ userId: fay.id, allSessions: true }, bearer(gus.token));
    expect(codes(forbidden)).toEqual(['FORBIDDEN']);
    expect(await accepted(fay.token)).toBe(200);
    expect(codes(await logout({ userId: fay.id }, bearer(app.token)))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await logout({ allSessions: true }, {}))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await logout({}, bearer(gus.token)))).toEqual(['BAD_USER_INPUT']);
    const ended = await logout({ userId: fay.id, allSessions: true }, bearer(app.token));
    expect(ended.body.errors).toBeUndefined();
    expect(ended.body.data.logoutUser.endedSessions).toBe(1);
    expect(await accepted(fay.token)).toBe(401);
    expectRefused(await refresh(fay.refreshToken));
    expect(await accepted(gus.token)).toBe(200);
  });

  it('the generation in a token cannot be forged: a token is signed', async () => {
    const hal = await signUp('hal');
    await logout({ allSessions: true }, bearer(hal.token));
    const [h, p, s] = hal.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, gen: 1 })).toString('base64url')}.${s}`;
    expect(await accepted(forged)).toBe(401);
  });
});

describe.each(STORE_KINDS)('session throttling (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { loginLimits: { perUserAndAddress: { points: 10, seconds: 900 }, perUser: { points: 30, seconds: 900 }, perAddress: { points: 5, seconds: 3600 } } });
  });
  afterAll(async () => server?.close());

  it('counts refresh attempts per address: wrong tokens run into RATE_LIMITED, a good one gives its point back', async () => {
    const app = await createTestApp(server, SCHEMA);
    const data = await app.data('mutation { createUser(input: { username: "ann", password: "correct horse" }) { refreshToken } }');
    let refreshToken: string = data.createUser.refreshToken;
    // Good refreshes do not use the allowance up.
    for (let i = 0; i < 8; i++) {
      const reply = await app.gql(REFRESH, { i: { refreshToken } }, {});
      expect(reply.body.errors).toBeUndefined();
      refreshToken = reply.body.data.refreshUserToken.refreshToken;
    }
    const wrong = await Promise.all(Array.from({ length: 8 }, (_, i) => app.gql(REFRESH, { i: { refreshToken: `trt_${String(i).repeat(43)}` } }, {})));
    const all = wrong.flatMap(codes);
    expect(all.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(5);
    expect(all.filter((c) => c === 'RATE_LIMITED')).toHaveLength(3);
    const blocked = await app.gql(REFRESH, { i: { refreshToken } }, {});
    expect(blocked.status).toBe(429);
    expect(codes(blocked)).toEqual(['RATE_LIMITED']);
  });
});
