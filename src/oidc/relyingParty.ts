// The server as an OpenID Connect relying party for apps' providers. At sign-in it redeems an
// authorization code at the provider's token endpoint — authenticated with the app's client
// secret, proving possession with the PKCE code verifier — and verifies the ID token it gets:
// signature against the provider's published keys (HMAC-signed tokens are refused), issuer,
// audience (the client id; another audience only with this client as the authorized party),
// expiry and issue time, and the nonce. Only then is its (issuer, subject) trusted.

import * as oauth from 'oauth4webapi';
import { TesseraError } from '../errors/index.js';
import { LruMap } from '../lru/index.js';
import { OutboundError } from '../outbound/index.js';
import type { OutboundPolicy } from '../outbound/index.js';
import type { SecretBox } from '../secrets/index.js';
import { clientAuthMethod, discoverProvider, fetchUnder } from './discovery.js';
import type { DiscoveredProvider, ProviderMetadata } from './discovery.js';

/** A provider as stored for an app (the client secret sealed). */
export interface StoredProvider {
  appId: string;
  name: string;
  issuer: string;
  clientId: string;
  sealedSecret: string;
  metadata: ProviderMetadata;
  createdAt: Date;
}

/** What the client brings back from the provider's redirect. */
export interface AuthorizationGrant {
  code: string;
  codeVerifier: string;
  /** Exactly the redirect_uri of the authorization request. */
  redirectUri: string;
  /** The nonce of the authorization request, when it sent one. */
  nonce?: string | undefined;
}

/** The profile claims a new account's username is made from. */
export interface IdentityProfile {
  preferredUsername?: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

/** Who the provider vouches for: an identity is (issuer, subject), never an email address. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  profile: IdentityProfile;
}

/** The one message every refused sign-in answers, whatever went wrong. */
export const SIGN_IN_REFUSED = 'The sign-in could not be verified: the code is invalid, used or expired, or the ID token is not valid';
export const PROVIDER_UNREACHABLE = 'The OpenID provider could not be reached or answered unexpectedly; try again later';

/**
 * A sign-in that failed, as answered to the client (UNAUTHENTICATED, or UNAVAILABLE when the
 * provider failed), with the reason for the logs in `detail` — never a code, token or secret.
 */
export class SignInFailure extends TesseraError {
  readonly detail: string;
  constructor(unavailable: boolean, detail: string) {
    super(unavailable ? 'UNAVAILABLE' : 'UNAUTHENTICATED', unavailable ? PROVIDER_UNREACHABLE : SIGN_IN_REFUSED);
    this.detail = detail;
  }
}

/** The place a provider's client secret is sealed for: opened anywhere else, it is refused. */
function secretContext(appId: string, name: string): string {
  return `oidc-client-secret:${appId}:${name}`;
}

function failureOf(err: unknown): SignInFailure {
  if (err instanceof SignInFailure) return err;
  if (err instanceof OutboundError) return new SignInFailure(true, err.message);
  if (err instanceof oauth.ResponseBodyError) {
    // The provider's own OAuth error: invalid_grant (a wrong, used or expired code, a wrong
    // verifier or redirect URI), invalid_client (the app's client id or secret), …
    const down = err.status >= 500 || err.error === 'server_error' || err.error === 'temporarily_unavailable';
    return new SignInFailure(down, `the token endpoint answered HTTP ${err.status} ${err.error}`);
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) return new SignInFailure(false, `the token endpoint answered HTTP ${err.status} with a challenge`);
  if (err instanceof oauth.OperationProcessingError) {
    const status = (err.cause as Response | undefined)?.status;
    if ((err.code === oauth.RESPONSE_IS_NOT_CONFORM || err.code === oauth.RESPONSE_IS_NOT_JSON) && (status === undefined || status >= 500 || status < 400)) {
      return new SignInFailure(true, `the provider answered unexpectedly (${err.message})`);
    }
    return new SignInFailure(false, err.message);
  }
  if (err instanceof oauth.UnsupportedOperationError) return new SignInFailure(false, err.message);
  if (err instanceof TypeError) return new SignInFailure(false, err.message);
  throw err;
}

function profileOf(claims: oauth.IDToken): IdentityProfile {
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  const profile: IdentityProfile = {};
  const preferred = text(claims.preferred_username);
  const email = text(claims.email);
  const name = text(claims.name);
  if (preferred !== undefined) profile.preferredUsername = preferred;
  if (email !== undefined) profile.email = email;
  if (typeof claims.email_verified === 'boolean') profile.emailVerified = claims.email_verified;
  if (name !== undefined) profile.name = name;
  return profile;
}

interface Prepared {
  key: string;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
}

/** How many providers' metadata (and key sets) are kept between sign-ins. */
const CACHED_PROVIDERS = 1000;

export interface RelyingPartyOptions {
  secrets: SecretBox;
  outbound: OutboundPolicy;
}

export class OidcRelyingParty {
  readonly #secrets: SecretBox;
  readonly #outbound: OutboundPolicy;
  /**
   * Per provider, the metadata object oauth4webapi keys its cache of the provider's key set
   * on: sign-ins reuse the keys (refreshed after 5 minutes, or when a token names a key id
   * not in them) instead of fetching them each time.
   */
  readonly #prepared = new LruMap<string, Prepared>(CACHED_PROVIDERS);

