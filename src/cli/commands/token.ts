// `tessera token create`: creates an app's admin token and prints it, the only time it is
// shown (the server keeps only its hash).

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const CREATE_TOKEN = `mutation CreateToken($input: CreateAdminTokenInput!) { createAdminToken(input: $input) { token } }`;

export function registerTokenCommands(program: Command, io: CliIo): void {
  const token = program.command('token').description("manage an app's admin tokens");

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
}
