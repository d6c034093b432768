// Accounts by mail on both stores, through a real SMTP server in the test process: User.email
// and emailVerified, verification (requestEmailVerification, verifyEmail), password reset
// (requestPasswordReset with the same answer for known and unknown addresses, resetPassword
// ending every session), per-app mail settings with their own server, templates and a hidden
// password, refusals and throttling, and apps made before the built-in fields getting them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import { admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';
import { Inbox, codeIn } from '../helpers/inbox.js';

function codes(reply: GraphQLResult): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions.code as string);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const SCHEMA = 'type Note @model { text: String }';
const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id email emailVerified } token refreshToken } }';
const REQUEST_VERIFY = 'mutation($i: RequestEmailVerificationInput!) { requestEmailVerification(input: $i) { clientMutationId } }';
const VERIFY = 'mutation($i: VerifyEmailInput!) { verifyEmail(input: $i) { user { username email emailVerified } clientMutationId } }';
const REQUEST_RESET = 'mutation($i: RequestPasswordResetInput!) { requestPasswordReset(input: $i) { clientMutationId } }';
const RESET = 'mutation($i: ResetPasswordInput!) { resetPassword(input: $i) { user { username emailVerified } } }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token refreshToken } }';
const REFRESH = 'mutation($i: RefreshUserTokenInput!) { refreshUserToken(input: $i) { token } }';

