// `tessera token create|list|revoke`: an app's admin tokens — created and printed the only time
// they are shown (the server keeps only their hash), listed by name, revoked by name.

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import { table } from '../format.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const CREATE_TOKEN = `mutation CreateToken($input: CreateAdminTokenInput!) { createAdminToken(input: $input) { token } }`;
const LIST_TOKENS = `query Tokens($app: ID!) { app(id: $app) { adminTokens { name createdAt } } }`;
const REVOKE_TOKEN = `mutation RevokeToken($input: RevokeAdminTokenInput!) { revokeAdminToken(input: $input) { revoked } }`;

export function registerTokenCommands(program: Command, io: CliIo): void {
  const token = program.command('token').description("create, list and revoke an app's admin tokens");

  withConnectionOptions(
    token
      .command('create')
      .description('create an admin token for an app and print it (shown once)')
      .argument('<app>', 'app id or name')
      .argument('<name>', 'a name to revoke the token by'),
  )
    .addHelpText('after', '\nThe token goes to standard output alone, so it can be captured:\n  TOKEN=$(tessera token create blog ci)')
    .action(async (app: string, name: string, _options: unknown, command: Command) => {
      const data = await adminRequest<{ createAdminToken: { token: string } }>(connectionOf(command, io), CREATE_TOKEN, {
        input: { appId: app, name },
      });
      io.stdout(`${data.createAdminToken.token}\n`);
      io.stderr(`admin token "${name}" created; it is shown only this once\n`);
    });

  withConnectionOptions(token.command('list').description("list an app's admin tokens (names, never the tokens)").argument('<app>', 'app id or name').option('--json', 'print JSON instead of a table'))
    .addHelpText('after', '\nExample:\n  tessera token list blog')
    .action(async (app: string, options: { json?: boolean }, command: Command) => {
      const data = await adminRequest<{ app: { adminTokens: { name: string; createdAt: string }[] } | null }>(connectionOf(command, io), LIST_TOKENS, { app });
      if (!data.app) throw new CliError(`no app named or with id "${app}" (see: tessera app list)`);
      const tokens = data.app.adminTokens;
      if (options.json) io.stdout(`${JSON.stringify(tokens, null, 2)}\n`);
      else if (tokens.length === 0) io.stdout(`no admin tokens (create one with: tessera token create ${app} NAME)\n`);
      else io.stdout(`${table(['NAME', 'CREATED'], tokens.map((t) => [t.name, t.createdAt]))}\n`);
    });

  withConnectionOptions(token.command('revoke').description('revoke an admin token of an app by name; it stops working at once').argument('<app>', 'app id or name').argument('<name>', 'the token name'))
    .addHelpText('after', '\nExample:\n  tessera token revoke blog ci')
    .action(async (app: string, name: string, _options: unknown, command: Command) => {
      const data = await adminRequest<{ revokeAdminToken: { revoked: boolean } }>(connectionOf(command, io), REVOKE_TOKEN, { input: { appId: app, name } });
      if (!data.revokeAdminToken.revoked) throw new CliError(`app "${app}" has no admin token named "${name}" (see: tessera token list ${app})`);
      io.stdout(`revoked admin token "${name}"\n`);
    });
}
