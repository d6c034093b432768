// `tessera app create|list|delete|settings`: creating apps from a schema file, listing the apps
// a server hosts, deleting one, and reading or changing an app's settings, through the
// management API. Listings print a table, or JSON with --json (for scripts).

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import { explainSchemaError, readSchemaFile } from '../explain.js';
import { table } from '../format.js';
import { DEFAULT_SETTINGS } from '../../model/index.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

interface AppRow {
  id: string;
  name: string;
  endpoint: string;
  schemaVersion: number;
  cluster?: string;
}

const CREATE_APP = `mutation CreateApp($input: CreateAppInput!) {
  createApp(input: $input) { app { id name endpoint schemaVersion cluster } }
}`;

const LIST_APPS = `query Apps { apps { id name endpoint schemaVersion } }`;
const MOVE_APP = `mutation MoveApp($input: MoveAppInput!) { moveApp(input: $input) { app { name cluster } } }`;
const DELETE_APP = `mutation DeleteApp($input: DeleteAppInput!) { deleteApp(input: $input) { deleted } }`;
const SETTINGS = `query Settings($app: ID!) { app(id: $app) { id settings { ${Object.keys(DEFAULT_SETTINGS).join(' ')} } } }`;
const UPDATE_SETTINGS = `mutation UpdateSettings($input: UpdateAppInput!) { updateApp(input: $input) { app { settings { ${Object.keys(DEFAULT_SETTINGS).join(' ')} } } } }`;

/** A `name=value` assignment as the setting's type wants it: a number, true/false, a list (comma-separated) or null. */
export function settingValue(assignment: string): [string, unknown] {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw new CliError(`"${assignment}" is not name=value`);
  const name = assignment.slice(0, eq);
  const text = assignment.slice(eq + 1);
  if (!(name in DEFAULT_SETTINGS)) throw new CliError(`no setting named "${name}" (settings: ${Object.keys(DEFAULT_SETTINGS).join(', ')})`);
  const current = DEFAULT_SETTINGS[name as keyof typeof DEFAULT_SETTINGS];
  if (text === 'null') return [name, null];
  if (typeof current === 'boolean') {
    if (text !== 'true' && text !== 'false') throw new CliError(`${name} takes true or false`);
    return [name, text === 'true'];
  }
  if (typeof current === 'number') {
    if (!/^\d+$/.test(text)) throw new CliError(`${name} takes a whole number`);
    return [name, Number(text)];
  }
  return [name, text === '' ? [] : text.split(',').map((s) => s.trim())];
}

