// An OpenID provider as an app registers it: its issuer checked (https, or http on this machine
// for development; no private address unless allowed) and its discovery document fetched from
// `<issuer>/.well-known/openid-configuration` and checked — the issuer it states must be the
// one asked for, and it must offer what the authorization code flow with PKCE needs.

import * as oauth from 'oauth4webapi';
import { badInput } from '../errors/index.js';
import type { TesseraError } from '../errors/index.js';
import { OutboundError, isLoopbackHost, outboundFetch, urlProblem } from '../outbound/index.js';
import type { OutboundPolicy } from '../outbound/index.js';

/** A provider's discovery document (OpenID Connect Discovery 1.0), as fetched. */
export type ProviderMetadata = Readonly<Record<string, unknown>> & { readonly issuer: string };

/** How the client authenticates at the token endpoint. */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface DiscoveredProvider {
  /** The issuer as the provider states it (ID tokens carry exactly this). */
  issuer: string;
  metadata: ProviderMetadata;
}

function issuerProblem(message: string, reason?: string): TesseraError {
  return badInput(message, { field: 'issuer', ...(reason === undefined ? {} : { reason }) });
}

/** Why a URL of a provider may not be used; undefined when it may. */
export function providerUrlProblem(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol === 'http:' && !isLoopbackHost(url)) return 'it must use https (http only for a provider on this machine)';
  return urlProblem(url, allowPrivate);
}

/** The issuer URL, checked before anything is fetched. */
export function issuerUrl(issuer: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw issuerProblem('issuer must be an absolute URL, e.g. https://accounts.example.com');
  }
  if (url.search !== '' || url.hash !== '') throw issuerProblem('issuer cannot have a query or a fragment');
  const problem = providerUrlProblem(url, allowPrivate);
  if (problem) throw issuerProblem(`issuer ${url.href}: ${problem}`);
  return url;
}

/** The fetch oauth4webapi calls, under the outbound policy. */
export function fetchUnder(policy: OutboundPolicy) {
  return (url: string, options: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal }) =>
    outboundFetch(url, { method: options.method, headers: options.headers, body: options.body as string | URLSearchParams | undefined, signal: options.signal }, policy);
}

/** How to authenticate at the token endpoint: Basic unless the provider offers only the form post. */
export function clientAuthMethod(metadata: ProviderMetadata): ClientAuthMethod | undefined {
  const offered = metadata.token_endpoint_auth_methods_supported;
  // Absent means client_secret_basic only (OpenID Connect Discovery 1.0, section 3).
  if (!Array.isArray(offered) || offered.includes('client_secret_basic')) return 'client_secret_basic';
  return offered.includes('client_secret_post') ? 'client_secret_post' : undefined;
}

/** What is missing or wrong in a discovery document for the code flow with PKCE. */
function metadataProblem(metadata: ProviderMetadata, allowPrivate: boolean): string | undefined {
  for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
    const value = metadata[name];
    if (typeof value !== 'string' || !URL.canParse(value)) return `it has no ${name}`;
    const problem = providerUrlProblem(new URL(value), allowPrivate);
    if (problem) return `${name}: ${problem}`;
  }
  const responseTypes = metadata.response_types_supported;
  if (Array.isArray(responseTypes) && !responseTypes.includes('code')) return 'it does not offer the authorization code flow (response_types_supported has no "code")';
  const challenges = metadata.code_challenge_methods_supported;
  if (Array.isArray(challenges) && !challenges.includes('S256')) return 'it does not offer PKCE with S256 (code_challenge_methods_supported)';
  if (clientAuthMethod(metadata) === undefined) return 'it accepts neither client_secret_basic nor client_secret_post at its token endpoint';
  return undefined;
}

/** A short reason a discovery failed, for the error (no body, no header). */
function discoveryReason(err: unknown): string {
  if (err instanceof OutboundError) return err.message;
  if (err instanceof oauth.OperationProcessingError) {
    switch (err.code) {
      case oauth.RESPONSE_IS_NOT_CONFORM:
        return `it answered HTTP ${(err.cause as Response | undefined)?.status ?? '?'}, not 200`;
      case oauth.RESPONSE_IS_NOT_JSON:
        return 'it did not answer JSON';
      case oauth.JSON_ATTRIBUTE_COMPARISON:
        return 'the issuer it states is not the one given';
      default:
        return 'its answer is not a discovery document';
    }
  }
  if (err instanceof SyntaxError) return 'its answer is not JSON';
  return 'its answer is not a discovery document';
}

/**
 * Fetches and checks the discovery document of `issuer`; BAD_USER_INPUT (field `issuer`,
 * with the reason) when it cannot be fetched or does not describe a usable provider.
 */
export async function discoverProvider(issuer: string, policy: OutboundPolicy): Promise<DiscoveredProvider> {
  const url = issuerUrl(issuer, policy.allowPrivate);
  let metadata: ProviderMetadata;
  try {
    const response = await oauth.discoveryRequest(url, {
      [oauth.customFetch]: fetchUnder(policy),
      [oauth.allowInsecureRequests]: url.protocol === 'http:',
    });
    metadata = (await oauth.processDiscoveryResponse(url, response)) as unknown as ProviderMetadata;
  } catch (err) {
    const reason = discoveryReason(err);
    throw issuerProblem(`OpenID discovery failed for ${url.href}: ${reason}`, reason);
  }
  const problem = metadataProblem(metadata, policy.allowPrivate);
  if (problem) throw issuerProblem(`The provider at ${url.href} cannot be used: ${problem}`, problem);
  return { issuer: metadata.issuer, metadata };
}
