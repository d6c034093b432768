// Two-factor login over HTTP on both stores: enrollTotp and confirmTotp turn it on (codes
// computed here with otpauth, as an authenticator app would), then loginUser needs a code —
// MFA_REQUIRED without one or with a wrong one, never for a wrong password — and accepts each
// code once, a recovery code too. disableTotp turns it off (the user with a code, an admin
// token for anyone); wrong codes count against the login throttle; the factor goes with its
// user and app; the management API and viewer.twoFactorEnabled tell who has it on; and no
// secret, code or token reaches the server's log.

import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';
import { sleep } from '../helpers/wait.js';

const SCHEMA = 'type Note @model { text: String }';
const PASSWORD = 'correct horse';
const ENROL = 'mutation { enrollTotp(input: { clientMutationId: "e1" }) { secret otpauthUri clientMutationId } }';
const CONFIRM = 'mutation($i: ConfirmTotpInput!) { confirmTotp(input: $i) { recoveryCodes clientMutationId } }';
const DISABLE = 'mutation($i: DisableTotpInput!) { disableTotp(input: $i) { disabled clientMutationId } }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token refreshToken user { id } } }';
const TWO_FACTOR_ON = '{ viewer { twoFactorEnabled } }';
const WRONG_LOGIN = 'Wrong username or password';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function codes(reply: GraphQLResult): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions.code as string);
}

/**
 * The code of `secret` for the time step `offset` steps from now, as an authenticator shows it.
 * Never computed in a step's last two seconds, so the server checks it in the step it was for.
 */
async function codeOf(secret: string, offset = 0): Promise<string> {
  const remaining = TOTP.remaining({ period: 30 });
  if (remaining < 2_000) await sleep(remaining + 50);
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offset * 30_000 });
}

/** A six-digit code that is none of `secret`'s codes around now. */
async function wrongCodeOf(secret: string): Promise<string> {
  const valid = new Set([await codeOf(secret, -1), await codeOf(secret, 0), await codeOf(secret, 1)]);
  let n = 123456;
  while (valid.has(String(n))) n += 1;
  return String(n);
}

