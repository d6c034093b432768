// What the management API says about an app's sign-in: its OpenID providers (listed, added and
// removed; the client secret goes in once and never comes back) and which users have two-factor
// login on.

import { adminRequest } from './admin';

export interface OidcProvider {
  name: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  authorizationEndpoint: string;
  createdAt: string;
}

export interface NewOidcProvider {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Omitted for the server's default (openid email profile). */
  scopes?: string[];
}

export interface UserTwoFactor {
  userId: string;
  enabled: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
}

const PROVIDER = 'name issuer clientId scopes authorizationEndpoint createdAt';

/** The app's providers, or null when there is no such app. */
export async function listOidcProviders(appId: string): Promise<OidcProvider[] | null> {
  const query = `query OidcProviders($id: ID!) { app(id: $id) { oidcProviders { ${PROVIDER} } } }`;
  return (await adminRequest<{ app: { oidcProviders: OidcProvider[] } | null }>(query, { id: appId })).app?.oidcProviders ?? null;
}

/** Adds a provider; the server fetches and checks its discovery document first. */
export async function addOidcProvider(appId: string, provider: NewOidcProvider): Promise<OidcProvider> {
  const query = `mutation AddOidcProvider($i: AddOidcProviderInput!) { addOidcProvider(input: $i) { oidcProvider { ${PROVIDER} } } }`;
  const data = await adminRequest<{ addOidcProvider: { oidcProvider: OidcProvider } }>(query, { i: { appId, ...provider } });
  return data.addOidcProvider.oidcProvider;
}

export async function removeOidcProvider(appId: string, name: string): Promise<boolean> {
  const query = 'mutation RemoveOidcProvider($i: RemoveOidcProviderInput!) { removeOidcProvider(input: $i) { removed } }';
  return (await adminRequest<{ removeOidcProvider: { removed: boolean } }>(query, { i: { appId, name } })).removeOidcProvider.removed;
}

/** Two-factor login of these users, by user id (an empty list asks nothing). */
export async function loadTwoFactor(appId: string, userIds: readonly string[]): Promise<Map<string, UserTwoFactor>> {
  if (userIds.length === 0) return new Map();
  const query = 'query TwoFactor($id: ID!, $users: [ID!]!) { app(id: $id) { twoFactor(userIds: $users) { userId enabled enabledAt recoveryCodesLeft } } }';
  const data = await adminRequest<{ app: { twoFactor: UserTwoFactor[] } | null }>(query, { id: appId, users: userIds });
  return new Map((data.app?.twoFactor ?? []).map((t) => [t.userId, t]));
}
