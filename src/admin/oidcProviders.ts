// An app's OpenID providers in the management API: added once the issuer's discovery document
// is fetched and checked (so a typo is refused at once, not at a user's first sign-in), the
// client secret sealed before it is stored and never answered back; removed by name.

import { TesseraError, badInput, notFound } from '../errors/index.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import { deleteOidcProvider, findApp, findOidcProvider, insertOidcProvider, listOidcProviders } from '../store/index.js';
import type { OidcProviderRow, Store } from '../store/index.js';
import type { AddOidcProviderInput, AdminService, OidcProviderView } from './types.js';

/** Letters, digits, '.', '_' and '-', as admin token names: clients name the provider in loginUserWithOidc. */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A scope token (RFC 6749, section 3.3): printable ASCII but space, `"` and `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const MAX_SCOPES = 32;
export const DEFAULT_SCOPES: readonly string[] = ['openid', 'email', 'profile'];
/** No control characters (NUL included) in a client id or secret. */
const CONTROL = /[\u0000-\u001f\u007f]/;

function view(row: OidcProviderRow): OidcProviderView {
  return {
    name: row.name,
    issuer: row.issuer,
    clientId: row.clientId,
    scopes: row.scopes,
    authorizationEndpoint: String(row.metadata.authorization_endpoint ?? ''),
    createdAt: row.createdAt,
  };
}

function checkedScopes(scopes: readonly string[] | null | undefined): string[] {
  if (scopes === undefined || scopes === null) return [...DEFAULT_SCOPES];
  const unique = [...new Set(scopes)];
  if (unique.length > MAX_SCOPES) throw badInput(`At most ${MAX_SCOPES} scopes`, { field: 'scopes' });
  for (const scope of unique) if (!SCOPE.test(scope)) throw badInput(`"${scope.slice(0, 130)}" is not a scope (printable characters, no space, quote or backslash)`, { field: 'scopes' });
  if (!unique.includes('openid')) throw badInput('scopes must include "openid": without it the provider issues no ID token', { field: 'scopes' });
  return unique;
}

function checkedText(value: string, field: string, max: number): string {
  if (value.length === 0) throw badInput(`${field} cannot be empty`, { field });
  if (value.length > max) throw badInput(`${field} is longer than ${max} characters`, { field });
  if (CONTROL.test(value)) throw badInput(`${field} cannot hold control characters`, { field });
  return value;
}

async function appIdOf(store: Store, appId: string): Promise<string> {
  const app = await findApp(store, appId);
  if (!app) throw notFound(`No app with id or name "${appId}"`);
  return app.id;
}

type OidcMethods = Pick<AdminService, 'addOidcProvider' | 'removeOidcProvider' | 'oidcProviders'>;

/** The provider methods of the management service; without a relying party (no secret key) adding one is refused. */
export function oidcProviderMethods(store: Store, oidc: OidcRelyingParty | undefined): OidcMethods {
  return {
    async addOidcProvider(input: AddOidcProviderInput) {
      if (!PROVIDER_NAME.test(input.name)) {
        throw badInput('Provider name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit', { field: 'name' });
      }
      const clientId = checkedText(input.clientId, 'clientId', 255);
      const clientSecret = checkedText(input.clientSecret, 'clientSecret', 1024);
      const scopes = checkedScopes(input.scopes);
      const appId = await appIdOf(store, input.appId);
      if (!oidc) throw new TesseraError('NOT_IMPLEMENTED', 'OpenID Connect is not set up on this server (it was started without a secret key)');
      // Refused before the issuer is fetched, as the insert below would refuse it.
      if (await findOidcProvider(store, appId, input.name)) throw new TesseraError('CONFLICT', `The app already has an OpenID provider named "${input.name}"`, { field: 'name' });
      const discovered = await oidc.discover(input.issuer);
      const row = {
        appId,
        name: input.name,
        issuer: discovered.issuer,
        clientId,
        sealedSecret: oidc.sealSecret(appId, input.name, clientSecret),
        scopes,
        metadata: { ...discovered.metadata },
      };
      await insertOidcProvider(store, row);
      const stored = await findOidcProvider(store, appId, input.name);
      if (!stored) throw new Error('the provider just added is missing');
      return view(stored);
    },

    async removeOidcProvider({ appId, name }) {
      return deleteOidcProvider(store, await appIdOf(store, appId), name);
    },

    async oidcProviders(appId) {
      return (await listOidcProviders(store, await appIdOf(store, appId))).map(view);
    },
  };
}
