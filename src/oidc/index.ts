// The OpenID Connect stage's public face: checking and discovering an app's providers, and
// redeeming authorization codes into verified identities.

export { clientAuthMethod, issuerUrl } from './discovery.js';
export type { ClientAuthMethod, DiscoveredProvider, ProviderMetadata } from './discovery.js';
export { OidcRelyingParty, PROVIDER_UNREACHABLE, SIGN_IN_REFUSED, SignInFailure } from './relyingParty.js';
export type { AuthorizationGrant, IdentityProfile, RelyingPartyOptions, StoredProvider, VerifiedIdentity } from './relyingParty.js';
