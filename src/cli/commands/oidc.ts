// `tessera oidc add|list|remove`: an app's OpenID Connect providers — added from the issuer's
// discovery document (the server fetches and checks it), listed without their client secrets,
// removed by name.

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import { table } from '../format.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const FIELDS = 'name issuer clientId scopes authorizationEndpoint createdAt';
const ADD = `mutation AddOidcProvider($input: AddOidcProviderInput!) { addOidcProvider(input: $input) { oidcProvider { ${FIELDS} } } }`;
const LIST = `query OidcProviders($app: ID!) { app(id: $app) { oidcProviders { ${FIELDS} } } }`;
const REMOVE = `mutation RemoveOidcProvider($input: RemoveOidcProviderInput!) { removeOidcProvider(input: $input) { removed } }`;

/** Where the client secret may come from instead of the command line (shell history, `ps`). */
export const CLIENT_SECRET_VARIABLE = 'TESSERA_OIDC_CLIENT_SECRET';

interface ProviderView {
  name: string;
  issuer: string;
  clientId: string;
  scopes: string[];
  authorizationEndpoint: string;
  createdAt: string;
}

interface AddFlags {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes?: string;
  json?: boolean;
}

export function registerOidcCommands(program: Command, io: CliIo): void {
  const oidc = program.command('oidc').description("add, list and remove an app's OpenID Connect providers (sign-in with loginUserWithOidc)");

  withConnectionOptions(
    oidc
      .command('add')
      .description("add an OpenID provider to an app; the server fetches the issuer's discovery document first")
      .argument('<app>', 'app id or name')
      .argument('<name>', 'what clients call the provider in loginUserWithOidc')
      .requiredOption('--issuer <url>', "the provider's issuer URL (https)")
      .requiredOption('--client-id <id>', "the app's client id at the provider")
      .option('--client-secret <secret>', `the app's client secret at the provider (default: ${CLIENT_SECRET_VARIABLE})`)
      .option('--scopes <scopes>', 'scopes clients ask for, space- or comma-separated; must include openid (default: openid email profile)')
      .option('--json', 'print JSON instead of text'),
  )
    .addHelpText(
      'after',
      `\nThe client secret is stored sealed and never shown again. Give it through ${CLIENT_SECRET_VARIABLE}\nto keep it out of the shell history and the process list.\n\nExample:\n  ${CLIENT_SECRET_VARIABLE}=… tessera oidc add blog google --issuer https://accounts.google.com --client-id 123.apps.googleusercontent.com`,
    )
    .action(async (app: string, name: string, flags: AddFlags, command: Command) => {
      const clientSecret = flags.clientSecret ?? io.env[CLIENT_SECRET_VARIABLE];
      if (clientSecret === undefined || clientSecret === '') throw new CliError(`no client secret: pass --client-secret or set ${CLIENT_SECRET_VARIABLE}`);
      const scopes = flags.scopes === undefined ? undefined : flags.scopes.split(/[\s,]+/).filter((s) => s !== '');
      const data = await adminRequest<{ addOidcProvider: { oidcProvider: ProviderView } }>(connectionOf(command, io), ADD, {
        input: { appId: app, name, issuer: flags.issuer, clientId: flags.clientId, clientSecret, ...(scopes === undefined ? {} : { scopes }) },
      });
      const added = data.addOidcProvider.oidcProvider;
      if (flags.json) io.stdout(`${JSON.stringify(added, null, 2)}\n`);
      else io.stdout(`added OpenID provider "${added.name}" to ${app}: issuer ${added.issuer}, client ${added.clientId}, scopes ${added.scopes.join(' ')}\nusers sign in at ${added.authorizationEndpoint}\n`);
    });

  withConnectionOptions(oidc.command('list').description("list an app's OpenID providers (never their secrets)").argument('<app>', 'app id or name').option('--json', 'print JSON instead of a table'))
    .addHelpText('after', '\nExample:\n  tessera oidc list blog')
    .action(async (app: string, options: { json?: boolean }, command: Command) => {
      const data = await adminRequest<{ app: { oidcProviders: ProviderView[] } | null }>(connectionOf(command, io), LIST, { app });
      if (!data.app) throw new CliError(`no app named or with id "${app}" (see: tessera app list)`);
      const providers = data.app.oidcProviders;
      if (options.json) io.stdout(`${JSON.stringify(providers, null, 2)}\n`);
      else if (providers.length === 0) io.stdout(`no OpenID providers (add one with: tessera oidc add ${app} NAME --issuer URL --client-id ID)\n`);
      else io.stdout(`${table(['NAME', 'ISSUER', 'CLIENT ID', 'SCOPES'], providers.map((p) => [p.name, p.issuer, p.clientId, p.scopes.join(' ')]))}\n`);
    });

  withConnectionOptions(oidc.command('remove').description("remove an app's OpenID provider by name; identities linked through it stay").argument('<app>', 'app id or name').argument('<name>', 'the provider name'))
    .addHelpText('after', '\nExample:\n  tessera oidc remove blog google')
    .action(async (app: string, name: string, _options: unknown, command: Command) => {
      const data = await adminRequest<{ removeOidcProvider: { removed: boolean } }>(connectionOf(command, io), REMOVE, { input: { appId: app, name } });
      if (!data.removeOidcProvider.removed) throw new CliError(`app "${app}" has no OpenID provider named "${name}" (see: tessera oidc list ${app})`);
      io.stdout(`removed OpenID provider "${name}"\n`);
    });
}