describe.each(STORE_KINDS)('accounts by mail (%s)', (kind) => {
  let inbox: Inbox;
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    inbox = await new Inbox().start();
    server = await startTestServer(kind, { mail: { smtpUrl: inbox.url(), from: 'Tessera <noreply@tessera.test>' } });
    app = await createTestApp(server, SCHEMA, 'mailapp');
  });
  afterAll(async () => {
    await server?.close();
    await inbox?.close();
  });

  async function signUp(username: string, email: string | null, password = 'correct horse'): Promise<{ id: string; token: string; refreshToken: string }> {
    const reply = await app.gql(SIGN_UP, { i: { username, password, email } }, {});
    expect(reply.body.errors).toBeUndefined();
    const { changedUser, token, refreshToken } = reply.body.data.createUser;
    return { id: changedUser.id, token, refreshToken };
  }

  it('gives User an optional email, unique ignoring case, and an emailVerified the server keeps', async () => {
    const reply = await app.gql(SIGN_UP, { i: { username: 'ann', password: 'correct horse', email: 'Ann@Example.com' } }, {});
    expect(reply.body.data.createUser.changedUser).toMatchObject({ email: 'Ann@Example.com', emailVerified: false });
    expect(codes(await app.gql(SIGN_UP, { i: { username: 'ann2', password: 'x', email: 'ann@example.COM' } }, {}))).toEqual(['CONFLICT']);
    for (const email of ['not an address', 'a@b', '<a@b.c>', `${'a'.repeat(250)}@b.co`]) {
      expect(codes(await app.gql(SIGN_UP, { i: { username: `bad${email.length}`, password: 'x', email } }, {}))).toEqual(['BAD_USER_INPUT']);
    }
    // The server sets emailVerified; no input may.
    expect(codes(await app.gql(SIGN_UP, { i: { username: 'cheat', password: 'x', email: 'cheat@example.com', emailVerified: true } }, {}))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await app.gql('mutation { createUser(input: { username: "cheat", password: "x", emailVerified: true }) { token } }', {}, {}))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('mails a code that verifies the address, once', async () => {
    const ben = await signUp('ben', 'ben@example.com');
    const asked = await app.gql(REQUEST_VERIFY, { i: { clientMutationId: 'v1' } }, bearer(ben.token));
    expect(asked.body).toEqual({ data: { requestEmailVerification: { clientMutationId: 'v1' } } });
    const mail = await inbox.next('ben@example.com', 1);
    expect(mail.from?.text).toBe('"Tessera" <noreply@tessera.test>');
    expect(mail.subject).toBe('Confirm your address for mailapp');
    expect(mail.subject).not.toContain('tmt_');
    expect(mail.text).toContain('Hello ben');
    const code = codeIn(mail);
    const verified = await app.gql(VERIFY, { i: { token: code, clientMutationId: 'v2' } }, {});
    expect(verified.body).toEqual({ data: { verifyEmail: { user: { username: 'ben', email: 'ben@example.com', emailVerified: true }, clientMutationId: 'v2' } } });
    const again = await app.gql(VERIFY, { i: { token: code } }, {});
    expect(codes(again)).toEqual(['UNAUTHENTICATED']);
    expect(again.body.errors[0].message).toBe('The code is invalid, expired or already used');
    expect(again.body.data).toEqual({ verifyEmail: null });
  });

  it('clears emailVerified when the address changes, and a code for the old address verifies nothing', async () => {
    const cat = await signUp('cat', 'cat@example.com');
    await app.gql(REQUEST_VERIFY, { i: {} }, bearer(cat.token));
    const oldCode = codeIn(await inbox.next('cat@example.com', 1));
    await app.gql(REQUEST_VERIFY, { i: {} }, bearer(cat.token));
    const secondCode = codeIn(await inbox.next('cat@example.com', 2));
    expect((await app.gql(VERIFY, { i: { token: secondCode } }, {})).body.data.verifyEmail.user.emailVerified).toBe(true);
    const moved = await app.gql('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { email emailVerified } } }', { i: { id: cat.id, email: 'cat@new.example' } }, bearer(cat.token));
    expect(moved.body.data.updateUser.changedUser).toEqual({ email: 'cat@new.example', emailVerified: false });
    expect(codes(await app.gql(VERIFY, { i: { token: oldCode } }, {}))).toEqual(['UNAUTHENTICATED']);
    const me = await app.gql('{ viewer { user { emailVerified } } }', {}, bearer(cat.token));
    expect(me.body.data.viewer.user.emailVerified).toBe(false);
    // Setting the same address again (any case) keeps it verified.
    await app.gql(REQUEST_VERIFY, { i: {} }, bearer(cat.token));
    await app.gql(VERIFY, { i: { token: codeIn(await inbox.next('cat@new.example', 1)) } }, {});
    const same = await app.gql('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { emailVerified } } }', { i: { id: cat.id, email: 'CAT@new.example' } }, bearer(cat.token));
    expect(same.body.data.updateUser.changedUser.emailVerified).toBe(true);
  });

  it('refuses to send a verification mail to nobody, to anonymous callers, and for another user unless admin', async () => {
    const nomail = await signUp('nomail', null);
    expect(codes(await app.gql(REQUEST_VERIFY, { i: {} }, bearer(nomail.token)))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await app.gql(REQUEST_VERIFY, { i: {} }, {}))).toEqual(['UNAUTHENTICATED']);
    const dan = await signUp('dan', 'dan@example.com');
    const eve = await signUp('eve', 'eve@example.com');
    expect(codes(await app.gql(REQUEST_VERIFY, { i: { userId: dan.id } }, bearer(eve.token)))).toEqual(['FORBIDDEN']);
    expect(inbox.to('dan@example.com')).toHaveLength(0);
    const byAdmin = await app.gql(REQUEST_VERIFY, { i: { userId: dan.id } });
    expect(byAdmin.body.errors).toBeUndefined();
    await inbox.next('dan@example.com', 1);
    for (const token of ['', 'tmt_short', `tmt_${'A'.repeat(43)}`, eve.token, eve.refreshToken]) {
      expect(codes(await app.gql(VERIFY, { i: { token } }, {}))).toEqual(['UNAUTHENTICATED']);
    }
  });

  it('answers a reset request alike for known and unknown addresses, and mails only the known one', async () => {
    const fay = await signUp('fay', 'fay@example.com', 'old password');
    const known = await app.gql(REQUEST_RESET, { i: { email: 'FAY@example.com', clientMutationId: 'r' } }, {});
    const unknown = await app.gql(REQUEST_RESET, { i: { email: 'nobody@example.com', clientMutationId: 'r' } }, {});
    expect(known.status).toBe(unknown.status);
    expect(known.body).toEqual(unknown.body);
    expect(known.body).toEqual({ data: { requestPasswordReset: { clientMutationId: 'r' } } });
    const mail = await inbox.next('fay@example.com', 1);
    expect(mail.subject).toBe('Reset your mailapp password');
    expect(inbox.to('nobody@example.com')).toHaveLength(0);
    // The reset ends every session: access tokens and refresh tokens issued before.
    const session = (await app.gql(LOGIN, { i: { username: 'fay', password: 'old password' } }, {})).body.data.loginUser;
    const reset = await app.gql(RESET, { i: { token: codeIn(mail), newPassword: 'new password' } }, {});
    expect(reset.body).toEqual({ data: { resetPassword: { user: { username: 'fay', emailVerified: true } } } });
    for (const token of [fay.token, session.token]) expect((await app.gql('{ __typename }', {}, bearer(token))).status).toBe(401);
    for (const refreshToken of [fay.refreshToken, session.refreshToken]) expect(codes(await app.gql(REFRESH, { i: { refreshToken } }, {}))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await app.gql(LOGIN, { i: { username: 'fay', password: 'old password' } }, {}))).toEqual(['UNAUTHENTICATED']);
    expect((await app.gql(LOGIN, { i: { username: 'fay', password: 'new password' } }, {})).body.errors).toBeUndefined();
    // Single use.
    expect(codes(await app.gql(RESET, { i: { token: codeIn(mail), newPassword: 'third' } }, {}))).toEqual(['UNAUTHENTICATED']);
  });

  it('lets one reset code kill the others, and refuses an expired or a verification code', async () => {
    await signUp('gus', 'gus@example.com', 'old password');
    await app.gql(REQUEST_RESET, { i: { email: 'gus@example.com' } }, {});
    await app.gql(REQUEST_RESET, { i: { email: 'gus@example.com' } }, {});
    const [first, second] = [codeIn(await inbox.next('gus@example.com', 1)), codeIn(await inbox.next('gus@example.com', 2))];
    expect((await app.gql(RESET, { i: { token: second, newPassword: 'new password' } }, {})).body.errors).toBeUndefined();
    expect(codes(await app.gql(RESET, { i: { token: first, newPassword: 'other' } }, {}))).toEqual(['UNAUTHENTICATED']);
    await app.gql(REQUEST_RESET, { i: { email: 'gus@example.com' } }, {});
    const late = codeIn(await inbox.next('gus@example.com', 3));
    await server.store.query(sql`UPDATE tessera.mailed_tokens SET expires_at = now() - interval '1 second' WHERE app_id = ${app.id} AND used_at IS NULL`);
    expect(codes(await app.gql(RESET, { i: { token: late, newPassword: 'other' } }, {}))).toEqual(['UNAUTHENTICATED']);
    // A verification code is no reset code.
    const login = (await app.gql(LOGIN, { i: { username: 'gus', password: 'new password' } }, {})).body.data.loginUser;
    await app.gql(REQUEST_VERIFY, { i: {} }, bearer(login.token));
    const verification = codeIn(await inbox.next('gus@example.com', 4));
    expect(codes(await app.gql(RESET, { i: { token: verification, newPassword: 'other' } }, {}))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await app.gql(RESET, { i: { token: verification, newPassword: '' } }, {}))).toEqual(['BAD_USER_INPUT']);
  });

  it('throttles reset requests per address asked for, known or not, alike', async () => {
    const throttled = await createTestApp(server, SCHEMA);
    await throttled.gql(SIGN_UP, { i: { username: 'hal', password: 'x', email: 'hal@example.com' } }, {});
    for (const email of ['hal@example.com', 'ghost@example.com']) {
      const replies = [];
      for (let i = 0; i < 11; i++) replies.push(await throttled.gql(REQUEST_RESET, { i: { email } }, {}));
      expect(replies.slice(0, 10).flatMap(codes)).toEqual([]);
      expect(codes(replies[10] as GraphQLResult)).toEqual(['RATE_LIMITED']);
      expect((replies[10] as GraphQLResult).status).toBe(429);
    }
  });
});

