// `npm run bench -- peers`: Tessera next to other GraphQL backends on the same machine, the same
// rows and the same requests, with the direct-SQL server as the floor all are measured against.
// The peers are PostGraphile 4 (peerPostGraphile.ts), which serves the benchmark app's own
// tables, and Parse Server (peerParse.ts), which serves a copy of its rows in its own layout.
// Each answers each read as Tessera does before anything is timed, and each write's answer is
// read back from its table. Each peer is installed on first use from the npm registry into a
// directory of its own, not as a dependency of the project. docs/performance.md ("Peers") says
// which other peers cannot run here, and why.

import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { decodeAnyId } from '../compile/index.js';
import { appContext, createBenchApp } from './benchApp.js';
import type { BenchApp } from './benchApp.js';
import { startBenchServer } from './benchServer.js';
import type { BenchServer } from './benchServer.js';
import { closeConnections, postGraphql, postJson } from './client.js';
import { timedWays } from './compare.js';
import type { RunOptions, Side, Way } from './compare.js';
import { deletesNeeded, runOptionsFromEnv } from './dataApi.js';
import { createBenchDatabase, directPool } from './database.js';
import type { BenchDatabase } from './database.js';
import { createPostShape, deletePostShape, planShape, readShapes, requestBodies, updatePostShape } from './dataShapes.js';
import type { DataShapes, Fixtures, Statement, WriteShape } from './dataShapes.js';
import { startDirectServer } from './directServer.js';
import type { DirectServer } from './directServer.js';
import { logLevel, numberFromEnv } from './env.js';
import { loadFixtures, rowsToDelete, storedPost } from './fixtures.js';
import { load } from './measure.js';
import { startParse } from './peerParse.js';
import { startPostGraphile } from './peerPostGraphile.js';
import { cycle, filteredRows, graphqlBody, pageRows, postRow } from './peers.js';
import type { Json, Peer, PeerContext, PeerRead, PeerWrite } from './peers.js';
import { fmt } from './report.js';
import { seed, seedSizes } from './seed.js';

/** The peers, in the order their columns are printed. */
const PEERS: readonly { label: string; start: (context: PeerContext) => Promise<Peer> }[] = [
  { label: 'PostGraphile', start: startPostGraphile },
  { label: 'Parse Server', start: startParse },
];

type ShapeKey = keyof DataShapes;
type WriteKey = 'createPost' | 'updatePost' | 'deletePost';

/** One shape on every server: request `i`'s body for Tessera and for each peer, and the direct statement. */
interface Shape {
  label: string;
  tessera(i: number): string;
  peers: ((i: number) => string)[];
  direct(i: number): Statement;
}

const uuidOf = (id: string) => decodeAnyId(id)?.uuid ?? `not an id: ${id}`;

/** Request `i`'s body for peer `p`. */
const peerBody = (shape: Shape, p: number, i: number): string => (shape.peers[p] as (i: number) => string)(i);

/** Tessera's read answers reduced to the forms the peers' are (peers.ts). */
const OUR_FORMS: Record<ShapeKey, (data: Json) => unknown> = {
  getPost: (d) => postRow(uuidOf(d.getPost.id), d.getPost),
  firstPage: (d) => pageRows(d.viewer.allPosts, (n) => uuidOf(n.id)),
  filtered: (d) => filteredRows(d.viewer.allPosts, 'author', 'comments'),
  deepPage: (d) => pageRows(d.viewer.allPosts, (n) => uuidOf(n.id)),
};

interface Rig {
  app: BenchApp;
  server: BenchServer;
  direct: DirectServer;
  peers: readonly Peer[];
  db: BenchDatabase;
  pool: pg.Pool;
  options: RunOptions;
}

/** Each peer must answer a read's first three variable sets as Tessera does. */
async function checkRead(rig: Rig, shapes: DataShapes, key: ShapeKey, reads: readonly PeerRead[]): Promise<void> {
  const shape = shapes[key];
  for (const [i, variables] of shape.variables.slice(0, 3).entries()) {
    const ours = (await postJson(rig.app.endpoint, rig.app.token, shape.query, variables)) as { data?: Json; errors?: unknown };
    if (ours.errors || !ours.data) throw new Error(`${shape.label}: Tessera answered with errors: ${JSON.stringify(ours.errors)}`);
    const expected = OUR_FORMS[key](ours.data);
    for (const [p, read] of reads.entries()) {
      const peer = rig.peers[p] as Peer;
      const theirs = (await postJson(peer.endpoint, peer.credentials, read.query, read.variables[i] ?? {})) as { data?: Json; errors?: unknown };
      const got = theirs.errors || !theirs.data ? theirs.errors : read.normalise(theirs.data);
      if (!isDeepStrictEqual(got, expected)) {
        throw new Error(`${shape.label}: ${peer.name} answers otherwise than Tessera:\n${JSON.stringify(got)}\n${JSON.stringify(expected)}`);
      }
    }
  }
}

/**
 * A write on each server must have been done to the database and answered with the row: the
 * fields it returned are read back from its table (a deleted row must be gone instead).
 */
