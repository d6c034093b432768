// A real OpenID provider in the test process (oidc-provider): confidential clients with
// secrets, PKCE (S256) required, test accounts, and a login that needs no person — the
// interaction page logs in the account the authorization request names in `login_hint` and
// grants the scopes asked for. Tests drive the authorization endpoint with plain HTTP,
// following its redirects by hand (cookies included) up to the client's redirect URI, to get
// a real authorization code. `hooks.tokenResponse` lets a test replace what the token
// endpoint answers, as an attacker between them or a broken provider would.

import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { JWK } from 'jose';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface TestAccount {
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TokenResponse {
  id_token?: string;
  access_token?: string;
  [key: string]: unknown;
}

export interface TestProvider {
  issuer: string;
  clients: TestClient[];
  /** Test-time changes to what the provider answers. */
  hooks: { tokenResponse?: ((body: TokenResponse) => TokenResponse) | undefined };
  /** Runs the authorization request to its redirect: the code (and what came with it). */
  authorize(request: AuthorizeRequest): Promise<{ code: string; state: string | null; iss: string | null }>;
  /** Redeems a code at the token endpoint as `client` (what a client of its own would do). */
  token(client: TestClient, code: string, redirectUri: string, codeVerifier: string): Promise<TokenResponse>;
  /** Signs an ID token with the provider's own key (for tests that need one it would not issue). */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** How many token requests the provider has answered. */
  tokenRequests(): number;
  close(): Promise<void>;
}

export interface AuthorizeRequest {
  client: TestClient;
  /** The account that logs in (`login_hint`). */
  account: string;
  redirectUri?: string;
  codeChallenge: string;
  nonce?: string;
  state?: string;
  scope?: string;
}

/** A PKCE pair: a random verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Starts a provider on an ephemeral port of 127.0.0.1 with these clients and accounts. */
export async function startOidcProvider(clients: TestClient[], accounts: Record<string, TestAccount>): Promise<TestProvider> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const hooks: TestProvider['hooks'] = {};
  let tokenRequests = 0;

  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    // The provider's in-memory storage, named so that it does not warn (a test provider keeps nothing).
    adapter: MemoryAdapter,
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true, methods: ['S256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name'] },
    // The profile claims go in the ID token itself, as most providers put them there.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts[sub];
      return account ? { accountId: sub, claims: async () => ({ sub, ...account }) } : undefined;
    },
    ttl: { AuthorizationCode: 60, IdToken: 600, AccessToken: 600, Grant: 600, Interaction: 600, Session: 600 },
  });
  provider.use(async (ctx, next) => {
    const interaction = /^\/interaction\/([^/]+)$/.exec(ctx.path);
    if (interaction && ctx.method === 'GET') {
      // No person at a login page: the account named in login_hint logs in and consents.
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      const accountId = details.params.login_hint ?? '';
      const grant = new provider.Grant({ accountId, clientId: details.params.client_id ?? '' });
      grant.addOIDCScope(details.params.scope ?? 'openid');
      const grantId = await grant.save();
      ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false }));
      return;
    }
    await next();
    if (ctx.path === '/token' && ctx.method === 'POST') {
      tokenRequests += 1;
      if (ctx.status === 200 && hooks.tokenResponse) ctx.body = hooks.tokenResponse(ctx.body as TokenResponse);
    }
  });
  handle = provider.callback();

  const signingKey = await importJWK(jwk, 'RS256');
  return {
    issuer,
    clients,
    hooks,
    tokenRequests: () => tokenRequests,
    async authorize(request) {
      const redirectUri = request.redirectUri ?? (request.client.redirectUris[0] as string);
      const params = new URLSearchParams({
        client_id: request.client.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: request.scope ?? 'openid email profile',
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
        login_hint: request.account,
        prompt: 'login consent',
        ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
        ...(request.state === undefined ? {} : { state: request.state }),
      });
      const cookies = new Map<string, string>();
      let url = new URL(`${issuer}/auth?${params}`);
      const target = new URL(redirectUri);
      for (let hop = 0; hop < 10; hop++) {
        const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const at = pair.indexOf('=');
          const name = pair.slice(0, at);
          const value = pair.slice(at + 1);
          if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
          else cookies.set(name, value);
        }
        await response.arrayBuffer();
        const location = response.headers.get('location');
        if (!location) throw new Error(`the provider stopped at ${url.pathname} with HTTP ${response.status}`);
        const next = new URL(location, url);
        if (next.origin === target.origin && next.pathname === target.pathname) {
          const error = next.searchParams.get('error');
          if (error) throw new Error(`the provider answered ${error}: ${next.searchParams.get('error_description') ?? ''}`);
          const code = next.searchParams.get('code');
          if (!code) throw new Error('the redirect carries no code');
          return { code, state: next.searchParams.get('state'), iss: next.searchParams.get('iss') };
        }
        url = next;
      }
      throw new Error('too many redirects');
    },
    async token(client, code, redirectUri, codeVerifier) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier }),
      });
      const body = (await response.json()) as TokenResponse;
      if (response.status !== 200) throw new Error(`token request refused: ${JSON.stringify(body)}`);
      return body;
    },
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid as string }).sign(signingKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