describe.each(STORE_KINDS)('two-factor login (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let appName: string;
  /** Every secret, code and token the tests handled: none may appear in the server's log. */
  const handled = new Set<string>();

  beforeAll(async () => {
    server = await startTestServer(kind);
    appName = `totp${Math.random().toString(36).slice(2, 10)}`;
    app = await createTestApp(server, SCHEMA, appName);
  });
  afterAll(async () => server?.close());

  const login = (username: string, password: string, totpCode?: string, target: TestApp = app) => {
    if (totpCode !== undefined) handled.add(totpCode);
    return target.gql(LOGIN, { i: totpCode === undefined ? { username, password } : { username, password, totpCode } }, {});
  };
  const confirm = (token: string, code: string, target: TestApp = app) => {
    handled.add(code);
    return target.gql(CONFIRM, { i: { code, clientMutationId: 'c1' } }, bearer(token));
  };
  const disable = (input: Record<string, unknown>, headers: Record<string, string>, target: TestApp = app) => {
    if (typeof input.code === 'string') handled.add(input.code);
    return target.gql(DISABLE, { i: { ...input, clientMutationId: 'd1' } }, headers);
  };

  async function signUp(username: string, target: TestApp = app): Promise<{ id: string; token: string }> {
    const data = await target.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username, password: PASSWORD } });
    handled.add(data.createUser.token);
    return { id: data.createUser.changedUser.id, token: data.createUser.token };
  }

  async function enrol(token: string, target: TestApp = app): Promise<{ secret: string; otpauthUri: string }> {
    const reply = await target.gql(ENROL, {}, bearer(token));
    expect(reply.body.errors).toBeUndefined();
    const { secret, otpauthUri } = reply.body.data.enrollTotp;
    handled.add(secret);
    return { secret, otpauthUri };
  }

  /** A user with two-factor login on, confirmed with the code of the step before now (so codes of now and after are fresh). */
  async function withTwoFactor(username: string, target: TestApp = app): Promise<{ id: string; token: string; secret: string; recoveryCodes: string[] }> {
    const user = await signUp(username, target);
    const { secret } = await enrol(user.token, target);
    const reply = await confirm(user.token, await codeOf(secret, -1), target);
    expect(reply.body.errors).toBeUndefined();
    const recoveryCodes: string[] = reply.body.data.confirmTotp.recoveryCodes;
    for (const code of recoveryCodes) handled.add(code);
    return { ...user, secret, recoveryCodes };
  }

  async function expectLoggedIn(reply: GraphQLResult): Promise<void> {
    expect(reply.body.errors).toBeUndefined();
    const { token, refreshToken } = reply.body.data.loginUser;
    handled.add(token);
    handled.add(refreshToken);
    expect(refreshToken).toMatch(/^trt_/);
    expect((await app.gql('{ viewer { user { id } } }', {}, bearer(token))).status).toBe(200);
  }

  function expectMfaRequired(reply: GraphQLResult): void {
    expect(reply.body.data).toEqual({ loginUser: null });
    expect(codes(reply)).toEqual(['MFA_REQUIRED']);
  }

  const sessionsOf = async (userId: string) => {
    const uuid = Buffer.from(userId, 'base64url').toString('utf8').split(':')[1];
    const { rows } = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM tessera.refresh_tokens WHERE app_id = ${app.id} AND user_id = ${uuid}::uuid`);
    return rows[0]?.n;
  };
  const uuidOf = (id: string) => Buffer.from(id, 'base64url').toString('utf8').split(':')[1] as string;
  const twoFactorOn = async (token: string) => (await app.gql(TWO_FACTOR_ON, {}, bearer(token))).body.data.viewer.twoFactorEnabled;

  it('enrollTotp answers a base32 secret and an otpauth URI naming the app and the user; enrolling again replaces it', async () => {
    const ann = await signUp('ann');
    const reply = await app.gql(ENROL, {}, bearer(ann.token));
    expect(reply.body.errors).toBeUndefined();
    const first = reply.body.data.enrollTotp;
    handled.add(first.secret);
    expect(first.clientMutationId).toBe('e1');
    expect(first.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(first.otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/${appName}:ann`);
    expect(uri.searchParams.get('secret')).toBe(first.secret);
    expect(uri.searchParams.get('issuer')).toBe(appName);
    // An authenticator app reads the URI as is, and shows the codes the server expects.
    const parsed = URI.parse(first.otpauthUri);
    expect(parsed).toBeInstanceOf(TOTP);
    expect(parsed).toMatchObject({ issuer: appName, label: 'ann', algorithm: 'SHA1', digits: 6, period: 30 });
    expect(parsed.generate()).toBe(TOTP.generate({ secret: Secret.fromBase32(first.secret) }));

    // Pending: nothing changes for logins until it is confirmed.
    expect(await twoFactorOn(ann.token)).toBe(false);
    await expectLoggedIn(await login('ann', PASSWORD));

    const second = await enrol(ann.token);
    expect(second.secret).not.toBe(first.secret);
    // The first secret's codes no longer confirm; the second one's do.
    const stale = await confirm(ann.token, await codeOf(first.secret));
    expect(codes(stale)).toEqual(['BAD_USER_INPUT']);
    expect(stale.body.errors[0].extensions.field).toBe('code');
    const confirmed = await confirm(ann.token, await codeOf(second.secret));
    expect(confirmed.body.errors).toBeUndefined();
    for (const code of confirmed.body.data.confirmTotp.recoveryCodes as string[]) handled.add(code);
  });

  it('confirmTotp turns two-factor login on and answers ten recovery codes, stored only as hashes; enrolling again is refused', async () => {
    const bob = await signUp('bob');
    const { secret } = await enrol(bob.token);
    const reply = await confirm(bob.token, await codeOf(secret));
    expect(reply.body.errors).toBeUndefined();
    const { recoveryCodes, clientMutationId } = reply.body.data.confirmTotp;
    for (const code of recoveryCodes as string[]) handled.add(code);
    expect(clientMutationId).toBe('c1');
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes as string[]) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const { rows } = await server.store.query<{ code_hash: string }>(sql`SELECT code_hash FROM tessera.totp_recovery_codes WHERE app_id = ${app.id} AND user_id = ${uuidOf(bob.id)}::uuid`);
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(recoveryCodes.some((c: string) => row.code_hash.includes(c.replaceAll('-', '')))).toBe(false);
    }
    expect(await twoFactorOn(bob.token)).toBe(true);

    // Turned on, the factor cannot be swapped by whoever holds a token: off first, with a code.
    const again = await app.gql(ENROL, {}, bearer(bob.token));
    expect(codes(again)).toEqual(['FORBIDDEN']);
    expect(again.body.data).toEqual({ enrollTotp: null });
    expect(codes(await confirm(bob.token, await codeOf(secret, 1)))).toEqual(['FORBIDDEN']);
    // The secret is unchanged: its codes still log in.
    await expectLoggedIn(await login('bob', PASSWORD, await codeOf(secret, 1)));
  });

  it('confirmTotp refuses a wrong code, a code without an enrolment, and callers who are no user', async () => {
    const cat = await signUp('cat');
    expect(codes(await confirm(cat.token, '123456'))).toEqual(['BAD_USER_INPUT']);
    const { secret } = await enrol(cat.token);
    const wrong = await confirm(cat.token, await wrongCodeOf(secret));
    expect(codes(wrong)).toEqual(['BAD_USER_INPUT']);
    expect(wrong.body.errors[0].extensions.field).toBe('code');
    expect(codes(await confirm(cat.token, 'not a code'))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await confirm(cat.token, '1\u00002345'))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await confirm(cat.token, '1'.repeat(5000)))).toEqual(['BAD_USER_INPUT']);
    // Still off.
    expect(await twoFactorOn(cat.token)).toBe(false);
    await expectLoggedIn(await login('cat', PASSWORD));
    // No user: anonymous, or an admin token.
    expect(codes(await app.gql(ENROL, {}, {}))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await app.gql(ENROL, {}, bearer(app.token)))).toEqual(['FORBIDDEN']);
    expect(codes(await app.gql(CONFIRM, { i: { code: await codeOf(secret) } }, {}))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await app.gql(CONFIRM, { i: { code: await codeOf(secret) } }, bearer(app.token)))).toEqual(['FORBIDDEN']);
  });

  it('loginUser answers MFA_REQUIRED without a code or with a wrong one — no token, no session — and logs in with a right one', async () => {
    const dan = await withTwoFactor('dan');
    const before = await sessionsOf(dan.id);
    const wrongPassword = await login('dan', 'wrong password');
    const missing = await login('dan', PASSWORD);
    expectMfaRequired(missing);
    // Answered like a wrong password: the field is null, the status the same.
    expect(missing.status).toBe(wrongPassword.status);
    expect(missing.body.errors[0].path).toEqual(['loginUser']);
    expectMfaRequired(await login('dan', PASSWORD, ''));
    expectMfaRequired(await login('dan', PASSWORD, await wrongCodeOf(dan.secret)));
    expectMfaRequired(await login('dan', PASSWORD, 'abcd-efgh-jkmn'));
    expectMfaRequired(await login('dan', PASSWORD, '12345'));
    expect(await sessionsOf(dan.id)).toBe(before);
    // The right code, written with a space as some authenticators show it.
    const code = await codeOf(dan.secret);
    await expectLoggedIn(await login('dan', PASSWORD, `${code.slice(0, 3)} ${code.slice(3)}`));
    expect(await sessionsOf(dan.id)).toBe((before ?? 0) + 1);
  });

  it('a wrong password never answers MFA_REQUIRED: the same UNAUTHENTICATED as an unknown user, and the code is not used up', async () => {
    await withTwoFactor('eve');
    const { secret } = await withTwoFactor('eve2');
    const unknown = await login('nobody-here', 'wrong password', '123456');
    for (const reply of [await login('eve', 'wrong password'), await login('eve2', 'wrong password', await codeOf(secret)), unknown]) {
      expect(reply.body.data).toEqual({ loginUser: null });
      expect(codes(reply)).toEqual(['UNAUTHENTICATED']);
      expect(reply.body.errors[0].message).toBe(WRONG_LOGIN);
      expect(reply.status).toBe(unknown.status);
    }
    // The code given with the wrong password still logs in.
    await expectLoggedIn(await login('eve2', PASSWORD, await codeOf(secret)));
  });

  it('accepts a code once: the same code again, or one of an earlier step, is refused', async () => {
    const fay = await withTwoFactor('fay');
    const next = await codeOf(fay.secret, 1);
    await expectLoggedIn(await login('fay', PASSWORD, next));
    expectMfaRequired(await login('fay', PASSWORD, next));
    // The current step's code is older than the one used: refused too.
    const now = await codeOf(fay.secret, 0);
    if (now !== next) expectMfaRequired(await login('fay', PASSWORD, now));
    // Two logins racing with one fresh code: exactly one gets in.
    const gus = await withTwoFactor('gus');
    const code = await codeOf(gus.secret);
    const replies = await Promise.all([login('gus', PASSWORD, code), login('gus', PASSWORD, code)]);
    expect(replies.map(codes).sort()).toEqual([[], ['MFA_REQUIRED']]);
  });

  it('a recovery code logs in once, written in any case and with or without dashes', async () => {
    const hal = await withTwoFactor('hal');
    const [first, second] = hal.recoveryCodes as [string, string];
    await expectLoggedIn(await login('hal', PASSWORD, first));
    expectMfaRequired(await login('hal', PASSWORD, first));
    await expectLoggedIn(await login('hal', PASSWORD, second.replaceAll('-', '').toUpperCase()));
    expectMfaRequired(await login('hal', PASSWORD, second));
    const status = await admin(server, 'query($app: ID!, $ids: [ID!]!) { app(id: $app) { twoFactor(userIds: $ids) { recoveryCodesLeft } } }', { app: app.id, ids: [hal.id] });
    expect(status.body.data.app.twoFactor).toEqual([{ recoveryCodesLeft: 8 }]);
  });

  it("codes of another user or another app's user are worthless; another user can neither confirm nor turn off yours", async () => {
    const ida = await signUp('ida');
    const { secret } = await enrol(ida.token);
    const jon = await withTwoFactor('jon');
    // Jon confirming with Ida's code confirms nothing of Ida's (Jon's own factor is on already).
    expect(codes(await confirm(jon.token, await codeOf(secret)))).toEqual(['FORBIDDEN']);
    expect(await twoFactorOn(ida.token)).toBe(false);
    const idaOn = await confirm(ida.token, await codeOf(secret));
    expect(idaOn.body.errors).toBeUndefined();
    // Jon's code does not log Ida in, nor Ida's Jon.
    expectMfaRequired(await login('ida', PASSWORD, await codeOf(jon.secret, 1)));
    expectMfaRequired(await login('jon', PASSWORD, await codeOf(secret, 1)));
    expectMfaRequired(await login('ida', PASSWORD, jon.recoveryCodes[0]));
    // Jon cannot turn Ida's off, whatever he gives.
    expect(codes(await disable({ code: await codeOf(secret, 1) }, bearer(jon.token)))).toEqual(['BAD_USER_INPUT']);
    const users = await app.data('{ viewer { allUsers(where: { username: { eq: "ida" } }) { edges { node { id } } } } }');
    const idaId: string = users.viewer.allUsers.edges[0].node.id;
    expect(codes(await disable({ userId: idaId, code: await codeOf(secret, 1) }, bearer(jon.token)))).toEqual(['FORBIDDEN']);
    expect(await twoFactorOn(ida.token)).toBe(true);
    expect(await twoFactorOn(jon.token)).toBe(true);

    // Another app with a user of the same name and a factor of its own.
    const other = await createTestApp(server, SCHEMA);
    const twin = await withTwoFactor('jon', other);
    expectMfaRequired(await login('jon', PASSWORD, await codeOf(twin.secret, 1)));
    expectMfaRequired(await login('jon', PASSWORD, await codeOf(jon.secret, 1), other));
    expectMfaRequired(await login('jon', PASSWORD, twin.recoveryCodes[0]));
    // Another app's admin token is refused before anything runs.
    expect((await disable({ userId: jon.id }, bearer(other.token))).status).toBe(401);
    expect(await twoFactorOn(jon.token)).toBe(true);
  });

  it('the user turns it off with a current code or a recovery code; a wrong code or none is refused', async () => {
    const kim = await withTwoFactor('kim');
    expect(codes(await disable({}, bearer(kim.token)))).toEqual(['BAD_USER_INPUT']);
    const wrong = await disable({ code: await wrongCodeOf(kim.secret) }, bearer(kim.token));
    expect(codes(wrong)).toEqual(['BAD_USER_INPUT']);
    expect(wrong.body.errors[0].extensions.field).toBe('code');
    expect(codes(await disable({ code: 'aaaa-bbbb-cccc' }, bearer(kim.token)))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await disable({ code: await codeOf(kim.secret) }, {}))).toEqual(['UNAUTHENTICATED']);
    expect(await twoFactorOn(kim.token)).toBe(true);
    const off = await disable({ code: kim.recoveryCodes[3] }, bearer(kim.token));
    expect(off.body).toEqual({ data: { disableTotp: { disabled: true, clientMutationId: 'd1' } } });
    expect(await twoFactorOn(kim.token)).toBe(false);
    await expectLoggedIn(await login('kim', PASSWORD));
    // Off twice is no error; the recovery codes are gone with the factor.
    expect((await disable({ code: await codeOf(kim.secret) }, bearer(kim.token))).body.data.disableTotp.disabled).toBe(false);
    const { rows } = await server.store.query(sql`SELECT 1 FROM tessera.totp_recovery_codes WHERE app_id = ${app.id} AND user_id = ${uuidOf(kim.id)}::uuid`);
    expect(rows).toHaveLength(0);
    // A current code turns it off too, once it is on again with a new secret.
    const { secret } = await enrol(kim.token);
    expect(secret).not.toBe(kim.secret);
    expect((await confirm(kim.token, await codeOf(secret, -1))).body.errors).toBeUndefined();
    expect((await disable({ code: await codeOf(secret) }, bearer(kim.token))).body.data.disableTotp.disabled).toBe(true);
  });

  it("an admin token turns off any user's two-factor login — when a phone is lost", async () => {
    const lea = await withTwoFactor('lea');
    const reply = await disable({ userId: lea.id }, bearer(app.token));
    expect(reply.body).toEqual({ data: { disableTotp: { disabled: true, clientMutationId: 'd1' } } });
    await expectLoggedIn(await login('lea', PASSWORD));
    expect((await disable({ userId: lea.id }, bearer(app.token))).body.data.disableTotp.disabled).toBe(false);
    // The platform key is an admin too.
    const max = await withTwoFactor('max');
    expect((await disable({ userId: max.id }, bearer(server.key))).body.data.disableTotp.disabled).toBe(true);
    // Bad ids are bad input; an admin must name the user.
    const note = await app.data('mutation { createNote(input: { text: "x" }) { changedNote { id } } }');
    expect(codes(await disable({ userId: note.createNote.changedNote.id }, bearer(app.token)))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await disable({ userId: 'nonsense' }, bearer(app.token)))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await disable({}, bearer(app.token)))).toEqual(['BAD_USER_INPUT']);
  });

  it('wrong codes count against the login throttle: past the limit even the right code is refused', async () => {
    // A fresh app: its throttle counts start from nothing.
    const fresh = await createTestApp(server, SCHEMA);
    const ned = await withTwoFactor('ned', fresh);
    const wrong = await wrongCodeOf(ned.secret);
    for (let i = 0; i < 10; i++) expectMfaRequired(await login('ned', PASSWORD, wrong, fresh));
    const blocked = await login('ned', PASSWORD, await codeOf(ned.secret), fresh);
    expect(blocked.status).toBe(429);
    expect(codes(blocked)).toEqual(['RATE_LIMITED']);
    // Turning it off with guessed codes counts the same way, under the user's username.
    const oli = await withTwoFactor('oli', fresh);
    const guess = await wrongCodeOf(oli.secret);
    for (let i = 0; i < 10; i++) expect(codes(await disable({ code: guess }, bearer(oli.token), fresh))).toEqual(['BAD_USER_INPUT']);
    const refused = await disable({ code: await codeOf(oli.secret) }, bearer(oli.token), fresh);
    expect(codes(refused)).toEqual(['RATE_LIMITED']);
    expect(refused.status).toBe(429);
    const still = await fresh.gql(TWO_FACTOR_ON, {}, bearer(oli.token));
    expect(still.body.data.viewer.twoFactorEnabled).toBe(true);
  });

  it("a deleted user's factor goes with them, and an app's with the app", async () => {
    const pia = await withTwoFactor('pia');
    const factorRows = async (appId: string) => {
      const factors = await server.store.query(sql`SELECT 1 FROM tessera.totp_factors WHERE app_id = ${appId}`);
      const recovery = await server.store.query(sql`SELECT 1 FROM tessera.totp_recovery_codes WHERE app_id = ${appId}`);
      return { factors: factors.rows.length, recovery: recovery.rows.length };
    };
    const userRows = async (id: string) => (await server.store.query(sql`SELECT 1 FROM tessera.totp_factors WHERE app_id = ${app.id} AND user_id = ${uuidOf(id)}::uuid`)).rows.length;
    expect(await userRows(pia.id)).toBe(1);
    await app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: pia.id } });
    expect(await userRows(pia.id)).toBe(0);
    const { rows } = await server.store.query(sql`SELECT 1 FROM tessera.totp_recovery_codes WHERE app_id = ${app.id} AND user_id = ${uuidOf(pia.id)}::uuid`);
    expect(rows).toHaveLength(0);
    // A new user of the same name starts without two-factor login.
    await signUp('pia');
    await expectLoggedIn(await login('pia', PASSWORD));

    const doomed = await createTestApp(server, SCHEMA);
    await withTwoFactor('quinn', doomed);
    expect(await factorRows(doomed.id)).toEqual({ factors: 1, recovery: 10 });
    const deleted = await admin(server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: doomed.id } });
    expect(deleted.body.data.deleteApp.deleted).toBe(true);
    expect(await factorRows(doomed.id)).toEqual({ factors: 0, recovery: 0 });
  });

  it('the management API and viewer.twoFactorEnabled tell who has two-factor login on, and no one else', async () => {
    const on = await withTwoFactor('ray');
    const off = await signUp('sam');
    const pending = await signUp('tia');
    await enrol(pending.token);
    const QUERY = 'query($app: ID!, $ids: [ID!]!) { app(id: $app) { twoFactor(userIds: $ids) { userId enabled enabledAt recoveryCodesLeft } } }';
    const reply = await admin(server, QUERY, { app: app.id, ids: [on.id, off.id, pending.id] });
    expect(reply.body.errors).toBeUndefined();
    const [a, b, c] = reply.body.data.app.twoFactor;
    expect(a).toMatchObject({ userId: on.id, enabled: true, recoveryCodesLeft: 10 });
    expect(Date.parse(a.enabledAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(b).toEqual({ userId: off.id, enabled: false, enabledAt: null, recoveryCodesLeft: 0 });
    expect(c).toEqual({ userId: pending.id, enabled: false, enabledAt: null, recoveryCodesLeft: 0 });
    const note = await app.data('mutation { createNote(input: { text: "x" }) { changedNote { id } } }');
    expect((await admin(server, QUERY, { app: app.id, ids: [note.createNote.changedNote.id] })).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const many = Array.from({ length: 1001 }, () => on.id);
    expect((await admin(server, QUERY, { app: app.id, ids: many })).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    // Only the platform key reaches the management API.
    expect((await admin(server, QUERY, { app: app.id, ids: [on.id] }, bearer(app.token))).status).toBe(401);

    // The data API tells each user about themselves only.
    expect(await twoFactorOn(on.token)).toBe(true);
    expect(await twoFactorOn(off.token)).toBe(false);
    expect(await twoFactorOn(pending.token)).toBe(false);
    expect((await app.gql(TWO_FACTOR_ON, {}, {})).body.data.viewer.twoFactorEnabled).toBeNull();
    expect((await app.gql(TWO_FACTOR_ON, {}, bearer(app.token))).body.data.viewer.twoFactorEnabled).toBeNull();
    // A mutation payload's viewer answers it too.
    const loggedIn = await app.gql('mutation($i: LoginUserInput!) { loginUser(input: $i) { viewer { twoFactorEnabled } } }', { i: { username: 'sam', password: PASSWORD } }, {});
    expect(loggedIn.body.data.loginUser.viewer).toEqual({ twoFactorEnabled: false });
  });

  it('never writes a secret, a code or a token to the server log', () => {
    expect(handled.size).toBeGreaterThan(50);
    expect(server.logs.length).toBeGreaterThan(0);
    const log = server.logs.map((line) => JSON.stringify(line)).join('\n');
    const found = [...handled]
      .filter((value) => value !== '')
      // A six-digit code only as a number of its own, not inside a timestamp.
      .filter((value) => (/^[0-9 ]+$/.test(value) ? new RegExp(`(?<![0-9])${value.replace(' ', ' ?')}(?![0-9])`).test(log) : log.includes(value)));
    expect(found).toEqual([]);
  });
});
