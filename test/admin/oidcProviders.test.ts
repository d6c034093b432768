// An app's OpenID providers through the management API on both stores, against a real OpenID
// provider in the test process: added once its discovery document is fetched and checked,
// listed without the client secret (stored sealed, never in clear), unique by name per app,
// removed by name; an issuer whose discovery fails, that states another issuer, that is not
// https, or that sits on a private address the operator has not allowed is refused with
// BAD_USER_INPUT naming the issuer — nothing stored.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcRelyingParty } from '../../src/oidc/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { sql } from '../../src/sql/index.js';
import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { startOidcProvider } from '../helpers/oidcProvider.js';
import type { TestProvider } from '../helpers/oidcProvider.js';

const SCHEMA = 'type Note @model { text: String }';
const ADD = 'mutation($i: AddOidcProviderInput!) { addOidcProvider(input: $i) { oidcProvider { name issuer clientId scopes authorizationEndpoint createdAt } } }';
const REMOVE = 'mutation($i: RemoveOidcProviderInput!) { removeOidcProvider(input: $i) { removed } }';
const LIST = 'query($id: ID!) { app(id: $id) { oidcProviders { name issuer clientId scopes } } }';
const CLIENT = { clientId: 'tessera-web', clientSecret: 'a-client-secret-d81c2b', redirectUris: ['https://app.example.com/callback'] };

const codeOf = (body: Json): string | undefined => body.errors?.[0]?.extensions?.code;
const relyingParty = (allowPrivate: boolean) => new OidcRelyingParty({ secrets: new SecretBox(generateSecretKey()), outbound: { allowPrivate } });

let provider: TestProvider;
beforeAll(async () => {
  provider = await startOidcProvider([CLIENT], {});
});
afterAll(async () => provider?.close());

