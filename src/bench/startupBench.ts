// `npm run bench -- startup`: the built `tessera` command started as an operator starts it, in a
// process of its own, as `tessera dev` (embedded store, demo app), `tessera serve` on the
// embedded store and `tessera serve` on PostgreSQL. For each: the time from spawn to the first
// answered request on a fresh store and on a restart (a GraphQL query on the demo app), the
// server's resident memory idle after the restart and after a short load of reads and writes,
// and its peak resident memory (Linux /proc: VmRSS, VmHWM). Several runs; medians printed.
// Each run has a fresh data directory, and for PostgreSQL a fresh database on the server
// DATABASE_URL names (default the local test server), dropped at the end.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeConnections, postGraphql, postJson } from './client.js';
import { createBenchDatabase } from './database.js';
import { numberFromEnv } from './env.js';
import { percentile } from './measure.js';
import { fmt } from './report.js';

const CLI = new URL('../../bin/tessera.js', import.meta.url).pathname;
const EXAMPLE = new URL('../../examples/blog/', import.meta.url).pathname;
const READS = 2_000;
const WRITES = 200;
const IDLE_MS = 2_000;

type Mode = { label: string; command: 'dev' | 'serve'; postgres: boolean };
const MODES: Mode[] = [
  { label: 'tessera dev (embedded)', command: 'dev', postgres: false },
  { label: 'tessera serve (embedded)', command: 'serve', postgres: false },
  { label: 'tessera serve (PostgreSQL)', command: 'serve', postgres: true },
];

interface Run {
  /** Spawn → first answer of /healthz on an empty store (the catalog made; dev: before its demo app). */
  firstStartMs: number;
  /** MiB, after the first start made the demo app (dev itself, serve through the management API), and the peak till then. */
  firstRss: number;
  firstPeakRss: number;
  /** Spawn → first answered GraphQL query on the demo app, on a restart. */
  restartMs: number;
  /** MiB. */
  idleRss: number;
  loadedRss: number;
  peakRss: number;
}

/** The resident memory of a process now and its peak (Linux /proc), in MiB. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Errors of a connection to a server not (yet) listening, or closing one made too early. */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

class Server {
  readonly child: ChildProcess;
  readonly base: string;
  readonly started = performance.now();
  #stderr = '';
  #exit: Promise<number | null>;

