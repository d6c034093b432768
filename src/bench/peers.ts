// What the `peers` benchmark asks of a peer (another GraphQL backend measured beside Tessera),
// and what every peer needs: installing its packages from the npm registry into a directory of
// its own (never a dependency of the project), and starting its server in a worker thread.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import type { BenchApp } from './benchApp.js';
import { nextMessage } from './benchServer.js';
import type { Credentials } from './client.js';
import type { Fixtures } from './dataShapes.js';

/**
 * A read shape on a peer. Its answers reduce (`normalise`) to the form Tessera's do, with rows
 * named by Tessera's uuids, so the two can be compared before anything is timed.
 */
export interface PeerRead {
  query: string;
  /** Variable sets, in step with Tessera's for the same shape (successive requests cycle through them). */
  variables: readonly Record<string, unknown>[];
  normalise(data: unknown): unknown;
}

export interface PeerReads {
  getPost: PeerRead;
  firstPage: PeerRead;
  filtered: PeerRead;
  deepPage: PeerRead;
}

/** A write shape on a peer: request `i`'s body, and where its answer holds the row. */
export interface PeerWrite {
  body(i: number): string;
  /** The mutation's field in `data`, and the payload's field holding the row. */
  field: string;
  payload: string;
}

export interface PeerWrites {
  createPost: PeerWrite;
  updatePost: PeerWrite;
  deletePost: PeerWrite;
}

/** The row as a write's answer and the table both give it: title, score, published. */
export type WrittenRow = [unknown, unknown, unknown];

export interface Peer {
  /** Its name and version, for the report. */
  name: string;
  /** A short name for the tables' columns. */
  short: string;
  endpoint: string;
  credentials: Credentials;
  /** Its server thread's /proc directory. */
  thread: string | undefined;
  /** The database whose backends serve it, when not the benchmark's own. */
  database: string | undefined;
  reads(fixtures: Fixtures): Promise<PeerReads>;
  /** Its write shapes, with `deletes` rows of its own made for the delete shape to take. */
  writes(fixtures: Fixtures, deletes: number): Promise<PeerWrites>;
  /** The field of a row that holds its id. */
  idField: string;
  /** The stored row a write answered with, by the id in its answer; undefined when there is none. */
  stored(id: string): Promise<WrittenRow | undefined>;
  close(): Promise<void>;
}

/** What a peer is started with: the benchmark's app, its database and a pool on it. */
export interface PeerContext {
  app: BenchApp;
  databaseUrl: string;
  pool: pg.Pool;
}

export const graphqlBody = (query: string, variables: Record<string, unknown>): string => JSON.stringify({ query, variables });

export const cycle =
  <T>(items: readonly T[]) =>
  (i: number): T =>
    items[i % items.length] as T;

/** Each item once, in turn; running out is an error, not a run of writes of nothing. */
export function takeOnce(items: readonly string[], what: string): () => string {
  let next = 0;
  return () => {
    const item = items[next++];
    if (item === undefined) throw new Error(`${what}: all ${items.length} rows seeded for it are gone; seed more (TESSERA_BENCH_DELETES)`);
    return item;
  };
}

const run = promisify(execFile);

/** Where peers are installed: TESSERA_BENCH_PEERS_DIR, or a cache directory under node_modules; one directory per peer. */
export function peerModules(peer: string): string {
  const root = process.env.TESSERA_BENCH_PEERS_DIR ?? fileURLToPath(new URL('../../node_modules/.cache/tessera-bench-peers/', import.meta.url));
  return join(root, peer);
}

function installedVersion(dir: string, name: string): string | undefined {
  const path = join(dir, 'node_modules', name, 'package.json');
  if (!existsSync(path)) return undefined;
  return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version;
}

/** Installs pinned packages into `dir` from the npm registry, unless they are there already. */
export async function installPackages(dir: string, packages: Readonly<Record<string, string>>): Promise<void> {
  const missing = Object.entries(packages).filter(([name, version]) => installedVersion(dir, name) !== version);
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true, description: 'A peer installed by npm run bench -- peers' }, null, 2)}\n`);
  const specs = Object.entries(packages).map(([name, version]) => `${name}@${version}`);
  console.log(`Installing ${specs.join(', ')} into ${dir}`);
  await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: dir });
}

/** What a peer's worker says: where it listens, and that it has closed. */
export type PeerWorkerMessage = { kind: 'listening'; port: number; thread: string | undefined } | { kind: 'closed' };

export interface PeerWorker {
  port: number;
  thread: string | undefined;
  close(): Promise<void>;
}

/** Starts a peer's worker script (which answers `{ kind: 'close' }` with `closed`) in production mode, with `env` added. */
export async function startPeerWorker(script: URL, workerData: unknown, env: Readonly<Record<string, string>> = {}): Promise<PeerWorker> {
  const worker = new Worker(script, { workerData, env: { ...process.env, NODE_ENV: 'production', ...env } });
  const next = nextMessage<PeerWorkerMessage>(worker);
  const { port, thread } = await next('listening');
  return {
    port,
    thread,
    async close() {
      const closed = next('closed');
      worker.postMessage({ kind: 'close' });
      await closed;
      await worker.terminate();
    },
  };
}

// The forms every server's read answers reduce to before they are compared.

/** Parsed JSON, walked along a shape's known paths (a wrong path fails the comparison). */
export type Json = Record<string, any>;

/** A post by id: its uuid, title, score and published flag. */
export function postRow(uuid: string, post: Json): unknown[] {
  return [uuid, post.title, post.score, post.published];
}

/** A page: each row's uuid, title and score, and whether a next page follows. */
export function pageRows(connection: Json, uuid: (node: Json) => string): { rows: unknown[][]; hasNextPage: boolean } {
  return {
    rows: (connection.edges as Json[]).map((e) => [uuid(e.node as Json), e.node.title, e.node.score]),
    hasNextPage: connection.pageInfo.hasNextPage as boolean,
  };
}

/** The filtered read: each post's title, its author's name and its first comments' texts. */
export function filteredRows(connection: Json, author: string, comments: string): unknown[][] {
  return (connection.edges as Json[]).map(({ node }) => [node.title, node[author]?.displayName ?? null, (node[comments].edges as Json[]).map((e) => e.node.text)]);
}
