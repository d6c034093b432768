// `npm run bench -- peers`: Tessera next to a peer, PostGraphile v4, on the same machine, the same
// database and the same requests, with the direct-SQL server as the floor both are measured
// against. PostGraphile serves the benchmark app's own tables (it reads their columns, keys and
// foreign keys from PostgreSQL), so both answer from the same rows; their answers are compared
// before anything is timed. The peer is installed on first use into a directory of its own
// (not a dependency of the project) from the npm registry. docs/performance.md ("Peers") says
// which other peers can run here and which cannot.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import { decodeAnyId } from '../compile/index.js';
import type { AppContext } from '../compile/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';
import { appContext, createBenchApp } from './benchApp.js';
import type { BenchApp } from './benchApp.js';
import { nextMessage, startBenchServer } from './benchServer.js';
import type { BenchServer } from './benchServer.js';
import { closeConnections, postGraphql, postJson } from './client.js';
import { timedWays } from './compare.js';
import type { RunOptions, Side } from './compare.js';
import { createBenchDatabase, directPool } from './database.js';
import { deletesNeeded, runOptionsFromEnv } from './dataApi.js';
import type { BenchDatabase } from './database.js';
import { createPostShape, deletePostShape, planShape, readShapes, requestBodies, updatePostShape } from './dataShapes.js';
import type { Fixtures, ReadShape, Statement, WriteShape } from './dataShapes.js';
import { startDirectServer } from './directServer.js';
import type { DirectServer } from './directServer.js';
import { logLevel, numberFromEnv } from './env.js';
import { loadFixtures, rowsToDelete } from './fixtures.js';
import { load } from './measure.js';
import type { PostGraphileWorkerData, PostGraphileWorkerMessage } from './postgraphileWorker.js';
import { fmt } from './report.js';
import { seed, seedSizes } from './seed.js';

/** The peer's packages, pinned: PostGraphile 4's last release and its connection-filter plugin. */
const PEER_PACKAGES = { postgraphile: '4.14.1', 'postgraphile-plugin-connection-filter': '2.3.0' } as const;

const run = promisify(execFile);

/** Where the peer is installed: TESSERA_BENCH_PEERS_DIR, or a cache directory under node_modules. */
function peersDir(): string {
  return process.env.TESSERA_BENCH_PEERS_DIR ?? fileURLToPath(new URL('../../node_modules/.cache/tessera-bench-peers/', import.meta.url));
}

function installedVersion(dir: string, name: string): string | undefined {
  const path = join(dir, 'node_modules', name, 'package.json');
  if (!existsSync(path)) return undefined;
  return (JSON.parse(readFileSync(path, 'utf8')) as { version?: string }).version;
}

/** Installs the pinned packages into `dir` unless they are there already. */
async function installPeer(dir: string): Promise<void> {
  const missing = Object.entries(PEER_PACKAGES).filter(([name, version]) => installedVersion(dir, name) !== version);
  if (missing.length === 0) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true, description: 'Peers installed by npm run bench -- peers' }, null, 2)}\n`);
  const specs = Object.entries(PEER_PACKAGES).map(([name, version]) => `${name}@${version}`);
  console.log(`Installing ${specs.join(', ')} into ${dir}`);
  await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: dir });
}

interface PeerServer {
  endpoint: string;
  thread: string | undefined;
  close(): Promise<void>;
}

const WORKER = new URL('./postgraphileWorker.js', import.meta.url);

async function startPostGraphile(data: PostGraphileWorkerData): Promise<PeerServer> {
  const worker = new Worker(WORKER, { workerData: data, env: { ...process.env, NODE_ENV: 'production' } });
  const next = nextMessage<PostGraphileWorkerMessage>(worker);
  const { port, thread } = await next('listening');
  return {
    endpoint: `http://127.0.0.1:${port}/graphql`,
    thread,
    async close() {
      const closed = next('closed');
      worker.postMessage({ kind: 'close' });
      await closed;
      await worker.terminate();
    },
  };
}

// PostGraphile's documents for the data section's shapes: the same fields, under its names (a
// row's `id` is its uuid; relations are named after their foreign keys).

const PGL_GET_POST = `query GetPost($id: UUID!) {
  postById(id: $id) { id title score published }
}`;

