// `tessera app export|import|fork`: an app's archive downloaded through a signed export link
// (checked line by line as it arrives, rows counted on stderr), an archive uploaded as a new
// app (progress from the server on stderr), and a fork made by the server.

import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { ARCHIVE_MEDIA_TYPE, readArchive } from '../../archive/index.js';
import type { EndRecord } from '../../archive/index.js';
import { RemoteError, adminRequest } from '../client.js';
import type { Connection } from '../connection.js';
import { CliError } from '../io.js';
import type { CliIo } from '../io.js';
import { connectionOf, withConnectionOptions } from './options.js';

const EXPORT_APP = `mutation ExportApp($input: ExportAppInput!) { exportApp(input: $input) { url expiresAt } }`;
const FORK_APP = `mutation ForkApp($input: ForkAppInput!) { forkApp(input: $input) { app { id name endpoint schemaVersion } warnings } }`;
const FIND_APP = `query App($id: ID!) { app(id: $id) { id name } }`;

/** How often progress is reported on stderr. */
const PROGRESS_MS = 2000;

/** Reports rows done and the rate, at most every PROGRESS_MS, and a last line on `done`. */
class Progress {
  readonly #io: CliIo;
  readonly #verb: string;
  readonly #started = Date.now();
  #last = Date.now();

  constructor(io: CliIo, verb: string) {
    this.#io = io;
    this.#verb = verb;
  }

  rows(rows: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.#last < PROGRESS_MS) return;
    this.#last = now;
    const seconds = Math.max((now - this.#started) / 1000, 0.001);
    this.#io.stderr(`${this.#verb} ${rows.toLocaleString('en-US')} rows (${Math.round(rows / seconds).toLocaleString('en-US')} rows/s)\n`);
  }

  get seconds(): number {
    return (Date.now() - this.#started) / 1000;
  }
}

function transportFailure(err: unknown, url: string): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new CliError(`cannot reach the Tessera server at ${url} (${cause?.code ?? cause?.message ?? String(err)})`);
}

async function remoteError(response: Response): Promise<CliError> {
  if (response.status === 401) return new CliError('the server refused the platform key (check --admin-key or TESSERA_ADMIN_KEY)');
  try {
    const body = (await response.json()) as { errors?: { message?: string; extensions?: Record<string, unknown> }[] };
    const first = body.errors?.[0];
    if (first?.message) return new RemoteError(first.message, first.extensions ?? {});
  } catch {
    // Not a coded body: the status says it.
  }
  return new CliError(`the server answered HTTP ${response.status}`);
}

async function exportApp(connection: Connection, appId: string, out: string | undefined, io: CliIo): Promise<void> {
  const found = await adminRequest<{ app: { id: string; name: string } | null }>(connection, FIND_APP, { id: appId });
  if (!found.app) throw new CliError(`no app named or with id "${appId}" (see: tessera app list)`);
  const link = await adminRequest<{ exportApp: { url: string } }>(connection, EXPORT_APP, { input: { appId: found.app.id } });
  // The link names the server's public URL; the CLI reaches the server where it was told to.
  const path = new URL(link.exportApp.url).pathname;
  let response: Response;
  try {
    response = await fetch(`${connection.url}${path}`);
  } catch (err) {
    throw transportFailure(err, connection.url);
  }
  if (!response.ok || !response.body) throw await remoteError(response);
  const file = resolve(io.cwd, out ?? `${found.app.name}-${new Date().toISOString().slice(0, 10)}.tessera.gz`);
  const progress = new Progress(io, 'exported');
  const sink = createWriteStream(file, { mode: 0o600 });
  // The archive is checked as it arrives: a download cut short is said at once, not at import.
  const check = new PassThrough();
  let rows = 0;
  const checking = (async (): Promise<EndRecord> => {
    for await (const item of readArchive(check)) {
      if (item.kind === 'row') {
        rows += 1;
        if (rows % 1000 === 0) progress.rows(rows);
      } else if (item.kind === 'end') {
        return item.record;
      }
    }
    throw new Error('the archive has no end record');
  })();
  checking.catch((err: unknown) => check.destroy(err instanceof Error ? err : new Error(String(err))));
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!sink.write(chunk)) await once(sink, 'drain');
      if (!check.write(chunk)) await once(check, 'drain');
    }
    check.end();
    sink.end();
    await finished(sink);
    const end = await checking;
    progress.rows(rows, true);
    io.stdout(`exported app ${found.app.name} (${Object.keys(end.rows).length} tables, ${rows} rows) to ${file}\n`);
  } catch (err) {
    sink.destroy();
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError(`the export did not complete, ${file} is not a usable archive: ${reason}`);
  }
}