describe.each(STORE_KINDS)('per-app mail settings (%s)', (kind) => {
  let server: TestServer;
  let own: Inbox;

  beforeAll(async () => {
    own = await new Inbox({ user: 'shop', pass: 's3cret' }).start();
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
    await own?.close();
  });

  const settings = (appId: string, values: Record<string, unknown>) =>
    admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { settings { smtpUrl mailFrom verifyEmailSubject verifyEmailText } } } }', { i: { appId, settings: values } });

  it('says the app cannot send mail when neither it nor the server has settings', async () => {
    const app = await createTestApp(server, SCHEMA);
    const reply = await app.gql(REQUEST_RESET, { i: { email: 'x@example.com' } }, {});
    expect(codes(reply)).toEqual(['UNAVAILABLE']);
    expect(reply.body.errors[0].message).toContain('smtpUrl');
  });

  it("sends through the app's own server and templates, and never shows its password", async () => {
    const app = await createTestApp(server, SCHEMA, 'shop');
    const saved = await settings(app.id, {
      smtpUrl: own.url('shop:s3cret@'),
      mailFrom: 'Shop <hello@shop.test>',
      verifyEmailSubject: 'Welcome to {{appName}}, {{username}}',
      verifyEmailText: 'Your code: {{token}} (for {{username}} at {{appName}}) {{token}}',
    });
    expect(saved.body.errors).toBeUndefined();
    const shown = saved.body.data.updateApp.app.settings;
    expect(shown.smtpUrl).toBe(`smtp://shop:********@127.0.0.1:${own.port}`);
    expect(JSON.stringify(saved.body)).not.toContain('s3cret');
    // The console reads settings and writes them back: the hidden form keeps the password.
    expect((await settings(app.id, { smtpUrl: shown.smtpUrl, mailFrom: 'Shop <hello@shop.test>' })).body.errors).toBeUndefined();
    // …but the hidden form around another server would store the mask: refused.
    const moved = await settings(app.id, { smtpUrl: `smtp://shop:********@mail.other.test:${own.port}` });
    expect(codes(moved)).toEqual(['BAD_USER_INPUT']);
    expect(moved.body.errors[0].extensions.setting).toBe('smtpUrl');
    const ivy = await app.gql(SIGN_UP, { i: { username: 'ivy', password: 'x', email: 'ivy@example.com' } }, {});
    const asked = await app.gql(REQUEST_VERIFY, { i: {} }, bearer(ivy.body.data.createUser.token));
    expect(asked.body.errors).toBeUndefined();
    const mail = await own.next('ivy@example.com', 1);
    expect(mail.subject).toBe('Welcome to shop, ivy');
    const code = codeIn(mail);
    expect(mail.text?.trim()).toBe(`Your code: ${code} (for ivy at shop) ${code}`);
  });

  it('refuses settings that cannot work, naming the setting', async () => {
    const app = await createTestApp(server, SCHEMA);
    for (const [setting, value] of [
      ['smtpUrl', 'http://mail.example.com'],
      ['smtpUrl', 'not a url'],
      ['mailFrom', 'nobody'],
      ['verifyEmailText', 'no code in here'],
      ['resetPasswordSubject', 'x'.repeat(201)],
      ['verifyEmailSubject', 'nul \u0000'],
    ] as const) {
      const reply = await settings(app.id, { [setting]: value });
      expect(codes(reply)).toEqual(['BAD_USER_INPUT']);
      expect(reply.body.errors[0].extensions.setting).toBe(setting);
    }
    expect((await settings(app.id, { smtpUrl: null, verifyEmailText: null })).body.errors).toBeUndefined();
  });

  it("sends a test mail through the app's settings, and says what the mail server answered when it cannot", async () => {
    const app = await createTestApp(server, SCHEMA, 'tested');
    const send = (to: string) => admin(server, 'mutation($i: SendTestMailInput!) { sendTestMail(input: $i) { sent } }', { i: { appId: app.id, to } });
    expect(codes(await send('ops@shop.test'))).toEqual(['UNAVAILABLE']);
    await settings(app.id, { smtpUrl: own.url('shop:s3cret@'), mailFrom: 'Shop <hello@shop.test>' });
    expect((await send('ops@shop.test')).body).toEqual({ data: { sendTestMail: { sent: true } } });
    expect((await own.next('ops@shop.test', 1)).subject).toBe('Test mail from tested');
    expect(codes(await send('not an address'))).toEqual(['BAD_USER_INPUT']);
    await settings(app.id, { smtpUrl: own.url('shop:wrong@') });
    const refused = await send('ops@shop.test');
    expect(codes(refused)).toEqual(['UNAVAILABLE']);
    expect(refused.body.errors[0].message).toContain('Invalid username or password');
    expect(JSON.stringify(refused.body)).not.toContain('wrong');
  });

  it('reports a mail server that refuses as UNAVAILABLE, with nothing half done', async () => {
    const app = await createTestApp(server, SCHEMA);
    await settings(app.id, { smtpUrl: own.url('shop:wrong@'), mailFrom: 'x@shop.test' });
    const jo = await app.gql(SIGN_UP, { i: { username: 'jo', password: 'x', email: 'jo@example.com' } }, {});
    const reply = await app.gql(REQUEST_VERIFY, { i: {} }, bearer(jo.body.data.createUser.token));
    expect(codes(reply)).toEqual(['UNAVAILABLE']);
    expect(JSON.stringify(reply.body)).not.toMatch(/wrong|Invalid username/);
  });
});