describe.each(STORE_KINDS)('OpenID providers in the management API (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startTestServer(kind, { oidc: relyingParty(true) });
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  const add = (input: Record<string, unknown>, appId: string = app.id) =>
    admin(server, ADD, { i: { appId, issuer: provider.issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret, ...input } });
  const list = async (appId: string = app.id) => (await admin(server, LIST, { id: appId })).body.data.app.oidcProviders as Json[];

  it('adds a provider from its discovery document and answers it without the secret', async () => {
    const reply = await add({ name: 'web' });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.addOidcProvider.oidcProvider).toMatchObject({
      name: 'web',
      issuer: provider.issuer,
      clientId: CLIENT.clientId,
      scopes: ['openid', 'email', 'profile'],
      authorizationEndpoint: `${provider.issuer}/auth`,
    });
    expect(await list()).toEqual([{ name: 'web', issuer: provider.issuer, clientId: CLIENT.clientId, scopes: ['openid', 'email', 'profile'] }]);
    // The API has no field for the secret, and the catalog holds it sealed only.
    const introspected = await admin(server, '{ __type(name: "OidcProvider") { fields { name } } }');
    expect(introspected.body.data.__type.fields.map((f: Json) => f.name)).not.toContain('clientSecret');
    const { rows } = await server.store.query<{ sealed: string; row: string }>(sql`SELECT client_secret_sealed AS sealed, row_to_json(p)::text AS row FROM tessera.oidc_providers p WHERE app_id = ${app.id}`);
    expect(rows[0]?.sealed).toMatch(/^v1\./);
    expect(rows[0]?.row).not.toContain(CLIENT.clientSecret);
    expect(JSON.stringify(await admin(server, `{ apps { id } app(id: "${app.id}") { oidcProviders { name issuer clientId scopes authorizationEndpoint createdAt } } }`))).not.toContain(CLIENT.clientSecret);
  });

  it('keeps names unique per app (CONFLICT), not across apps', async () => {
    expect((await add({ name: 'dup' })).body.errors).toBeUndefined();
    const again = await add({ name: 'dup', clientId: 'someone-else' });
    expect(codeOf(again.body)).toBe('CONFLICT');
    expect(again.body.errors[0].extensions.field).toBe('name');
    const other = await createTestApp(server, SCHEMA);
    expect((await add({ name: 'dup' }, other.id)).body.errors).toBeUndefined();
  });

  it('takes the scopes given, which must include openid', async () => {
    const reply = await add({ name: 'scoped', scopes: ['openid', 'email', 'openid'] });
    expect(reply.body.data.addOidcProvider.oidcProvider.scopes).toEqual(['openid', 'email']);
    for (const scopes of [['email', 'profile'], ['openid', 'two words'], ['openid', 'quo"te']]) {
      const refused = await add({ name: 'badscope', scopes });
      expect(codeOf(refused.body), JSON.stringify(scopes)).toBe('BAD_USER_INPUT');
      expect(refused.body.errors[0].extensions.field).toBe('scopes');
    }
  });

  it('refuses bad names, client ids and secrets with BAD_USER_INPUT naming the field', async () => {
    for (const [input, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'has space' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: 'okname', clientId: '' }, 'clientId'],
      [{ name: 'okname', clientSecret: '' }, 'clientSecret'],
      [{ name: 'okname', clientSecret: 'line\nbreak' }, 'clientSecret'],
    ] as const) {
      const reply = await add(input);
      expect(codeOf(reply.body), JSON.stringify(input)).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].extensions.field).toBe(field);
    }
  });

  it('refuses an issuer whose discovery fails, with BAD_USER_INPUT naming the issuer and why; nothing is stored', async () => {
    const before = (await list()).length;
    const cases: [string, RegExp][] = [
      // Nothing listens there.
      ['http://127.0.0.1:9/', /connection failed/],
      // A server that is not an OpenID provider: its discovery path answers 404.
      [server.base, /HTTP 404/],
      // The provider, but under a path it does not serve.
      [`${provider.issuer}/tenant`, /HTTP 404/],
      // The provider reached by another name: it states its own issuer, not this one.
      [provider.issuer.replace('127.0.0.1', 'localhost'), /issuer|connection failed/],
    ];
    for (const [issuer, reason] of cases) {
      const reply = await add({ name: 'broken', issuer });
      expect(codeOf(reply.body), issuer).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].extensions.field).toBe('issuer');
      expect(reply.body.errors[0].message).toMatch(/^OpenID discovery failed for /);
      expect(reply.body.errors[0].extensions.reason).toMatch(reason);
    }
    expect((await list()).length).toBe(before);
  });

  it('refuses issuers that are not URLs, not https away from this machine, or carry a query, before fetching anything', async () => {
    for (const issuer of ['not a url', 'http://accounts.example.com', 'ftp://127.0.0.1/', `${provider.issuer}?tenant=1`, `${provider.issuer}#x`, 'https://user:pw@accounts.example.com']) {
      const reply = await add({ name: 'refused', issuer });
      expect(codeOf(reply.body), issuer).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].extensions.field).toBe('issuer');
    }
  });

  it('removes a provider by name; removing it again answers false', async () => {
    expect((await add({ name: 'temp' })).body.errors).toBeUndefined();
    expect((await admin(server, REMOVE, { i: { appId: app.id, name: 'temp' } })).body.data.removeOidcProvider.removed).toBe(true);
    expect((await admin(server, REMOVE, { i: { appId: app.id, name: 'temp' } })).body.data.removeOidcProvider.removed).toBe(false);
    expect((await list()).map((p) => p.name)).not.toContain('temp');
  });

  it('answers NOT_FOUND for an unknown app', async () => {
    expect(codeOf((await add({ name: 'web' }, 'nosuchappxyz')).body)).toBe('NOT_FOUND');
    expect(codeOf((await admin(server, REMOVE, { i: { appId: 'nosuchappxyz', name: 'web' } })).body)).toBe('NOT_FOUND');
  });

  it('goes with its app', async () => {
    const doomed = await createTestApp(server, SCHEMA);
    expect((await add({ name: 'web' }, doomed.id)).body.errors).toBeUndefined();
    await admin(server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: doomed.id } });
    const { rows } = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM tessera.oidc_providers WHERE app_id = ${doomed.id}`);
    expect(rows[0]?.n).toBe(0);
  });
});

describe.each(STORE_KINDS)('OpenID providers on a server that keeps calls off private networks (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer(kind, { oidc: relyingParty(false) });
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  const add = (issuer: string) => admin(server, ADD, { i: { appId: app.id, name: 'local', issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret } });

  it('refuses a literal private address, and a name that resolves to one, naming the switch', async () => {
    const literal = await add(provider.issuer);
    expect(codeOf(literal.body)).toBe('BAD_USER_INPUT');
    expect(literal.body.errors[0].message).toMatch(/TESSERA_FUNCTIONS_ALLOW_PRIVATE/);
    const named = await add(provider.issuer.replace('127.0.0.1', 'localhost'));
    expect(codeOf(named.body)).toBe('BAD_USER_INPUT');
    expect(named.body.errors[0].extensions.reason).toMatch(/localhost resolves to .*TESSERA_FUNCTIONS_ALLOW_PRIVATE/);
    for (const issuer of ['https://169.254.169.254/', 'https://10.0.0.1/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/']) {
      expect(codeOf((await add(issuer)).body), issuer).toBe('BAD_USER_INPUT');
    }
  });
});

describe.each(STORE_KINDS)('OpenID providers on a server without a secret key (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.close());

  it('cannot add one: NOT_IMPLEMENTED, nothing stored', async () => {
    const app = await createTestApp(server, SCHEMA);
    const reply = await admin(server, ADD, { i: { appId: app.id, name: 'web', issuer: provider.issuer, clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret } });
    expect(codeOf(reply.body)).toBe('NOT_IMPLEMENTED');
    expect((await admin(server, LIST, { id: app.id })).body.data.app.oidcProviders).toEqual([]);
  });
});
