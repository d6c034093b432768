// `tessera schema push` and `tessera schema pull`: planning and applying a schema change
// (printing the plan step by step), and printing an app's live schema.

import type { Command } from 'commander';
import { adminRequest } from '../client.js';
import type { Connection } from '../connection.js';
import { explainSchemaError, readSchemaFile } from '../explain.js';
import { planLine, plural } from '../format.js';
import type { PlanStep } from '../format.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const LIVE_VERSION = `query LiveVersion($app: ID!) { app(id: $app) { id schemaVersion } }`;
const MIGRATE = `mutation Migrate($input: MigrateSchemaInput!) {
  migrateSchema(input: $input) { plan { kind description destructive } applied version }
}`;
const PULL = `query Pull($app: ID!) { app(id: $app) { schema } }`;
const PULL_API = `query PullApi($app: ID!) { app(id: $app) { schema: apiSchema } }`;

interface MigrateResult {
  plan: Required<PlanStep>[];
  applied: boolean;
  version: number;
}

async function liveVersion(connection: Connection, app: string): Promise<number> {
  const data = await adminRequest<{ app: { schemaVersion: number } | null }>(connection, LIVE_VERSION, { app });
  if (!data.app) throw new CliError(`no app named or with id "${app}" (see: tessera app list)`);
  return data.app.schemaVersion;
}

/** The line after the plan: what happened, or on a dry run what would. */
export function outcomeLine(result: MigrateResult, live: number, options: { dryRun: boolean; allowDestructive: boolean }): string {
  if (!result.applied && result.version === live) return `no changes (live version ${live})`;
  if (result.applied) return `applied version ${result.version}`;
  const destructive = result.plan.filter((s) => s.destructive).length;
  const hint =
    destructive > 0 && !options.allowDestructive
      ? ` (${plural(destructive, 'destructive step')}: push with --allow-destructive)`
      : '';
  return `dry run: would create version ${result.version}${hint}`;
}

export function registerSchemaCommands(program: Command, io: CliIo): void {
  const schema = program.command('schema').description("push and pull an app's schema");

  withConnectionOptions(
    schema
      .command('push')
      .description("plan and apply the change from an app's live schema to the one in FILE")
      .argument('<app>', 'app id or name')
      .argument('<file>', 'the whole new schema (GraphQL SDL)')
      .option('--dry-run', 'print the plan and the version it would create; change nothing')
      .option('--allow-destructive', 'apply steps that drop types, fields or data'),
  )
    .addHelpText(
      'after',
      '\nSteps marked "!" are destructive; they are refused unless --allow-destructive is given.\n\nExample:\n  tessera schema push blog schema.graphql --dry-run',
    )
    .action(async (app: string, file: string, options: { dryRun?: boolean; allowDestructive?: boolean }, command: Command) => {
      const connection = connectionOf(command, io);
      const sdl = await readSchemaFile(file, io);
      const flags = { dryRun: options.dryRun ?? false, allowDestructive: options.allowDestructive ?? false };
      const live = await liveVersion(connection, app);
      let result: MigrateResult;
      try {
        const data = await adminRequest<{ migrateSchema: MigrateResult }>(connection, MIGRATE, {
          input: { appId: app, schema: sdl, ...flags },
        });
        result = data.migrateSchema;
      } catch (err) {
        throw explainSchemaError(err, file, io);
      }
      for (const step of result.plan) io.stdout(`${planLine(step)}\n`);
      io.stdout(`${outcomeLine(result, live, flags)}\n`);
    });

  withConnectionOptions(
    schema
      .command('pull')
      .description("print an app's live schema, or with --api the GraphQL API generated from it")
      .argument('<app>', 'app id or name')
      .option('--api', 'print the generated API (for relay-compiler, graphql-codegen) instead of the schema as pushed'),
  )
    .addHelpText('after', '\nExamples:\n  tessera schema pull blog > schema.graphql\n  tessera schema pull blog --api > api.graphql')
    .action(async (app: string, options: { api?: boolean }, command: Command) => {
      const data = await adminRequest<{ app: { schema: string } | null }>(connectionOf(command, io), options.api ? PULL_API : PULL, { app });
      if (!data.app) throw new CliError(`no app named or with id "${app}" (see: tessera app list)`);
      io.stdout(data.app.schema.endsWith('\n') ? data.app.schema : `${data.app.schema}\n`);
    });
}