describe.each(STORE_KINDS)('apps made before User.email (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.close());

  /** Makes the app look as it did before the built-in fields: no columns, no model fields. */
  async function makeOld(app: TestApp, ownEmail: boolean): Promise<void> {
    const users = ident(appSchemaName(app.id), 'User');
    if (ownEmail) await server.store.query(sql`ALTER TABLE ${users} DROP COLUMN "emailVerified"`);
    else await server.store.query(sql`ALTER TABLE ${users} DROP COLUMN email, DROP COLUMN "emailVerified"`);
    const { rows } = await server.store.query<{ model: Json; version: number }>(sql`SELECT model, version FROM tessera.schema_versions WHERE app_id = ${app.id} ORDER BY version DESC LIMIT 1`);
    const model = rows[0]?.model;
    const user = model.types.find((t: Json) => t.name === 'User');
    user.fields = user.fields
      .filter((f: Json) => f.name !== 'emailVerified' && (ownEmail || f.name !== 'email'))
      .map((f: Json) => (f.name === 'email' ? { ...f, builtin: false, unique: false, index: false } : f));
    await server.store.query(sql`UPDATE tessera.schema_versions SET model = ${JSON.stringify(model)}::jsonb WHERE app_id = ${app.id} AND version = ${rows[0]?.version}`);
    if (ownEmail) await server.store.query(sql`DROP INDEX IF EXISTS ${ident(appSchemaName(app.id), 'User_email_key')}`);
    await server.store.notify('tessera_catalog', app.id);
  }

  it('gives them the built-in fields on their next request, keeping their data', async () => {
    const app = await createTestApp(server, SCHEMA);
    await app.data('mutation { createUser(input: { username: "old", password: "x" }) { changedUser { id } } }');
    await makeOld(app, false);
    // Wait for the catalog notice to drop the cached app.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const users = await app.data('{ viewer { allUsers { edges { node { username email emailVerified } } } } }');
    expect(users.viewer.allUsers.edges).toEqual([{ node: { username: 'old', email: null, emailVerified: false } }]);
    const { rows } = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM tessera.schema_versions WHERE app_id = ${app.id}`);
    expect(rows[0]?.n).toBe(2);
  });

  it('takes an email an app declared itself as the built-in one, with its rules', async () => {
    const app = await createTestApp(server, 'type User @model { email: String @permission(scope: EVERYONE, read: true) }');
    await app.data('mutation { createUser(input: { username: "own", password: "x", email: "own@example.com" }) { changedUser { id } } }');
    await makeOld(app, true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const users = await app.data('{ viewer { allUsers { edges { node { username email emailVerified } } } } }');
    expect(users.viewer.allUsers.edges).toEqual([{ node: { username: 'own', email: 'own@example.com', emailVerified: false } }]);
    // Unique ignoring case now.
    const dup = await app.gql('mutation { createUser(input: { username: "dup", password: "x", email: "OWN@example.com" }) { changedUser { id } } }');
    expect(codes(dup)).toEqual(['CONFLICT']);
  });

  it("refuses an app's own email of another type, saying what the built-in one is", async () => {
    const reply = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'bademail', schema: 'type User @model { email: Int }' } });
    expect(codes(reply)).toEqual(['SCHEMA_INVALID']);
    expect(JSON.stringify(reply.body.errors)).toContain('built in (String, optional, unique ignoring case)');
    const verified = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'badverified', schema: 'type User @model { emailVerified: Boolean }' } });
    expect(codes(verified)).toEqual(['SCHEMA_INVALID']);
  });
});