  constructor(mode: Mode, port: number, dataDir: string, key: string, databaseUrl: string | undefined) {
    const env: NodeJS.ProcessEnv = { ...process.env, TESSERA_ADMIN_KEY: key, TESSERA_DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    if (mode.postgres && databaseUrl) env.DATABASE_URL = databaseUrl;
    // Logs at the default level, as an operator runs it; the lines are dropped.
    this.child = spawn(process.execPath, [CLI, mode.command, '--port', String(port), '--host', '127.0.0.1'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => (this.#stderr += text));
    this.#exit = new Promise((resolve) => this.child.once('exit', resolve));
    this.base = `http://127.0.0.1:${port}`;
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Polls `probe` until the server answers it; the milliseconds since spawn. */
  async firstAnswer(probe: () => Promise<void>): Promise<number> {
    let exited = false;
    void this.#exit.then(() => (exited = true));
    for (;;) {
      if (exited) throw new Error(`the server exited before answering: ${this.#stderr}`);
      try {
        await probe();
        return performance.now() - this.started;
      } catch (err) {
        // fetch wraps the socket's error in its cause.
        const code = (err as NodeJS.ErrnoException).code ?? ((err as { cause?: NodeJS.ErrnoException }).cause?.code);
        if (!code || !CONNECTION_ERRORS.has(code)) throw err;
      }
      await sleep(5);
    }
  }

  /** `dev` prints its banner once its demo app exists. */
  async banner(): Promise<void> {
    while (!this.#stderr.includes('Tessera listening')) await sleep(20);
  }

  async stop(): Promise<void> {
    this.child.kill('SIGTERM');
    await this.#exit;
  }
}

const READ = JSON.stringify({ query: '{ viewer { allPosts(first: 20, orderBy: { field: publishedAt, direction: DESC }) { edges { node { id title rating tags author { displayName } comments { aggregations { count } } } } } } }' });
const CREATE = 'mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }';

async function adminQuery(base: string, key: string, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  // any: the bench reads a few fields of known answers.
  const body = (await postJson(`${base}/admin/graphql`, key, query, variables)) as { data?: Record<string, any>; errors?: unknown };
  if (body.errors || !body.data) throw new Error(`management API: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** The demo app's endpoint: `dev` made it; for `serve` it is made here as `dev` makes it, sample data included. */
async function demoEndpoint(mode: Mode, base: string, key: string): Promise<string> {
  if (mode.command === 'dev') return `${base}/graphql/${(await adminQuery(base, key, '{ app(id: "blog") { id } }')).app.id}`;
  const schema = await readFile(join(EXAMPLE, 'schema.graphql'), 'utf8');
  const created = await adminQuery(base, key, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'blog', schema } });
  const endpoint = `${base}/graphql/${created.createApp.app.id}`;
  await postGraphql(endpoint, key, JSON.stringify({ query: await readFile(join(EXAMPLE, 'seed.graphql'), 'utf8') }));
  return endpoint;
}

async function inParallel(total: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await op(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function oneRun(mode: Mode, run: number): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-startup-bench-'));
  const key = `tsk_${randomBytes(32).toString('base64url')}`;
  const database = mode.postgres ? await createBenchDatabase() : undefined;
  try {
    const port = await freePort();
    const first = new Server(mode, port, dir, key, database?.url);
    let endpoint: string;
    let firstStartMs: number;
    let firstMemory: { rss: number; peak: number };
    try {
      firstStartMs = await first.firstAnswer(async () => {
        const reply = await fetch(`${first.base}/healthz`);
        if (reply.status !== 200) throw new Error(`/healthz: HTTP ${reply.status}`);
        await reply.arrayBuffer();
      });
      if (mode.command === 'dev') await first.banner();
      endpoint = await demoEndpoint(mode, first.base, key);
      firstMemory = await memoryOf(first.child.pid as number);
    } finally {
      await first.stop();
      // Keep-alive sockets to the stopped server are not reused for the next one.
      closeConnections();
    }

    const server = new Server(mode, port, dir, key, database?.url);
    try {
      const restartMs = await server.firstAnswer(() => postGraphql(endpoint, key, READ).then(() => undefined));
      const pid = server.child.pid as number;
      await sleep(IDLE_MS);
      const idle = await memoryOf(pid);
      await inParallel(READS, 8, () => postGraphql(endpoint, key, READ));
      await inParallel(WRITES, 4, (i) =>
        postGraphql(endpoint, key, JSON.stringify({ query: CREATE, variables: { i: { title: `Bench post ${i}`, slug: `bench-${run}-${i}`, body: 'x'.repeat(500), tags: ['bench'] } } })),
      );
      const loaded = await memoryOf(pid);
      return { firstStartMs, firstRss: firstMemory.rss, firstPeakRss: firstMemory.peak, restartMs, idleRss: idle.rss, loadedRss: loaded.rss, peakRss: loaded.peak };
    } catch (err) {
      throw new Error(`${mode.label}: ${err instanceof Error ? err.message : String(err)}\n${server.stderr}`);
    } finally {
      await server.stop();
    }
  } finally {
    closeConnections();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export async function startupSection(): Promise<void> {
  const runs = numberFromEnv('TESSERA_BENCH_STARTUP_RUNS', 3);
  console.log(`Start-up and resident memory of the tessera command (median of ${runs} runs; ${fmt(READS)} reads and ${fmt(WRITES)} writes of load)\n`);
  const widths = [28, 12, 10, 10, 10, 10, 10, 10];
  const cells = (values: string[]) => values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' ');
  console.log(cells(['', 'empty store:', 'RSS', 'peak', 'restart:', 'idle RSS', 'loaded', 'peak']));
  console.log(cells(['', 'first answer', 'demo app', '', 'answer', '', '', '']));
  for (const mode of MODES) {
    const results: Run[] = [];
    for (let run = 0; run < runs; run++) results.push(await oneRun(mode, run));
    const m = (pick: (r: Run) => number) => median(results.map(pick));
    console.log(
      cells([
        mode.label,
        `${fmt(m((r) => r.firstStartMs))} ms`,
        `${fmt(m((r) => r.firstRss))} MiB`,
        `${fmt(m((r) => r.firstPeakRss))} MiB`,
        `${fmt(m((r) => r.restartMs))} ms`,
        `${fmt(m((r) => r.idleRss))} MiB`,
        `${fmt(m((r) => r.loadedRss))} MiB`,
        `${fmt(m((r) => r.peakRss))} MiB`,
      ]),
    );
  }
}