interface ImportAnswer {
  progress?: { rows: number };
  app?: { id: string; name: string; endpoint: string; schemaVersion: number };
  rows?: number;
  warnings?: string[];
  errors?: { message?: string; extensions?: Record<string, unknown> }[];
}

async function importApp(connection: Connection, file: string, name: string | undefined, io: CliIo): Promise<void> {
  const path = resolve(io.cwd, file);
  try {
    await stat(path);
  } catch {
    throw new CliError(`cannot read ${file}`);
  }
  const url = `${connection.url}/admin/apps/import${name ? `?name=${encodeURIComponent(name)}` : ''}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': ARCHIVE_MEDIA_TYPE, accept: 'application/x-ndjson', authorization: `Bearer ${connection.key}` },
      body: createReadStream(path) as unknown as ReadableStream,
      duplex: 'half',
    } as RequestInit);
  } catch (err) {
    throw transportFailure(err, connection.url);
  }
  if (!response.ok || !response.body) throw await remoteError(response);
  const progress = new Progress(io, 'imported');
  let carry = '';
  let result: ImportAnswer | undefined;
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    carry += decoder.decode(chunk, { stream: true });
    for (let nl = carry.indexOf('\n'); nl !== -1; nl = carry.indexOf('\n')) {
      const line = carry.slice(0, nl);
      carry = carry.slice(nl + 1);
      if (line.trim() === '') continue;
      const answer = JSON.parse(line) as ImportAnswer;
      if (answer.progress) progress.rows(answer.progress.rows);
      else result = answer;
    }
  }
  const first = result?.errors?.[0];
  if (first) throw new RemoteError(first.message ?? 'the import failed', first.extensions ?? {});
  if (!result?.app) throw new CliError('the server ended the import without an answer; the import did not happen');
  progress.rows(result.rows ?? 0, true);
  for (const warning of result.warnings ?? []) io.stderr(`warning: ${warning}\n`);
  io.stdout(`imported app ${result.app.name} (id ${result.app.id}, ${result.rows ?? 0} rows)\n`);
  io.stdout(`endpoint: ${result.app.endpoint}\n`);
}

export function registerPortabilityCommands(program: Command, io: CliIo): void {
  const app = program.commands.find((c) => c.name() === 'app');
  if (!app) throw new Error('the app command must be registered first');

  withConnectionOptions(
    app
      .command('export')
      .description("download an app's archive (schema, settings, every row, users with password hashes), checked as it arrives")
      .argument('<app>', 'app id or name')
      .option('--out <file>', 'where to write it (default: <name>-<date>.tessera.gz here)'),
  )
    .addHelpText('after', '\nExample:\n  tessera app export blog --out blog.tessera.gz')
    .action(async (appId: string, options: { out?: string }, command: Command) => {
      await exportApp(connectionOf(command, io), appId, options.out, io);
    });

  withConnectionOptions(
    app
      .command('import')
      .description('make a new app of an archive, with the same ids; all or nothing')
      .argument('<file>', 'an archive written by tessera app export')
      .option('--name <name>', "the new app's name (default: the exported app's)"),
  )
    .addHelpText('after', '\nExample:\n  tessera app import blog.tessera.gz --name blog-restored')
    .action(async (file: string, options: { name?: string }, command: Command) => {
      await importApp(connectionOf(command, io), file, options.name, io);
    });

  withConnectionOptions(
    app
      .command('fork')
      .description("make a new app with an app's schema and a copy of its data (same ids), to try a migration on")
      .argument('<app>', 'app id or name')
      .requiredOption('--name <name>', "the new app's name"),
  )
    .addHelpText('after', '\nExample:\n  tessera app fork blog --name blog-try')
    .action(async (appId: string, options: { name: string }, command: Command) => {
      const data = await adminRequest<{ forkApp: { app: { id: string; name: string; endpoint: string }; warnings: string[] } }>(connectionOf(command, io), FORK_APP, {
        input: { appId, name: options.name },
      });
      for (const warning of data.forkApp.warnings) io.stderr(`warning: ${warning}\n`);
      io.stdout(`forked app ${appId} as ${data.forkApp.app.name} (id ${data.forkApp.app.id})\n`);
      io.stdout(`endpoint: ${data.forkApp.app.endpoint}\n`);
    });
}