async function checkWrite(rig: Rig, shape: Shape, tesseraField: string, writes: readonly PeerWrite[], removes: boolean): Promise<void> {
  const check = async (server: string, text: string, field: string, payload: string, idField: string, stored: (id: string) => Promise<unknown[] | undefined>) => {
    const row = (JSON.parse(text) as Json).data?.[field]?.[payload] as Json | undefined;
    const id = row?.[idField];
    const after = typeof id === 'string' ? await stored(id) : undefined;
    const ok = row !== undefined && typeof id === 'string' && (removes ? after === undefined : isDeepStrictEqual(after, [row.title, row.score, row.published]));
    if (!ok) throw new Error(`${shape.label}: ${server} did not answer with the row it wrote: ${text.slice(0, 500)}`);
  };
  // Operation numbers no timed request uses.
  await check('Tessera', await postGraphql(rig.app.endpoint, rig.app.token, shape.tessera(9_000_000)), tesseraField, 'changedPost', 'id', (id) => storedPost(rig.pool, rig.app.id, uuidOf(id)));
  for (const [p, write] of writes.entries()) {
    const peer = rig.peers[p] as Peer;
    await check(peer.name, await postGraphql(peer.endpoint, peer.credentials, peerBody(shape, p, 8_000_000)), write.field, write.payload, peer.idField, (id) => peer.stored(id));
  }
}

interface Row {
  label: string;
  tessera: Side;
  peers: Side[];
  direct: Side;
}

async function compare(rig: Rig, shape: Shape): Promise<Row> {
  const ways: Way[] = [
    { thread: rig.server.thread, op: (i) => postGraphql(rig.app.endpoint, rig.app.token, shape.tessera(i)) },
    ...rig.peers.map((peer, p): Way => ({ thread: peer.thread, database: peer.database, op: (i) => postGraphql(peer.endpoint, peer.credentials, peerBody(shape, p, i)) })),
    { thread: rig.direct.thread, op: (i) => rig.direct.run(shape.direct(i)) },
  ];
  const sides = await timedWays(rig.options, rig.db.name, ways);
  return { label: shape.label, tessera: sides[0] as Side, peers: sides.slice(1, -1), direct: sides[sides.length - 1] as Side };
}

/** Every read shape through each server, untimed: JIT, caches, prepared statements. */
async function warmUp(rig: Rig, reads: readonly Shape[]): Promise<void> {
  const n = reads.length;
  const options = { ...rig.options, ms: rig.options.serverWarmupMs };
  const pick = (i: number) => reads[i % n] as Shape;
  await load((i) => postGraphql(rig.app.endpoint, rig.app.token, pick(i).tessera(Math.floor(i / n))), options);
  for (const [p, peer] of rig.peers.entries()) {
    await load((i) => postGraphql(peer.endpoint, peer.credentials, peerBody(pick(i), p, Math.floor(i / n))), options);
  }
  await load((i) => rig.direct.run(pick(i).direct(Math.floor(i / n))), options);
}

async function readRows(rig: Rig, fixtures: Fixtures): Promise<Row[]> {
  const context = await appContext(rig.db.url, rig.app.id);
  const shapes = readShapes(fixtures);
  const peerReads = await Promise.all(rig.peers.map((peer) => peer.reads(fixtures)));
  const keys: ShapeKey[] = ['getPost', 'firstPage', 'filtered', 'deepPage'];
  const reads: Shape[] = [];
  for (const key of keys) {
    const ofPeers = peerReads.map((r) => r[key]);
    await checkRead(rig, shapes, key, ofPeers);
    reads.push({
      label: shapes[key].label,
      tessera: cycle(requestBodies(shapes[key])),
      peers: ofPeers.map((read) => cycle(read.variables.map((v) => graphqlBody(read.query, v)))),
      direct: cycle(planShape(context, shapes[key])),
    });
  }
  await warmUp(rig, reads);
  const rows: Row[] = [];
  for (const read of reads) rows.push(await compare(rig, read));
  return rows;
}

async function writeRows(rig: Rig, fixtures: Fixtures): Promise<Row[]> {
  const deletes = numberFromEnv('TESSERA_BENCH_DELETES', deletesNeeded(rig.options));
  // Tessera and the direct server take two thirds of these rows; each peer makes a third of its own.
  const parts = await rowsToDelete(rig.pool, rig.app.id, deletes);
  const peerWrites = [];
  for (const peer of rig.peers) peerWrites.push(await peer.writes(fixtures, Math.floor(deletes / 3)));
  const ours: Record<WriteKey, WriteShape> = {
    createPost: createPostShape(rig.app.id, fixtures.userUuids),
    updatePost: updatePostShape(rig.app.id, fixtures.postUuids),
    deletePost: deletePostShape(rig.app.id, { api: parts.api, server: parts.server, driver: [] }),
  };
  const rows: Row[] = [];
  for (const key of ['createPost', 'updatePost', 'deletePost'] as const) {
    const write = ours[key];
    const ofPeers = peerWrites.map((w) => w[key]);
    // Other operation numbers for each server, so no title is written twice.
    const shape: Shape = {
      label: write.label,
      tessera: (i) => write.body(i),
      peers: ofPeers.map((w, p) => (i: number) => w.body((p + 1) * 1_000_000 + i)),
      direct: (i) => write.direct(5_000_000 + i, 'server'),
    };
    await checkWrite(rig, shape, key, ofPeers, key === 'deletePost');
    rows.push(await compare(rig, shape));
  }
  return rows;
}

