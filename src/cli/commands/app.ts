// `tessera app create` and `tessera app list`: creating apps from a schema file and listing
// the apps a server hosts, through the management API.

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import { explainSchemaError, readSchemaFile } from '../explain.js';
import { table } from '../format.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

interface AppRow {
  id: string;
  name: string;
  endpoint: string;
  schemaVersion: number;
}

const CREATE_APP = `mutation CreateApp($input: CreateAppInput!) {
  createApp(input: $input) { app { id name endpoint schemaVersion } }
}`;

const LIST_APPS = `query Apps { apps { id name endpoint schemaVersion } }`;

export function registerAppCommands(program: Command, io: CliIo): void {
  const app = program.command('app').description('create and list apps');

  withConnectionOptions(
    app
      .command('create')
      .description('create an app from a schema file')
      .argument('<name>', 'app name: letters, digits, "-" and "_", starting with a letter')
      .requiredOption('--schema <file>', 'the app schema (GraphQL SDL)'),
  )
    .addHelpText('after', '\nExample:\n  tessera app create blog --schema examples/blog/schema.graphql')
    .action(async (name: string, options: { schema: string }, command: Command) => {
      const connection = connectionOf(command, io);
      const schema = await readSchemaFile(options.schema, io);
      try {
        const data = await adminRequest<{ createApp: { app: AppRow } }>(connection, CREATE_APP, { input: { name, schema } });
        const created = data.createApp.app;
        io.stdout(`created app ${created.name} (id ${created.id}, schema version ${created.schemaVersion})\n`);
        io.stdout(`endpoint: ${created.endpoint}\n`);
      } catch (err) {
        throw explainSchemaError(err, options.schema, io);
      }
    });

  withConnectionOptions(app.command('list').description('list the apps the server hosts'))
    .addHelpText('after', '\nExample:\n  tessera app list --url http://127.0.0.1:4000')
    .action(async (_options: unknown, command: Command) => {
      const data = await adminRequest<{ apps: AppRow[] }>(connectionOf(command, io), LIST_APPS);
      if (data.apps.length === 0) {
        io.stdout('no apps yet (create one with: tessera app create NAME --schema FILE)\n');
        return;
      }
      const rows = data.apps.map((a) => [a.id, a.name, String(a.schemaVersion), a.endpoint]);
      io.stdout(`${table(['ID', 'NAME', 'VERSION', 'ENDPOINT'], rows)}\n`);
    });
}