export function registerAppCommands(program: Command, io: CliIo): void {
  const app = program.command('app').description('create, list and delete apps; read and change their settings');

  withConnectionOptions(
    app
      .command('create')
      .description('create an app from a schema file')
      .argument('<name>', 'app name: letters, digits, "-" and "_", starting with a letter')
      .requiredOption('--schema <file>', 'the app schema (GraphQL SDL)')
      .option('--cluster <name>', 'the PostgreSQL cluster to place it on (default: the one holding the fewest apps; see tessera cluster list)'),
  )
    .addHelpText('after', '\nExample:\n  tessera app create blog --schema examples/blog/schema.graphql')
    .action(async (name: string, options: { schema: string; cluster?: string }, command: Command) => {
      const connection = connectionOf(command, io);
      const schema = await readSchemaFile(options.schema, io);
      try {
        const data = await adminRequest<{ createApp: { app: AppRow } }>(connection, CREATE_APP, { input: { name, schema, ...(options.cluster ? { cluster: options.cluster } : {}) } });
        const created = data.createApp.app;
        const where = created.cluster && created.cluster !== 'main' ? `, on cluster ${created.cluster}` : '';
        io.stdout(`created app ${created.name} (id ${created.id}, schema version ${created.schemaVersion}${where})\n`);
        io.stdout(`endpoint: ${created.endpoint}\n`);
      } catch (err) {
        throw explainSchemaError(err, options.schema, io);
      }
    });

  withConnectionOptions(app.command('list').description('list the apps the server hosts').option('--json', 'print JSON (an array of apps) instead of a table'))
    .addHelpText('after', '\nExample:\n  tessera app list --url http://127.0.0.1:4000')
    .action(async (options: { json?: boolean }, command: Command) => {
      const data = await adminRequest<{ apps: AppRow[] }>(connectionOf(command, io), LIST_APPS);
      if (options.json) {
        io.stdout(`${JSON.stringify(data.apps, null, 2)}\n`);
        return;
      }
      if (data.apps.length === 0) {
        io.stdout('no apps yet (create one with: tessera app create NAME --schema FILE)\n');
        return;
      }
      const rows = data.apps.map((a) => [a.id, a.name, String(a.schemaVersion), a.endpoint]);
      io.stdout(`${table(['ID', 'NAME', 'VERSION', 'ENDPOINT'], rows)}\n`);
    });

  withConnectionOptions(
    app
      .command('delete')
      .description('delete an app with all its data (there is no undo)')
      .argument('<app>', 'app id or name')
      .option('--yes', 'confirm: the app and all its data go'),
  )
    .addHelpText('after', '\nExample:\n  tessera app delete blog --yes')
    .action(async (name: string, options: { yes?: boolean }, command: Command) => {
      if (!options.yes) throw new CliError(`deleting app "${name}" removes all its data; run again with --yes to confirm`);
      const data = await adminRequest<{ deleteApp: { deleted: boolean } }>(connectionOf(command, io), DELETE_APP, { input: { appId: name } });
      if (!data.deleteApp.deleted) throw new CliError(`no app named or with id "${name}" (see: tessera app list)`);
      io.stdout(`deleted app ${name}\n`);
    });

  withConnectionOptions(
    app
      .command('move')
      .description('move an app to another PostgreSQL cluster (its writes wait during the copy; reads go on)')
      .argument('<app>', 'app id or name')
      .requiredOption('--cluster <name>', 'the cluster to move it to (see: tessera cluster list)'),
  )
    .addHelpText('after', '\nExample:\n  tessera app move blog --cluster east')
    .action(async (name: string, options: { cluster: string }, command: Command) => {
      const started = Date.now();
      const data = await adminRequest<{ moveApp: { app: { name: string; cluster: string } } }>(connectionOf(command, io), MOVE_APP, { input: { appId: name, cluster: options.cluster } });
      io.stdout(`moved app ${data.moveApp.app.name} to cluster ${data.moveApp.app.cluster} (${Date.now() - started} ms)\n`);
    });

  withConnectionOptions(
    app
      .command('settings')
      .description("print an app's settings, or change them with name=value assignments")
      .argument('<app>', 'app id or name')
      .argument('[assignments...]', 'settings to change, e.g. maxDepth=12 introspection=false corsOrigins=https://a.example,https://b.example')
      .option('--json', 'print JSON instead of lines'),
  )
    .addHelpText('after', '\nExamples:\n  tessera app settings blog\n  tessera app settings blog maxPageSize=500 fieldSuggestions=false\n  tessera app settings blog corsOrigins=null')
    .action(async (name: string, assignments: string[], options: { json?: boolean }, command: Command) => {
      const connection = connectionOf(command, io);
      let settings: Record<string, unknown>;
      if (assignments.length === 0) {
        const data = await adminRequest<{ app: { settings: Record<string, unknown> } | null }>(connection, SETTINGS, { app: name });
        if (!data.app) throw new CliError(`no app named or with id "${name}" (see: tessera app list)`);
        settings = data.app.settings;
      } else {
        const patch = Object.fromEntries(assignments.map(settingValue));
        const data = await adminRequest<{ updateApp: { app: { settings: Record<string, unknown> } } }>(connection, UPDATE_SETTINGS, { input: { appId: name, settings: patch } });
        settings = data.updateApp.app.settings;
      }
      if (options.json) io.stdout(`${JSON.stringify(settings, null, 2)}\n`);
      else io.stdout(`${Object.entries(settings).map(([k, v]) => `${k} = ${Array.isArray(v) ? v.join(',') : String(v)}`).join('\n')}\n`);
    });
}