const PGL_PAGE = `query PostPage($after: Cursor) {
  allPosts(first: 20, after: $after) { edges { cursor node { id title score } } pageInfo { hasNextPage endCursor } }
}`;

// Tessera orders by the field asked for and then by id in the same direction.
const PGL_FILTERED = `query TopPosts($min: Int!) {
  allPosts(first: 20, filter: { score: { greaterThanOrEqualTo: $min }, published: { equalTo: true } }, orderBy: [SCORE_DESC, ID_DESC]) {
    edges { node { title userByAuthorId { displayName } commentsByPostId(first: 3) { edges { node { text } } } } }
  }
}`;

const PGL_LAST_CURSORS = '{ allPosts(last: 40) { edges { cursor } } }';

const PGL_CREATE = `mutation CreatePost($input: CreatePostInput!) {
  createPost(input: $input) { post { id title score published } }
}`;

const PGL_UPDATE = `mutation UpdatePost($input: UpdatePostByIdInput!) {
  updatePostById(input: $input) { post { id title score published } }
}`;

const PGL_DELETE = `mutation DeletePost($input: DeletePostByIdInput!) {
  deletePostById(input: $input) { post { id title score published } }
}`;

/** One shape three ways: a request body for Tessera and for the peer, and the direct statement. */
interface PeerShape {
  label: string;
  tessera(i: number): string;
  peer(i: number): string;
  direct(i: number): Statement;
}

const body = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });
const cycle = <T>(items: readonly T[]) => (i: number) => items[i % items.length] as T;

/** What a read answers, in a form both servers' answers reduce to. */
type Normalise = (data: unknown) => unknown;

interface CheckedRead {
  shape: PeerShape;
  /** The variable sets to check on each side, in step. */
  checks: { tessera: Record<string, unknown>; peer: Record<string, unknown> }[];
  tesseraQuery: string;
  peerQuery: string;
  normaliseTessera: Normalise;
  normalisePeer: Normalise;
}

/** Parsed JSON, walked by the shapes' known paths (a wrong path fails the comparison). */
type Json = Record<string, any>;

const uuidOf = (id: string) => decodeAnyId(id)?.uuid ?? `not an id: ${id}`;

function pageOf(connection: Json, id: (row: Json) => string) {
  return {
    rows: (connection.edges as Json[]).map((e) => [id(e.node as Json), e.node.title, e.node.score]),
    hasNextPage: connection.pageInfo.hasNextPage as boolean,
  };
}

function filteredOf(connection: Json, author: string, comments: string) {
  return (connection.edges as Json[]).map(({ node }) => [
    node.title,
    node[author]?.displayName ?? null,
    (node[comments].edges as Json[]).map((e) => e.node.text),
  ]);
}

async function peerCursorNearEnd(endpoint: string): Promise<string> {
  const reply = (await postJson(endpoint, '', PGL_LAST_CURSORS, {})) as { data?: { allPosts: { edges: { cursor: string }[] } } };
  const cursor = reply.data?.allPosts.edges[0]?.cursor;
  if (!cursor) throw new Error(`PostGraphile gave no cursor near the end of allPosts: ${JSON.stringify(reply)}`);
  return cursor;
}

function readShapesForPeers(context: AppContext, fixtures: Fixtures, peerDeepCursor: string): CheckedRead[] {
  const shapes = readShapes(fixtures);
  const checked = (shape: ReadShape, peerQuery: string, peerVariables: Record<string, unknown>[], normaliseTessera: Normalise, normalisePeer: Normalise): CheckedRead => {
    const tesseraBodies = requestBodies(shape);
    const peerBodies = peerVariables.map((v) => body(peerQuery, v));
    return {
      shape: { label: shape.label, tessera: cycle(tesseraBodies), peer: cycle(peerBodies), direct: cycle(planShape(context, shape)) },
      checks: shape.variables.slice(0, 3).map((tessera, i) => ({ tessera, peer: peerVariables[i] as Record<string, unknown> })),
      tesseraQuery: shape.query,
      peerQuery,
      normaliseTessera,
      normalisePeer,
    };
  };
  const postRow = (p: Json, id: string) => [id, p.title, p.score, p.published];
  return [
    checked(
      shapes.getPost,
      PGL_GET_POST,
      fixtures.postUuids.map((id) => ({ id })),
      (d) => postRow((d as Json).getPost, uuidOf((d as Json).getPost.id)),
      (d) => postRow((d as Json).postById, (d as Json).postById.id),
    ),
    checked(
      shapes.firstPage,
      PGL_PAGE,
      [{}],
      (d) => pageOf((d as Json).viewer.allPosts, (n) => uuidOf(n.id)),
      (d) => pageOf((d as Json).allPosts, (n) => n.id),
    ),
    checked(
      shapes.filtered,
      PGL_FILTERED,
      shapes.filtered.variables.map((v) => ({ ...v })),
      (d) => filteredOf((d as Json).viewer.allPosts, 'author', 'comments'),
      (d) => filteredOf((d as Json).allPosts, 'userByAuthorId', 'commentsByPostId'),
    ),
    checked(
      shapes.deepPage,
      PGL_PAGE,
      [{ after: peerDeepCursor }],
      (d) => pageOf((d as Json).viewer.allPosts, (n) => uuidOf(n.id)),
      (d) => pageOf((d as Json).allPosts, (n) => n.id),
    ),
  ];
}

