// What an import or a fork carries over with care: the new app's name, and OpenID providers,
// whose client secrets are sealed for the app they belong to and must be sealed again.

import { badInput } from '../errors/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import { isAppName } from '../store/index.js';
import type { OidcProviderRow } from '../store/index.js';

export function checkAppName(name: string): void {
  if (!isAppName(name)) throw badInput('App name must start with a letter and hold only letters, digits, "-" and "_" (at most 63 characters)', { field: 'name' });
}

/**
 * The app's OpenID providers sealed again for another app; a provider whose secret this server
 * cannot open (exported elsewhere, another TESSERA_SECRET_KEY) stays behind with a warning.
 */
export function resealProviders(
  oidc: OidcRelyingParty | undefined,
  from: string,
  to: string,
  providers: readonly Pick<OidcProviderRow, 'name' | 'issuer' | 'clientId' | 'sealedSecret' | 'scopes' | 'metadata'>[],
  warnings: string[],
): Omit<OidcProviderRow, 'createdAt'>[] {
  const out: Omit<OidcProviderRow, 'createdAt'>[] = [];
  for (const p of providers) {
    try {
      if (!oidc) throw new Error('no secret key');
      out.push({ ...p, appId: to, sealedSecret: oidc.resealSecret(p.sealedSecret, { appId: from, name: p.name }, { appId: to, name: p.name }) });
    } catch {
      warnings.push(`OpenID provider "${p.name}" was not carried over: its client secret was sealed under another server's secret key; add it again with addOidcProvider (its users' identities are kept)`);
    }
  }
  return out;
}

