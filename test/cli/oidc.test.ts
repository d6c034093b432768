// `tessera oidc add|list|remove` end to end: `tessera serve` as a child (embedded store,
// outbound calls to this machine allowed), a real OpenID provider in the test process, and
// the commands run as child processes. The served instance then signs a user in with a real
// authorization code — the secret key it generated into its data directory opens the client
// secret it sealed.

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkce, startOidcProvider } from '../helpers/oidcProvider.js';
import type { TestProvider } from '../helpers/oidcProvider.js';
import { cleanEnv, runCli, startServe } from './run.js';
import type { CliResult, ServeChild } from './run.js';

const CLIENT = { clientId: 'cli-client', clientSecret: 'cli-client-secret-5be0a9f1', redirectUris: ['https://app.example.com/callback'] };

let dir: string;
let serve: ServeChild;
let env: NodeJS.ProcessEnv;
let provider: TestProvider;

const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra }, cwd: dir });

function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/^tessera: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

beforeAll(async () => {
  provider = await startOidcProvider([CLIENT], { 'cli-user': { preferred_username: 'cli-user' } });
  dir = await mkdtemp(join(tmpdir(), 'tessera-cli-oidc-'));
  const dataDir = join(dir, 'data');
  serve = await startServe(['serve'], cleanEnv({ TESSERA_DATA_DIR: dataDir, TESSERA_LOG_LEVEL: 'info', TESSERA_FUNCTIONS_ALLOW_PRIVATE: 'true' }));
  env = cleanEnv({ TESSERA_URL: serve.url, TESSERA_DATA_DIR: dataDir });
  await writeFile(join(dir, 'schema.graphql'), 'type Note @model { text: String }\n');
  const created = await cli(['app', 'create', 'shop', '--schema', 'schema.graphql']);
  expect(created.code).toBe(0);
});

afterAll(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  await provider?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tessera oidc', () => {
  it('add fetches the discovery document and prints the provider; the secret comes from the environment', async () => {
    const result = await cli(['oidc', 'add', 'shop', 'web', '--issuer', provider.issuer, '--client-id', CLIENT.clientId], { TESSERA_OIDC_CLIENT_SECRET: CLIENT.clientSecret });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`added OpenID provider "web" to shop: issuer ${provider.issuer}, client ${CLIENT.clientId}, scopes openid email profile\nusers sign in at ${provider.issuer}/auth\n`);
  });

  it('add takes --client-secret, --scopes and --json', async () => {
    const result = await cli(['oidc', 'add', 'shop', 'narrow', '--issuer', provider.issuer, '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret, '--scopes', 'openid,email', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'narrow', issuer: provider.issuer, clientId: CLIENT.clientId, scopes: ['openid', 'email'] });
  });

  it('list prints a table, or JSON, never the secret', async () => {
    const text = await cli(['oidc', 'list', 'shop']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ISSUER\s+CLIENT ID\s+SCOPES$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['narrow', 'web']);
    const json = await cli(['oidc', 'list', 'shop', '--json']);
    expect((JSON.parse(json.stdout) as { name: string }[]).map((p) => p.name)).toEqual(['narrow', 'web']);
    for (const output of [text.stdout, json.stdout, serve.stdout(), serve.stderr()]) expect(output).not.toContain(CLIENT.clientSecret);
  });

  it('refuses, in one line: a name taken, an issuer whose discovery fails, no secret, an unknown app', async () => {
    const secret = { TESSERA_OIDC_CLIENT_SECRET: CLIENT.clientSecret };
    expectOneLineError(await cli(['oidc', 'add', 'shop', 'web', '--issuer', provider.issuer, '--client-id', 'x'], secret), /already has an OpenID provider named "web"/);
    expectOneLineError(await cli(['oidc', 'add', 'shop', 'broken', '--issuer', `${serve.url}/nothing`, '--client-id', 'x'], secret), /OpenID discovery failed for .*HTTP 404/);
    expectOneLineError(await cli(['oidc', 'add', 'shop', 'nosecret', '--issuer', provider.issuer, '--client-id', 'x']), /no client secret: pass --client-secret or set TESSERA_OIDC_CLIENT_SECRET/);
    expectOneLineError(await cli(['oidc', 'add', 'shop', 'noissuer', '--client-id', 'x'], secret), /--issuer/);
    expectOneLineError(await cli(['oidc', 'list', 'nosuchapp']), /no app named or with id "nosuchapp"/);
  });

  it('the served instance signs a user in with the provider it was given', async () => {
    const apps = JSON.parse((await cli(['app', 'list', '--json'])).stdout) as { id: string; name: string }[];
    const id = apps.find((a) => a.name === 'shop')?.id;
    const { verifier, challenge } = pkce();
    const { code } = await provider.authorize({ client: CLIENT, account: 'cli-user', codeChallenge: challenge, nonce: 'n-cli' });
    const response = await fetch(`${serve.url}/graphql/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($i: LoginUserWithOidcInput!) { loginUserWithOidc(input: $i) { token newUser user { username } } }',
        variables: { i: { provider: 'web', code, codeVerifier: verifier, redirectUri: CLIENT.redirectUris[0], nonce: 'n-cli' } },
      }),
    });
    const body = (await response.json()) as { data: { loginUserWithOidc: { token: string; newUser: boolean; user: { username: string } } } };
    expect(body.data.loginUserWithOidc).toMatchObject({ newUser: true, user: { username: 'cli-user' } });
    // The key that sealed the secret sits beside the platform key, mode 0600.
    const keyFile = join(dir, 'data', 'secret-key');
    expect((await readFile(keyFile, 'utf8')).trim()).toMatch(/^tsec_/);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    for (const output of [serve.stdout(), serve.stderr()]) {
      expect(output).not.toContain(code);
      expect(output).not.toContain(verifier);
      expect(output).not.toContain(body.data.loginUserWithOidc.token);
    }
  });

  it('remove drops a provider by name, and says so when there is none', async () => {
    const removed = await cli(['oidc', 'remove', 'shop', 'narrow']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('removed OpenID provider "narrow"\n');
    expectOneLineError(await cli(['oidc', 'remove', 'shop', 'narrow']), /app "shop" has no OpenID provider named "narrow"/);
    expect((await cli(['oidc', 'list', 'shop'])).stdout).not.toMatch(/^narrow/m);
  });

  it.each([
    [['oidc', 'add'], ['<app>', '<name>', '--issuer <url>', '--client-id <id>', '--client-secret', 'TESSERA_OIDC_CLIENT_SECRET', '--scopes', '--json', 'Example']],
    [['oidc', 'list'], ['<app>', '--json']],
    [['oidc', 'remove'], ['<app>', '<name>']],
  ])('tessera %j --help', async (command, expected) => {
    const result = await cli([...command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: tessera ${command.join(' ')}`));
    for (const text of expected) expect(result.stdout).toContain(text);
  });
});