interface Sides {
  app: BenchApp;
  peer: PeerServer;
}

/** Both servers must answer a read alike, or the comparison measures two different things. */
async function checkSameAnswers(sides: Sides, read: CheckedRead): Promise<void> {
  for (const { tessera, peer } of read.checks) {
    const a = (await postJson(sides.app.endpoint, sides.app.token, read.tesseraQuery, tessera)) as { data?: unknown; errors?: unknown };
    const b = (await postJson(sides.peer.endpoint, '', read.peerQuery, peer)) as { data?: unknown; errors?: unknown };
    if (a.errors || b.errors || !a.data || !b.data) throw new Error(`${read.shape.label}: an error: ${JSON.stringify({ tessera: a.errors, postgraphile: b.errors })}`);
    const [na, nb] = [read.normaliseTessera(a.data), read.normalisePeer(b.data)];
    if (!isDeepStrictEqual(na, nb)) {
      throw new Error(`${read.shape.label}: Tessera and PostGraphile answer differently:\n${JSON.stringify(na)}\n${JSON.stringify(nb)}`);
    }
  }
}

/** A write shape, with where each side's answer holds the row written. */
interface CheckedWrite {
  shape: PeerShape;
  tesseraField: string;
  peerField: string;
  /** A delete: the row must be gone afterwards. */
  removes: boolean;
}

/**
 * A write on each side must have done it to the database and answered with the row: the
 * fields it returned are read back from the table (a delete's row must be gone instead).
 */
async function checkWrite(sides: Sides, pool: pg.Pool, write: CheckedWrite): Promise<void> {
  const table = compile(sql`SELECT title, score, published FROM ${ident(appSchemaName(sides.app.id), 'Post')} WHERE id = ${''}::uuid`).text;
  const check = async (side: string, text: string, field: string, payload: string, uuid: (id: string) => string) => {
    const fields = (JSON.parse(text) as Json).data?.[field]?.[payload] as Json | undefined;
    const returned = fields && typeof fields.id === 'string' ? [fields.title, fields.score, fields.published] : undefined;
    const stored = fields && typeof fields.id === 'string' ? (await pool.query<Json>(table, [uuid(fields.id)])).rows[0] : undefined;
    const ok = returned !== undefined && (write.removes ? stored === undefined : stored !== undefined && isDeepStrictEqual(returned, [stored.title, stored.score, stored.published]));
    if (!ok) throw new Error(`${write.shape.label}: ${side} did not answer with the row it wrote: ${text.slice(0, 500)}`);
  };
  // Operation numbers no timed request uses.
  await check('Tessera', await postGraphql(sides.app.endpoint, sides.app.token, write.shape.tessera(9_000_000)), write.tesseraField, 'changedPost', uuidOf);
  await check('PostGraphile', await postGraphql(sides.peer.endpoint, '', write.shape.peer(8_000_000)), write.peerField, 'post', (id) => id);
}

interface PeerComparison {
  label: string;
  tessera: Side;
  peer: Side;
  direct: Side;
}

interface Rig extends Sides {
  server: BenchServer;
  direct: DirectServer;
  db: BenchDatabase;
  options: RunOptions;
}

