// OpenID Connect sign-in over HTTP on both stores, against a real OpenID provider running in
// the test process (oidc-provider): real authorization codes with PKCE, redeemed by the server
// at the provider's token endpoint with the app's client secret, the ID token verified. A first
// sign-in creates the account, later ones find it by (issuer, subject) — never by username or
// email; an identity is linked to a logged-in user, refused when another user holds it, and
// unlinked. Every attack fails alike: a wrong verifier, a replayed code, another client's code
// or ID token, a wrong or missing nonce, a forged, expired or foreign ID token; unknown,
// foreign and removed providers are refused; attempts are throttled per address; and nothing
// secret reaches the logs.

import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcRelyingParty } from '../../src/oidc/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import { admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';
import { pkce, startOidcProvider } from '../helpers/oidcProvider.js';
import { client, openSubscriptions, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import type { TestAccount, TestClient, TestProvider, TokenResponse } from '../helpers/oidcProvider.js';

const SCHEMA = 'type Note @model { text: String }';
const LOGIN = 'mutation($i: LoginUserWithOidcInput!) { loginUserWithOidc(input: $i) { token refreshToken newUser user { id username lastLogin } clientMutationId } }';
const LINK = 'mutation($i: LinkOidcIdentityInput!) { linkOidcIdentity(input: $i) { user { id username } clientMutationId } }';
const UNLINK = 'mutation($i: UnlinkOidcIdentityInput!) { unlinkOidcIdentity(input: $i) { unlinkedIdentities user { id } } }';
const ADD = 'mutation($i: AddOidcProviderInput!) { addOidcProvider(input: $i) { oidcProvider { name issuer } } }';
const REMOVE = 'mutation($i: RemoveOidcProviderInput!) { removeOidcProvider(input: $i) { removed } }';
const REFUSED = 'The sign-in could not be verified: the code is invalid, used or expired, or the ID token is not valid';

const WEB: TestClient = { clientId: 'tessera-web', clientSecret: 'web-client-secret-4f9a1c', redirectUris: ['https://app.example.com/callback', 'https://app.example.com/cb?from=oidc'] };
const OTHER: TestClient = { clientId: 'other-app', clientSecret: 'other-client-secret-77b2e0', redirectUris: ['https://other.example.com/callback'] };
const REDIRECT = 'https://app.example.com/callback';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const codes = (reply: GraphQLResult): string[] => (reply.body.errors ?? []).map((e: Json) => e.extensions.code as string);

/** The test provider's accounts; tests add their own, so that each signs in as someone new. */
const accounts: Record<string, TestAccount> = {};
let provider: TestProvider;
let unique = 0;

/** A new account at the provider (its subject is returned). */
function account(profile: TestAccount = {}): string {
  unique += 1;
  const sub = `sub-${unique}-${Math.random().toString(36).slice(2, 8)}`;
  accounts[sub] = profile;
  return sub;
}

interface Grant {
  provider: string;
  code: string;
  codeVerifier: string;
  redirectUri: string;
  nonce?: string;
}

/** Runs the browser's part of the flow for `sub`: what the client hands the server. */
async function authorize(sub: string, options: { client?: TestClient; nonce?: string | null; redirectUri?: string; provider?: string } = {}): Promise<Grant> {
  const { verifier, challenge } = pkce();
  const nonce = options.nonce === null ? undefined : (options.nonce ?? `nonce-${Math.random().toString(36).slice(2)}`);
  const redirectUri = options.redirectUri ?? ((options.client ?? WEB).redirectUris[0] as string);
  const { code, state } = await provider.authorize({ client: options.client ?? WEB, account: sub, codeChallenge: challenge, redirectUri, state: 'st-1', ...(nonce === undefined ? {} : { nonce }) });
  expect(state).toBe('st-1');
  return { provider: options.provider ?? 'web', code, codeVerifier: verifier, redirectUri, ...(nonce === undefined ? {} : { nonce }) };
}

/** Everything secret the tests handled: none of it may appear in a log line. */
const secrets: string[] = [WEB.clientSecret, OTHER.clientSecret];
const remember = (...values: (string | undefined)[]) => secrets.push(...values.filter((v): v is string => v !== undefined && v.length > 8));

/** Decodes a JWT's payload (no check: the test made or read it). */
function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
}

