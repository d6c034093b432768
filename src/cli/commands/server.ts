// `tessera dev` and `tessera serve`: run the server in the foreground. dev always uses the
// embedded store and makes sure the demo app exists; serve follows DATABASE_URL. The server's
// modules are loaded when one of these runs, not for every command: the client commands and
// --help start in a fraction of the time without them.

import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { isTesseraError } from '../../errors/index.js';
import type { RunningServer, ServerConfig } from '../../server/index.js';
import { problemLine } from '../format.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { demoSchemaPath, demoSeedPath } from '../demo.js';

export const DEMO_APP = 'blog';

interface ListenFlags {
  port?: string;
  host?: string;
  dataDir?: string;
}

/** A started server, and the path of its management API for the banner. */
interface Started {
  running: RunningServer;
  adminPath: string;
}

async function start(flags: ListenFlags, env: CliIo['env'], io: CliIo): Promise<Started> {
  const { ADMIN_PATH, loadConfig, startServer } = await import('../../server/index.js');
  let config: ServerConfig;
  try {
    config = loadConfig({ port: flags.port, host: flags.host, dataDir: flags.dataDir }, env, io.cwd);
  } catch (err) {
    if (isTesseraError(err)) throw new CliError(err.message);
    throw err;
  }
  try {
    return { running: await startServer(config), adminPath: ADMIN_PATH };
  } catch (err) {
    throw new CliError(`cannot start the server: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function printKeyInfo(running: RunningServer, io: CliIo): void {
  const { platformKey } = running;
  if (platformKey.generated) {
    io.stderr(`Generated a platform key (shown once; kept in ${platformKey.path}):\n  ${platformKey.key}\n`);
  }
}

function keyLocation(running: RunningServer): string {
  return running.platformKey.source === 'env' ? 'from TESSERA_ADMIN_KEY' : (running.platformKey.path ?? '');
}

/** Sends the demo app's sample data through its own API (as the operator); a failure is reported, not fatal. */
async function seedDemoApp(running: RunningServer, endpointPath: string, io: CliIo): Promise<void> {
  try {
    const query = await readFile(demoSeedPath(), 'utf8');
    const response = await fetch(`${running.url}${endpointPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${running.platformKey.key}` },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { errors?: { message: string }[] };
    if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  } catch (err) {
    io.stderr(`tessera: warning: the demo app has no sample data: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}

/** A query to paste into a terminal, against the demo app as an anonymous caller. */
function tryIt(endpoint: string): string {
  const query = '{ viewer { allPosts(first: 3, orderBy: { field: publishedAt, direction: DESC }, where: { status: { eq: PUBLISHED } }) { edges { node { title rating comments { aggregations { count } } } } } } }';
  return `curl -s ${endpoint} -H 'content-type: application/json' -d '${JSON.stringify({ query })}'`;
}

/** Creates the demo app unless an app of that name exists; a failure is reported, not fatal. */
async function ensureDemoApp(running: RunningServer, io: CliIo): Promise<string | undefined> {
  const existing = await running.admin.getApp(DEMO_APP);
  if (existing) return `${running.publicUrl}${existing.endpointPath}`;
  const path = demoSchemaPath();
  try {
    const schema = await readFile(path, 'utf8');
    const created = await running.admin.createApp({ name: DEMO_APP, schema });
    await seedDemoApp(running, created.endpointPath, io);
    return `${running.publicUrl}${created.endpointPath}`;
  } catch (err) {
    if (isTesseraError(err) && err.code === 'SCHEMA_INVALID') {
      const problems = Array.isArray(err.extensions.problems) ? err.extensions.problems : [];
      for (const problem of problems) io.stderr(`${problemLine(path, problem as { message: string })}\n`);
    }
    const reason = err instanceof Error ? err.message : String(err);
    io.stderr(`tessera: warning: could not create the demo app "${DEMO_APP}" from ${path}: ${reason}\n`);
    return undefined;
  }
}

function listenOptions(command: Command): Command {
  return command
    .option('--port <port>', 'port to listen on, 0 for any free port (default: TESSERA_PORT, else 4000)')
    .option('--host <host>', 'address to listen on (default: TESSERA_HOST, else 127.0.0.1)')
    .option('--data-dir <dir>', 'the data directory: embedded store and platform key file (default: TESSERA_DATA_DIR, else ./.tessera)');
}

export function registerServerCommands(program: Command, io: CliIo): void {
  listenOptions(
    program
      .command('dev')
      .description('run a development server: embedded store in TESSERA_DATA_DIR (./.tessera) and the demo app "blog"'),
  )
    .addHelpText('after', '\nStops gracefully on Ctrl-C.\n\nExample:\n  tessera dev --port 4000')
    .action(async (flags: ListenFlags) => {
      if (io.env.DATABASE_URL) {
        io.stderr('tessera: note: dev always uses the embedded store; DATABASE_URL is ignored (use tessera serve)\n');
      }
      const { running, adminPath } = await start(flags, { ...io.env, DATABASE_URL: undefined }, io);
      printKeyInfo(running, io);
      const demo = await ensureDemoApp(running, io);
      // The banner is for the person at the terminal; stdout carries JSON log lines only.
      io.stderr(
        [
          `Tessera listening on ${running.url}`,
          `  management API  ${running.publicUrl}${adminPath}`,
          `  web console     ${running.publicUrl}/console  (sign in with the platform key)`,
          ...(demo
            ? [
                `  demo app "${DEMO_APP}"  ${demo}  (sample users ada, grace, linus; password demo-password)`,
                `  data API token  tessera token create ${DEMO_APP} <name>  (send as Authorization: Bearer <token>)`,
                `  try it          ${tryIt(demo)}`,
              ]
            : []),
          `  health          ${running.publicUrl}/healthz`,
          `  platform key    ${keyLocation(running)}`,
          '',
        ].join('\n'),
      );
    });

  listenOptions(
    program
      .command('serve')
      .description('run the server: PostgreSQL when DATABASE_URL is set, else the embedded store in TESSERA_DATA_DIR'),
  )
    .addHelpText(
      'after',
      '\nConfiguration comes from flags and TESSERA_* variables (see docs/server.md).\nStops gracefully on SIGTERM or SIGINT.\n\nExample:\n  DATABASE_URL=postgres://localhost/tessera tessera serve --port 8080 --host 0.0.0.0',
    )
    .action(async (flags: ListenFlags) => {
      const { running, adminPath } = await start(flags, io.env, io);
      printKeyInfo(running, io);
      if (running.store.kind === 'postgres' && (running.platformKey.source === 'file' || running.secretKey.source === 'file')) {
        // Each instance's data directory would hold keys of its own.
        io.stderr('tessera: note: running several instances on one database? give them all the same TESSERA_ADMIN_KEY and TESSERA_SECRET_KEY\n');
      }
      // The banner is for the person at the terminal; stdout carries JSON log lines only.
      io.stderr(
        [
          `Tessera listening on ${running.url}`,
          `  management API  ${running.publicUrl}${adminPath}`,
          `  web console     ${running.publicUrl}/console`,
          `  store           ${running.store.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : 'embedded'}`,
          `  platform key    ${keyLocation(running)}`,
          '',
        ].join('\n'),
      );
    });
}