const perOp = (seconds: number, side: Side) => (seconds / side.n) * 1e6;
/** Server thread and PostgreSQL CPU per operation, µs: what a request costs where the load generator is not. */
const cost = (side: Side) => perOp(side.cpu.server + side.cpu.postgres, side);

function line(widths: readonly number[], values: readonly string[]): void {
  console.log(values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' '));
}

function printRows(peers: readonly Peer[], rows: readonly Row[]): void {
  const names = peers.map((p) => p.short);
  const label = 36;
  const ops = [label, 10, ...names.map(() => 10), 10, ...names.map(() => 10)];
  line(ops, ['requests/s', 'SQL', ...names, 'Tessera', ...names.map((n) => `T/${n}`)]);
  for (const r of rows) {
    line(ops, [r.label, fmt(r.direct.opsPerSec), ...r.peers.map((s) => fmt(s.opsPerSec)), fmt(r.tessera.opsPerSec), ...r.peers.map((s) => fmt(r.tessera.opsPerSec / s.opsPerSec, 2))]);
  }
  console.log('');
  const p50 = [label, 10, ...names.map(() => 10), 10, 10, ...names.map(() => 10)];
  line(p50, ['p50 ms; ratio to direct SQL', 'SQL', ...names, 'Tessera', 'T/SQL', ...names.map((n) => `${n}/SQL`)]);
  for (const r of rows) {
    line(p50, [
      r.label,
      fmt(r.direct.p50, 2),
      ...r.peers.map((s) => fmt(s.p50, 2)),
      fmt(r.tessera.p50, 2),
      fmt(r.tessera.opsPerSec / r.direct.opsPerSec, 2),
      ...r.peers.map((s) => fmt(s.opsPerSec / r.direct.opsPerSec, 2)),
    ]);
  }
  console.log('');
  const cpu = [label, 12, ...names.map(() => 12), 12, ...names.map(() => 12)];
  line(cpu, ['CPU µs: server · postgres', 'SQL', ...names, 'Tessera', ...names.map((n) => `cost ${n}/T`)]);
  const both = (s: Side) => `${fmt(perOp(s.cpu.server, s))} · ${fmt(perOp(s.cpu.postgres, s))}`;
  for (const r of rows) {
    line(cpu, [r.label, both(r.direct), ...r.peers.map(both), both(r.tessera), ...r.peers.map((s) => fmt(cost(s) / cost(r.tessera), 2))]);
  }
  console.log(`\ncost <peer>/T: the peer's server and PostgreSQL CPU per operation over Tessera's (above 1: Tessera costs less).`);
  for (const peer of peers) console.log(`${peer.short}: ${peer.name}`);
}

export async function peersSection(): Promise<void> {
  const options = runOptionsFromEnv();
  const sizes = seedSizes();
  const db = await createBenchDatabase();
  const pool = directPool(db.url);
  const peers: Peer[] = [];
  let server: BenchServer | undefined;
  let direct: DirectServer | undefined;
  try {
    server = await startBenchServer(db.url, logLevel());
    const app = await createBenchApp(server);
    await seed(db.url, app.id, sizes);
    for (const { label, start } of PEERS) {
      try {
        peers.push(await start({ app, databaseUrl: db.url, pool }));
      } catch (err) {
        // A peer that cannot be installed or started here (no registry) is left out, and said so.
        const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
        console.log(`Peers: ${label} could not be started (${reason}); it is left out.`);
      }
    }
    if (peers.length === 0) {
      console.log('Peers: no peer could be started; nothing measured.');
      return;
    }
    console.log(
      `Peers on PostgreSQL: Tessera, ${peers.map((p) => p.name).join(', ')} and the direct-SQL server over the same ${fmt(sizes.posts)} posts, ` +
        `${fmt(sizes.comments)} comments and ${fmt(sizes.users)} users; ${options.concurrency} in flight, ${options.ms / 1000} s measured per server and shape ` +
        `in ${options.rounds} windows taken in turn, each after 1 s of warm-up (each server first warmed for ${options.serverWarmupMs / 1000} s)\n`,
    );
    direct = await startDirectServer(db.url);
    const rig: Rig = { app, server, direct, peers, db, pool, options };
    const fixtures = await loadFixtures(pool, app);
    // Reads first: the writes' rows would move the deep page.
    const rows = [...(await readRows(rig, fixtures)), ...(await writeRows(rig, fixtures))];
    printRows(peers, rows);
  } finally {
    closeConnections();
    // A peer that fails to close must not keep the others, or the database, from closing.
    for (const peer of peers) await peer.close().catch((err: unknown) => console.log(`Peers: ${peer.name} did not close cleanly: ${String(err)}`));
    await direct?.close();
    await pool.end();
    await server?.close();
    await db.drop();
  }
}