beforeAll(async () => {
  provider = await startOidcProvider([WEB, OTHER], accounts);
});
afterAll(async () => provider?.close());

describe.each(STORE_KINDS)('OpenID Connect sign-in (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let otherApp: TestApp;

  const relyingParty = () => new OidcRelyingParty({ secrets: new SecretBox(generateSecretKey()), outbound: { allowPrivate: true } });

  async function addProvider(target: TestApp, name: string, client: TestClient, issuer = provider.issuer): Promise<void> {
    const reply = await admin(target.server, ADD, { i: { appId: target.id, name, issuer, clientId: client.clientId, clientSecret: client.clientSecret } });
    expect(reply.body.errors).toBeUndefined();
  }

  beforeAll(async () => {
    server = await startTestServer(kind, { oidc: relyingParty() });
    app = await createTestApp(server, SCHEMA);
    otherApp = await createTestApp(server, SCHEMA);
    await addProvider(app, 'web', WEB);
    await addProvider(otherApp, 'corp', OTHER);
  });
  afterAll(async () => server?.close());

  async function login(grant: Grant, target: TestApp = app, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<GraphQLResult> {
    remember(grant.code, grant.codeVerifier);
    const reply = await target.gql(LOGIN, { i: { ...grant, clientMutationId: 'm1', ...extra } }, headers);
    const answer = reply.body.data?.loginUserWithOidc;
    if (answer) remember(answer.token, answer.refreshToken);
    return reply;
  }

  async function signIn(sub: string, target: TestApp = app): Promise<Json> {
    const reply = await login(await authorize(sub, target === otherApp ? { client: OTHER, provider: 'corp' } : {}), target);
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.loginUserWithOidc;
  }

  async function expectRefused(reply: GraphQLResult): Promise<void> {
    expect(reply.body.data).toEqual({ loginUserWithOidc: null });
    expect(codes(reply)).toEqual(['UNAUTHENTICATED']);
    expect(reply.body.errors[0].message).toBe(REFUSED);
  }

  const userCount = async (target: TestApp = app): Promise<number> => (await target.data('{ viewer { allUsers { aggregations { count } } } }')).viewer.allUsers.aggregations.count;

  async function passwordUser(username: string, password = 'correct horse'): Promise<{ id: string; token: string }> {
    const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username, password } });
    return { id: data.createUser.changedUser.id, token: data.createUser.token };
  }

  it('a first sign-in creates the user and answers a token and a session, like loginUser', async () => {
    const sub = account({ preferred_username: 'alice', email: 'alice@example.com', email_verified: true });
    const before = await userCount();
    const answer = await signIn(sub);
    expect(await userCount()).toBe(before + 1);
    expect(answer.newUser).toBe(true);
    expect(answer.clientMutationId).toBe('m1');
    expect(answer.user.username).toBe('alice');
    expect(answer.user.lastLogin).toMatch(/^\d{4}-\d\d-\d\dT/);
    // The token is the app's own, for that user.
    const me = await app.gql('{ viewer { user { id username } } }', {}, bearer(answer.token));
    expect(me.body.data.viewer.user).toEqual({ id: answer.user.id, username: 'alice' });
    // The session refreshes like any other.
    const refreshed = await app.gql('mutation($i: RefreshUserTokenInput!) { refreshUserToken(input: $i) { user { id } } }', { i: { refreshToken: answer.refreshToken } }, {});
    expect(refreshed.body.data.refreshUserToken.user.id).toBe(answer.user.id);
  });

  it('gives a new account a password no password matches: loginUser fails for it as for nobody', async () => {
    await signIn(account({ preferred_username: 'nopass' }));
    const { rows } = await server.store.query<{ password: string }>(sql`SELECT password FROM ${ident(appSchemaName(app.id), 'User')} WHERE username = 'nopass'`);
    expect(rows[0]?.password).toMatch(/^!no-password:/);
    const LOGIN_PASSWORD = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';
    for (const password of ['!', rows[0]?.password ?? '', 'no-password', 'decoy password for unknown usernames']) {
      const reply = await app.gql(LOGIN_PASSWORD, { i: { username: 'nopass', password } }, {});
      expect(codes(reply)).toEqual(['UNAUTHENTICATED']);
      expect(reply.body.errors[0].message).toBe('Wrong username or password');
    }
  });

  it('asks a user with two-factor login on for a current code: MFA_REQUIRED without one, a token with one', async () => {
    const sub = account({ preferred_username: 'tess' });
    const first = await signIn(sub);
    const bearer = { authorization: `Bearer ${first.token}` };
    const enrolled = await app.gql('mutation { enrollTotp(input: {}) { secret } }', {}, bearer);
    const secret = Secret.fromBase32(enrolled.body.data.enrollTotp.secret);
    const confirmed = await app.gql('mutation($i: ConfirmTotpInput!) { confirmTotp(input: $i) { recoveryCodes } }', { i: { code: TOTP.generate({ secret }) } }, bearer);
    expect(confirmed.body.errors).toBeUndefined();
    const withoutCode = await login(await authorize(sub));
    expect(withoutCode.body.data).toEqual({ loginUserWithOidc: null });
    expect(codes(withoutCode)).toEqual(['MFA_REQUIRED']);
    const wrongCode = await login(await authorize(sub), app, { totpCode: '000000' === TOTP.generate({ secret }) ? '111111' : '000000' });
    expect(codes(wrongCode)).toEqual(['MFA_REQUIRED']);
    // The code of the next time step (the confirmation used this one's), accepted once.
    const next = TOTP.generate({ secret, timestamp: Date.now() + 30_000 });
    const withCode = await login(await authorize(sub), app, { totpCode: next });
    expect(withCode.body.errors).toBeUndefined();
    expect(withCode.body.data.loginUserWithOidc.user.id).toBe(first.user.id);
    const replayed = await login(await authorize(sub), app, { totpCode: next });
    expect(codes(replayed)).toEqual(['MFA_REQUIRED']);
  });

  it('finds the user again by (issuer, subject) at a later sign-in', async () => {
    const sub = account({ preferred_username: 'bella' });
    const first = await signIn(sub);
    // The provider may change the profile; the account stays the same.
    accounts[sub] = { preferred_username: 'bella-renamed', email: 'new@example.com' };
    const again = await signIn(sub);
    expect(again.newUser).toBe(false);
    expect(again.user).toMatchObject({ id: first.user.id, username: 'bella' });
  });

  it('never finds an account by username or email: a name already taken gets a number', async () => {
    const existing = await passwordUser('erin');
    const sub = account({ preferred_username: 'erin', email: 'erin@example.com', email_verified: true });
    const answer = await signIn(sub);
    expect(answer.newUser).toBe(true);
    expect(answer.user.id).not.toBe(existing.id);
    expect(answer.user.username).toBe('erin2');
    // Compared as usernames compare: ignoring case.
    const third = await signIn(account({ preferred_username: 'ERIN' }));
    expect(third.user.username).toBe('ERIN3');
  });

  it('names a new account after the email, then the subject, when there is no preferred_username', async () => {
    const fromEmail = await signIn(account({ email: 'gil.bert@example.com' }));
    expect(fromEmail.user.username).toBe('gil.bert');
    const sub = account({});
    const fromSubject = await signIn(sub);
    expect(fromSubject.user.username).toBe(sub);
    const spaced = await signIn(account({ preferred_username: '  Hal  Jordan\u0007 ' }));
    expect(spaced.user.username).toBe('Hal-Jordan');
    const surrogate = await signIn(account({ preferred_username: 'sur\ud800rogate' }));
    expect(surrogate.user.username).toBe('surrogate');
  });

  it('accepts a redirect URI with a query, sent exactly as the authorization request had it', async () => {
    const reply = await login(await authorize(account({ preferred_username: 'query-uri' }), { redirectUri: 'https://app.example.com/cb?from=oidc' }));
    expect(reply.body.errors).toBeUndefined();
  });

  it('links an identity to the logged-in user, who then signs in with it', async () => {
    const frank = await passwordUser('frank');
    const sub = account({ preferred_username: 'frank-at-idp' });
    const grant = await authorize(sub);
    remember(grant.code, grant.codeVerifier);
    const linked = await app.gql(LINK, { i: { ...grant, clientMutationId: 'l1' } }, bearer(frank.token));
    expect(linked.body.errors).toBeUndefined();
    expect(linked.body.data.linkOidcIdentity).toEqual({ user: { id: frank.id, username: 'frank' }, clientMutationId: 'l1' });
    const answer = await signIn(sub);
    expect(answer.newUser).toBe(false);
    expect(answer.user).toMatchObject({ id: frank.id, username: 'frank' });
    // Linking it again to the same user changes nothing.
    const again = await app.gql(LINK, { i: await authorize(sub) }, bearer(frank.token));
    expect(again.body.errors).toBeUndefined();
  });

  it("refuses to link an identity another user holds (CONFLICT), and it stays theirs", async () => {
    const sub = account({ preferred_username: 'gina' });
    const gina = await signIn(sub);
    const mallory = await passwordUser('mallory');
    const reply = await app.gql(LINK, { i: await authorize(sub) }, bearer(mallory.token));
    expect(reply.body.data).toEqual({ linkOidcIdentity: null });
    expect(codes(reply)).toEqual(['CONFLICT']);
    expect((await signIn(sub)).user.id).toBe(gina.user.id);
  });

  it('links only for a logged-in user: anonymous callers and admin tokens are refused before the code is redeemed', async () => {
    const requests = provider.tokenRequests();
    const anonymous = await app.gql(LINK, { i: await authorize(account()) }, {});
    expect(codes(anonymous)).toEqual(['UNAUTHENTICATED']);
    const adminToken = await app.gql(LINK, { i: await authorize(account()) });
    expect(codes(adminToken)).toEqual(['UNAUTHENTICATED']);
    expect(provider.tokenRequests()).toBe(requests);
  });

  it('unlinks an identity; refuses to unlink the only way an account logs in', async () => {
    const sub = account({ preferred_username: 'ivy' });
    const ivy = await signIn(sub);
    const refused = await app.gql(UNLINK, { i: { provider: 'web' } }, bearer(ivy.token));
    expect(codes(refused)).toEqual(['FORBIDDEN']);
    expect((await signIn(sub)).user.id).toBe(ivy.user.id);

    const jack = await passwordUser('jack');
    const jackSub = account({ preferred_username: 'jack-idp' });
    await app.gql(LINK, { i: await authorize(jackSub) }, bearer(jack.token));
    const unlinked = await app.gql(UNLINK, { i: { provider: 'web' } }, bearer(jack.token));
    expect(unlinked.body.data.unlinkOidcIdentity).toEqual({ unlinkedIdentities: 1, user: { id: jack.id } });
    const none = await app.gql(UNLINK, { i: { provider: 'web' } }, bearer(jack.token));
    expect(none.body.data.unlinkOidcIdentity.unlinkedIdentities).toBe(0);
    // The identity is no one's now: signing in with it makes a new account.
    const fresh = await signIn(jackSub);
    expect(fresh.newUser).toBe(true);
    expect(fresh.user.id).not.toBe(jack.id);
  });

  it('signs a deleted user\'s identity in as a new account', async () => {
    const sub = account({ preferred_username: 'kim' });
    const kim = await signIn(sub);
    await app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: kim.user.id } });
    const again = await signIn(sub);
    expect(again.newUser).toBe(true);
    expect(again.user.id).not.toBe(kim.user.id);
    expect(again.user.username).toBe('kim');
  });

  it('creates one account when two first sign-ins of one identity race', async () => {
    const sub = account({ preferred_username: 'racer' });
    const grants = await Promise.all([authorize(sub), authorize(sub)]);
    const replies = await Promise.all(grants.map((g) => login(g)));
    for (const reply of replies) expect(reply.body.errors).toBeUndefined();
    const ids = replies.map((r) => r.body.data.loginUserWithOidc.user.id);
    expect(ids[0]).toBe(ids[1]);
    expect(replies.map((r) => r.body.data.loginUserWithOidc.newUser).sort()).toEqual([false, true]);
  });

  it('refuses a wrong PKCE code verifier, and creates no one', async () => {
    const before = await userCount();
    const grant = await authorize(account({ preferred_username: 'pkce' }));
    await expectRefused(await login({ ...grant, codeVerifier: pkce().verifier }));
    expect(await userCount()).toBe(before);
  });

  it('refuses a replayed code', async () => {
    const grant = await authorize(account({ preferred_username: 'once' }));
    expect((await login(grant)).body.errors).toBeUndefined();
    await expectRefused(await login(grant));
  });

  it("refuses another client's code, and another redirect URI than the request's", async () => {
    await expectRefused(await login({ ...(await authorize(account(), { client: OTHER })), provider: 'web' }));
    await expectRefused(await login({ ...(await authorize(account())), redirectUri: 'https://app.example.com/cb?from=oidc' }));
  });

  it('refuses an ID token for another client (wrong audience)', async () => {
    // A real ID token the provider issued to another client, with the same nonce…
    const nonce = 'shared-nonce-for-audience';
    const { verifier, challenge } = pkce();
    const other = await provider.authorize({ client: OTHER, account: account({ preferred_username: 'aud' }), codeChallenge: challenge, nonce });
    const foreign = await provider.token(OTHER, other.code, OTHER.redirectUris[0] as string, verifier);
    remember(foreign.id_token, foreign.access_token);
    expect(claimsOf(foreign.id_token as string).aud).toBe(OTHER.clientId);
    // …answered by the token endpoint in place of this client's.
    const grant = await authorize(account(), { nonce });
    provider.hooks.tokenResponse = (body: TokenResponse) => ({ ...body, id_token: foreign.id_token as string });
    try {
      await expectRefused(await login(grant));
    } finally {
      provider.hooks.tokenResponse = undefined;
    }
  });

  it('refuses a wrong nonce, a missing one, and one the request did not send', async () => {
    await expectRefused(await login({ ...(await authorize(account(), { nonce: 'the-right-nonce' })), nonce: 'another-nonce' }));
    const { nonce: _dropped, ...withoutNonce } = await authorize(account(), { nonce: 'sent-but-not-given' });
    await expectRefused(await login(withoutNonce));
    await expectRefused(await login({ ...(await authorize(account(), { nonce: null })), nonce: 'invented-nonce' }));
    // Without a nonce on either side the sign-in is fine.
    expect((await login(await authorize(account(), { nonce: null }))).body.errors).toBeUndefined();
  });

  it('refuses an ID token whose signature does not hold, that has expired, or of another issuer', async () => {
    /** Signs in with the token endpoint's ID token replaced by `change` of a forgery for this grant. */
    const tamper = async (change: (token: string, claims: Record<string, unknown>) => Promise<string> | string) => {
      const grant = await authorize(account());
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: provider.issuer, aud: WEB.clientId, sub: `forged-${unique}`, nonce: grant.nonce, iat: now, exp: now + 300 };
      const replaced = await change(await provider.sign(claims), claims);
      provider.hooks.tokenResponse = (body) => ({ ...body, id_token: replaced });
      try {
        return await login(grant);
      } finally {
        provider.hooks.tokenResponse = undefined;
      }
    };
    // A valid token with its payload changed: the signature no longer holds.
    await expectRefused(
      await tamper((token) => {
        const [header, , signature] = token.split('.');
        const payload = Buffer.from(JSON.stringify({ ...claimsOf(token), sub: 'someone-else' })).toString('base64url');
        return `${header}.${payload}.${signature}`;
      }),
    );
    // Signed with the provider's key, but expired (beyond the 30 s tolerance).
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await tamper((_token, claims) => provider.sign({ ...claims, iat: now - 3600, exp: now - 600 })));
    // Signed with the provider's key, but naming another issuer.
    await expectRefused(await tamper((_token, claims) => provider.sign({ ...claims, iss: 'https://evil.example.com' })));
    // Unsigned (alg: none).
    await expectRefused(await tamper((_token, claims) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`));
    // The forgery left as it is passes: the refusals above are those checks' doing.
    expect((await tamper((token) => token)).body.errors).toBeUndefined();
  });

  it('refuses an unknown provider and a provider of another app with BAD_USER_INPUT, before anything is redeemed', async () => {
    const requests = provider.tokenRequests();
    const unknown = await login({ ...(await authorize(account())), provider: 'nope' });
    expect(codes(unknown)).toEqual(['BAD_USER_INPUT']);
    expect(unknown.body.errors[0].extensions.field).toBe('provider');
    // `corp` is the other app's provider: this app does not have it.
    const foreign = await login({ ...(await authorize(account(), { client: OTHER })), provider: 'corp' });
    expect(codes(foreign)).toEqual(['BAD_USER_INPUT']);
    expect(foreign.body.errors[0].message).toBe(unknown.body.errors[0].message.replace('"nope"', '"corp"'));
    expect(provider.tokenRequests()).toBe(requests);
    // The other app signs in with it, and its users are its own.
    const there = await signIn(account({ preferred_username: 'elsewhere' }), otherApp);
    expect((await app.gql('{ viewer { user { id } } }', {}, bearer(there.token))).status).toBe(401);
  });

  it('refuses a removed provider; identities linked through it work again when it is added back', async () => {
    const extra = await createTestApp(server, SCHEMA);
    await addProvider(extra, 'web', WEB);
    const sub = account({ preferred_username: 'lena' });
    const lena = await signIn(sub, extra);
    const removed = await admin(server, REMOVE, { i: { appId: extra.id, name: 'web' } });
    expect(removed.body.data.removeOidcProvider.removed).toBe(true);
    expect(codes(await login(await authorize(sub), extra))).toEqual(['BAD_USER_INPUT']);
    await addProvider(extra, 'web', WEB);
    const back = await login(await authorize(sub), extra);
    expect(back.body.data.loginUserWithOidc.user.id).toBe(lena.user.id);
  });

  it('answers UNAVAILABLE when the provider cannot be reached', async () => {
    const extra = await createTestApp(server, SCHEMA);
    const gone = await startOidcProvider([WEB], accounts);
    await addProvider(extra, 'gone', WEB, gone.issuer);
    const { verifier } = pkce();
    await gone.close();
    const reply = await extra.gql(LOGIN, { i: { provider: 'gone', code: 'a-code-never-issued', codeVerifier: verifier, redirectUri: REDIRECT } }, {});
    expect(reply.body.data).toEqual({ loginUserWithOidc: null });
    expect(codes(reply)).toEqual(['UNAVAILABLE']);
  });

  it('refuses malformed input with BAD_USER_INPUT naming the field, before anything is counted or redeemed', async () => {
    const requests = provider.tokenRequests();
    const grant = await authorize(account());
    const cases: [Record<string, unknown>, string][] = [
      [{ codeVerifier: 'short' }, 'codeVerifier'],
      [{ codeVerifier: `${'a'.repeat(42)}!` }, 'codeVerifier'],
      [{ redirectUri: '/callback' }, 'redirectUri'],
      [{ code: '' }, 'code'],
      [{ provider: 'we\u0000b' }, 'input.provider'],
      [{ nonce: '' }, 'nonce'],
    ];
    for (const [change, field] of cases) {
      const reply = await login({ ...grant, ...change } as Grant);
      expect(codes(reply), JSON.stringify(change)).toEqual(['BAD_USER_INPUT']);
      expect(reply.body.errors[0].extensions.field).toBe(field);
    }
    expect(provider.tokenRequests()).toBe(requests);
    // The code was never sent: it still works.
    expect((await login(grant)).body.errors).toBeUndefined();
  });

  it('lets the app close sign-up: a first sign-in is FORBIDDEN, linked identities still sign in', async () => {
    const closed = await createTestApp(server, 'type User @model @permission(scope: SELF, read: true, update: true) { nickname: String }\ntype Note @model { text: String }');
    await addProvider(closed, 'web', WEB);
    const refused = await login(await authorize(account({ preferred_username: 'outsider' })), closed);
    expect(codes(refused)).toEqual(['FORBIDDEN']);
    expect(await userCount(closed)).toBe(0);
    // A user the app's admin made links an identity, and signs in with it.
    const made = await closed.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: 'member', password: 'pw-member-1' } });
    const sub = account({ preferred_username: 'member-idp' });
    const linked = await closed.gql(LINK, { i: await authorize(sub) }, bearer(made.createUser.token));
    expect(linked.body.errors).toBeUndefined();
    const answer = (await login(await authorize(sub), closed)).body.data.loginUserWithOidc;
    expect(answer.user.id).toBe(made.createUser.changedUser.id);
  });

  it('tells subscribers of a sign-in as of createUser and loginUser: createUser for a new account, loginUser later', async () => {
    const ws = client(app.endpoint, app.token);
    try {
      const before = await openSubscriptions(server.base);
      const events = subscribe(ws, 'subscription { subscribeToUser(mutations: [createUser, loginUser]) { mutation value { id username } } }');
      await waitForSubscriptions(server.base, before + 1);
      const sub = account({ preferred_username: 'watched' });
      const first = await signIn(sub);
      await signIn(sub);
      const seen = (await events.take(2)).map((e) => e.data.subscribeToUser);
      // One event per row and transaction, as for any mutation: the first sign-in is a sign-up.
      expect(seen).toEqual([
        { mutation: 'createUser', value: { id: first.user.id, username: 'watched' } },
        { mutation: 'loginUser', value: { id: first.user.id, username: 'watched' } },
      ]);
      await events.close();
    } finally {
      await ws.dispose();
    }
  });

  it('keeps codes, verifiers, tokens and client secrets out of the logs, and logs why a sign-in was refused', async () => {
    const text = server.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of secrets) expect(text.includes(secret), 'a secret reached the logs').toBe(false);
    const refusals = server.logs.filter((line) => line.msg === 'OpenID sign-in refused');
    expect(refusals.length).toBeGreaterThan(3);
    expect(refusals.map((line) => String(line.reason)).join(' ')).toMatch(/invalid_grant/);
    expect(refusals.map((line) => String(line.reason)).join(' ')).toMatch(/nonce/);
    expect(refusals.map((line) => String(line.reason)).join(' ')).toMatch(/aud/);
  });
});

describe.each(STORE_KINDS)('OpenID Connect sign-in throttling (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      oidc: new OidcRelyingParty({ secrets: new SecretBox(generateSecretKey()), outbound: { allowPrivate: true } }),
      loginLimits: { perUserAndAddress: { points: 10, seconds: 900 }, perUser: { points: 30, seconds: 900 }, perAddress: { points: 3, seconds: 3600 } },
    });
    app = await createTestApp(server, SCHEMA);
    const reply = await admin(server, ADD, { i: { appId: app.id, name: 'web', issuer: provider.issuer, clientId: WEB.clientId, clientSecret: WEB.clientSecret } });
    expect(reply.body.errors).toBeUndefined();
  });
  afterAll(async () => server?.close());

  it('counts sign-ins and links per address like loginUser: past the limit, RATE_LIMITED before the code is redeemed', async () => {
    // A success gives its point back.
    expect((await app.gql(LOGIN, { i: await authorize(account()) }, {})).body.errors).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const grant = await authorize(account());
      expect(codes(await app.gql(LOGIN, { i: { ...grant, codeVerifier: pkce().verifier } }, {}))).toEqual(['UNAUTHENTICATED']);
    }
    const requests = provider.tokenRequests();
    const blocked = await app.gql(LOGIN, { i: await authorize(account()) }, {});
    expect(blocked.status).toBe(429);
    expect(codes(blocked)).toEqual(['RATE_LIMITED']);
    const link = await app.gql(LINK, { i: await authorize(account()) }, {});
    expect(codes(link)).toEqual(['UNAUTHENTICATED']);
    expect(provider.tokenRequests()).toBe(requests);
  });
});