  constructor(options: RelyingPartyOptions) {
    this.#secrets = options.secrets;
    this.#outbound = options.outbound;
  }

  /** Whether outbound calls may reach private addresses (the operator's switch). */
  get allowPrivate(): boolean {
    return this.#outbound.allowPrivate;
  }

  /** Checks an issuer and fetches its discovery document; BAD_USER_INPUT when it cannot be used. */
  discover(issuer: string): Promise<DiscoveredProvider> {
    return discoverProvider(issuer, this.#outbound);
  }

  /** Seals a client secret for storage with provider `name` of app `appId`. */
  sealSecret(appId: string, name: string, secret: string): string {
    return this.#secrets.seal(secret, secretContext(appId, name));
  }

  /**
   * A client secret sealed for provider `from.name` of app `from.appId`, sealed again for
   * `to` (an app copied or imported); UnsealError when this server's key cannot open it.
   */
  resealSecret(sealed: string, from: { appId: string; name: string }, to: { appId: string; name: string }): string {
    return this.#secrets.seal(this.#secrets.open(sealed, secretContext(from.appId, from.name)), secretContext(to.appId, to.name));
  }

  #prepare(provider: StoredProvider): Prepared {
    const id = `${provider.appId}\u0000${provider.name}`;
    const key = `${provider.createdAt.getTime()}\u0000${provider.issuer}\u0000${provider.clientId}`;
    const cached = this.#prepared.get(id);
    if (cached?.key === key) return cached;
    const prepared: Prepared = {
      key,
      as: structuredClone(provider.metadata) as unknown as oauth.AuthorizationServer,
      client: { client_id: provider.clientId },
    };
    this.#prepared.set(id, prepared);
    return prepared;
  }

  /**
   * Redeems an authorization code of `provider` and verifies the ID token it yields: the
   * identity it vouches for, or a SignInFailure (UNAUTHENTICATED, or UNAVAILABLE when the
   * provider could not be reached).
   */
  async redeem(provider: StoredProvider, grant: AuthorizationGrant): Promise<VerifiedIdentity> {
    // A secret that cannot be opened is the server's fault (another TESSERA_SECRET_KEY): internal.
    const secret = this.#secrets.open(provider.sealedSecret, secretContext(provider.appId, provider.name));
    const { as, client } = this.#prepare(provider);
    const auth = clientAuthMethod(provider.metadata) === 'client_secret_post' ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
    const transport = {
      [oauth.customFetch]: fetchUnder(this.#outbound),
      [oauth.allowInsecureRequests]: new URL(as.issuer).protocol === 'http:',
    };
    try {
      // The redirect came to the client, which checked its state (and, when the provider sends
      // one, its `iss`, RFC 9207); here arrives only the code, for the provider the client
      // names, and it is redeemed at that provider's own token endpoint — a code meant for
      // another provider is worthless there. So the parameters are the code and this issuer.
      const parameters = new URLSearchParams({ code: grant.code });
      if (as.authorization_response_iss_parameter_supported) parameters.set('iss', as.issuer);
      const callback = oauth.validateAuthResponse(as, client, parameters, oauth.skipStateCheck);
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, callback, grant.redirectUri, grant.codeVerifier, transport);
      const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
        // Without a nonce from the client, an ID token carrying one is refused too.
        expectedNonce: grant.nonce ?? oauth.expectNoNonce,
        requireIdToken: true,
      });
      // The claims are checked above; this checks the signature, with the provider's keys.
      await oauth.validateApplicationLevelSignature(as, response, transport);
      const claims = oauth.getValidatedIdTokenClaims(result);
      if (!claims) throw new SignInFailure(false, 'the token endpoint answered no ID token');
      return { issuer: claims.iss, subject: claims.sub, profile: profileOf(claims) };
    } catch (err) {
      throw failureOf(err);
    }
  }
}