async function compare(rig: Rig, shape: PeerShape): Promise<PeerComparison> {
  const [tessera, peer, direct] = (await timedWays(rig.options, rig.db.name, [
    { thread: rig.server.thread, op: (i) => postGraphql(rig.app.endpoint, rig.app.token, shape.tessera(i)) },
    { thread: rig.peer.thread, op: (i) => postGraphql(rig.peer.endpoint, '', shape.peer(i)) },
    { thread: rig.direct.thread, op: (i) => rig.direct.run(shape.direct(i)) },
  ])) as [Side, Side, Side];
  return { label: shape.label, tessera, peer, direct };
}

/** The write shapes: Tessera's bodies and statements from the data section, PostGraphile's alongside. */
function writeShapes(appId: string, fixtures: Fixtures, deletes: { tessera: readonly string[]; peer: readonly string[]; direct: readonly string[] }): CheckedWrite[] {
  const create = createPostShape(appId, fixtures.userUuids);
  const update = updatePostShape(appId, fixtures.postUuids);
  // The data section's delete shape takes three parts of rows (API, direct server, driver);
  // here the third goes to PostGraphile.
  const remove = deletePostShape(appId, { api: deletes.tessera, server: deletes.direct, driver: [] });
  const taken = cycleOnce(deletes.peer);
  const user = cycle(fixtures.userUuids);
  const post = cycle(fixtures.postUuids);
  const checked = (write: WriteShape, tesseraField: string, peerField: string, peer: (i: number) => string, removes = false): CheckedWrite => ({
    shape: {
      label: write.label,
      // Other operation numbers for each side, so no title is written twice.
      tessera: (i) => write.body(i),
      peer: (i) => peer(1_000_000 + i),
      direct: (i) => write.direct(2_000_000 + i, 'server'),
    },
    tesseraField,
    peerField,
    removes,
  });
  return [
    checked(create, 'createPost', 'createPost', (i) =>
      body(PGL_CREATE, { input: { post: { title: `Bench post ${i}`, score: i % 1000, published: true, authorId: user(i) } } }),
    ),
    checked(update, 'updatePost', 'updatePostById', (i) => body(PGL_UPDATE, { input: { id: post(i), postPatch: { score: i % 1000 } } })),
    checked(remove, 'deletePost', 'deletePostById', () => body(PGL_DELETE, { input: { id: taken() } }), true),
  ];
}

function cycleOnce(items: readonly string[]): () => string {
  let next = 0;
  return () => {
    const item = items[next++];
    if (item === undefined) throw new Error(`(g) deletePost: all ${items.length} rows seeded for PostGraphile's deletes are gone; seed more (TESSERA_BENCH_DELETES)`);
    return item;
  };
}

/** Every read shape through each server, untimed: JIT, caches, prepared statements. */
async function warmUp(rig: Rig, reads: readonly PeerShape[]): Promise<void> {
  const n = reads.length;
  const ms = rig.options.serverWarmupMs;
  const pick = (i: number) => reads[i % n] as PeerShape;
  await load((i) => postGraphql(rig.app.endpoint, rig.app.token, pick(i).tessera(Math.floor(i / n))), { ...rig.options, ms });
  await load((i) => postGraphql(rig.peer.endpoint, '', pick(i).peer(Math.floor(i / n))), { ...rig.options, ms });
  await load((i) => rig.direct.run(pick(i).direct(Math.floor(i / n))), { ...rig.options, ms });
}

const perOp = (seconds: number, side: Side) => (seconds / side.n) * 1e6;
/** Server thread and PostgreSQL CPU per operation, µs: what a request costs where the load generator is not. */
const cost = (side: Side) => perOp(side.cpu.server + side.cpu.postgres, side);

function cells(widths: readonly number[], values: readonly string[]): string {
  return values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' ');
}

function printPeers(rows: readonly PeerComparison[]): void {
  const widths = [36, 10, 7, 10, 7, 10, 7, 9, 9, 9];
  console.log(cells(widths, ['', 'SQL ops/s', 'p50', 'PGL ops/s', 'p50', 'Tessera', 'p50', 'PGL/SQL', 'T/SQL', 'T/PGL']));
  for (const r of rows) {
    console.log(
      cells(widths, [
        r.label,
        fmt(r.direct.opsPerSec),
        fmt(r.direct.p50, 2),
        fmt(r.peer.opsPerSec),
        fmt(r.peer.p50, 2),
        fmt(r.tessera.opsPerSec),
        fmt(r.tessera.p50, 2),
        fmt(r.peer.opsPerSec / r.direct.opsPerSec, 2),
        fmt(r.tessera.opsPerSec / r.direct.opsPerSec, 2),
        fmt(r.tessera.opsPerSec / r.peer.opsPerSec, 2),
      ]),
    );
  }
  console.log('');
  const cpuWidths = [36, 8, 8, 8, 8, 8, 8, 11];
  console.log(cells(cpuWidths, ['CPU µs per operation', 'SQL:', '', 'PGL:', '', 'Tessera:', '', 'cost T/PGL']));
  console.log(cells(cpuWidths, ['', 'server', 'postgres', 'server', 'postgres', 'server', 'postgres', '']));
  for (const r of rows) {
    console.log(
      cells(cpuWidths, [
        r.label,
        fmt(perOp(r.direct.cpu.server, r.direct)),
        fmt(perOp(r.direct.cpu.postgres, r.direct)),
        fmt(perOp(r.peer.cpu.server, r.peer)),
        fmt(perOp(r.peer.cpu.postgres, r.peer)),
        fmt(perOp(r.tessera.cpu.server, r.tessera)),
        fmt(perOp(r.tessera.cpu.postgres, r.tessera)),
        fmt(cost(r.peer) / cost(r.tessera), 2),
      ]),
    );
  }
  console.log('\ncost T/PGL: PostGraphile\'s server and PostgreSQL CPU per operation over Tessera\'s (above 1: Tessera costs less).');
}

async function runPeers(rig: Rig, pool: pg.Pool): Promise<void> {
  const context = await appContext(rig.db.url, rig.app.id);
  const fixtures = await loadFixtures(pool, rig.app);
  const reads = readShapesForPeers(context, fixtures, await peerCursorNearEnd(rig.peer.endpoint));
  for (const read of reads) await checkSameAnswers(rig, read);
  await warmUp(rig, reads.map((r) => r.shape));
  const rows: PeerComparison[] = [];
  for (const read of reads) rows.push(await compare(rig, read.shape));
  const parts = await rowsToDelete(pool, rig.app.id, numberFromEnv('TESSERA_BENCH_DELETES', deletesNeeded(rig.options)));
  const writes = writeShapes(rig.app.id, fixtures, { tessera: parts.api, direct: parts.server, peer: parts.driver });
  for (const write of writes) {
    await checkWrite(rig, pool, write);
    rows.push(await compare(rig, write.shape));
  }
  printPeers(rows);
}

export async function peersSection(): Promise<void> {
  const options = runOptionsFromEnv();
  const modules = peersDir();
  try {
    await installPeer(modules);
  } catch (err) {
    // Without the registry there is no peer to measure; the other sections do not need it.
    const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
    console.log(`Peers: PostGraphile could not be installed into ${modules} (${reason}); nothing measured.`);
    return;
  }
  const sizes = seedSizes();
  const db = await createBenchDatabase();
  let server: BenchServer | undefined;
  let peer: PeerServer | undefined;
  let direct: DirectServer | undefined;
  let pool: pg.Pool | undefined;
  try {
    server = await startBenchServer(db.url, logLevel());
    const app = await createBenchApp(server);
    await seed(db.url, app.id, sizes);
    console.log(
      `Peers on PostgreSQL: Tessera, PostGraphile ${PEER_PACKAGES.postgraphile} (with postgraphile-plugin-connection-filter ` +
        `${PEER_PACKAGES['postgraphile-plugin-connection-filter']}) and the direct-SQL server over the same ${fmt(sizes.posts)} posts, ` +
        `${fmt(sizes.comments)} comments and ${fmt(sizes.users)} users; ${options.concurrency} in flight, ${options.ms / 1000} s measured per server and shape ` +
        `in ${options.rounds} windows taken in turn, each after 1 s of warm-up (each server first warmed for ${options.serverWarmupMs / 1000} s); latencies in ms\n`,
    );
    pool = directPool(db.url);
    direct = await startDirectServer(db.url);
    peer = await startPostGraphile({ databaseUrl: db.url, schema: appSchemaName(app.id), modules });
    await runPeers({ app, server, peer, direct, db, options }, pool);
  } finally {
    closeConnections();
    await peer?.close();
    await direct?.close();
    await pool?.end();
    await server?.close();
    await db.drop();
  }
}
