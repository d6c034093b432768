// Runs one shape three ways under the same load — through the server over HTTP; its SQL
// through a bare HTTP server on the same driver (the direct-SQL baseline); and that SQL straight
// through a `pg` pool with no HTTP at all — and keeps the figures and the CPU each part spent.

import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { BenchApp } from './benchApp.js';
import type { BenchServer } from './benchServer.js';
import type { DirectServer } from './directServer.js';
import { postGraphql, postJson } from './client.js';
import { cpuWindow } from './cpu.js';
import type { CpuSpent } from './cpu.js';
import type { BenchDatabase } from './database.js';
import { requestBodies } from './dataShapes.js';
import type { ReadShape, Statement, WriteShape } from './dataShapes.js';
import { load, loadTimes, summariseWindows } from './measure.js';
import type { LoadOptions, Measured, Timed } from './measure.js';

/** What the comparisons run against. */
export interface Rig {
  app: BenchApp;
  server: BenchServer;
  /** The direct-SQL server: the baseline the API is measured against. */
  direct: DirectServer;
  /** A pool sized like the server's store pool: set-up, checks and the driver-only figures. */
  pool: pg.Pool;
  db: BenchDatabase;
  options: RunOptions;
}

export interface RunOptions extends LoadOptions {
  /** Untimed traffic before each window: JIT, connections and caches settle. */
  warmupMs: number;
  /** Windows each way's measured time (`ms`) is split into, taken in turn with the other ways'. */
  rounds: number;
  /** Untimed traffic of every read shape before the first run, through both servers. */
  serverWarmupMs: number;
}

export interface Side extends Measured {
  cpu: CpuSpent;
}

export interface Comparison {
  label: string;
  /** Through Tessera over HTTP. */
  api: Side;
  /** Through the direct-SQL server over HTTP: one named prepared statement per request. */
  direct: Side;
  /** The same statements through `pg` in the load generator: no HTTP on either end. */
  driver: Side;
}

/** One way of running a shape: the operation, and the server whose CPU time is its `server` (none for the driver). */
export interface Way {
  thread: string | undefined;
  op: (i: number) => Promise<unknown>;
  /** The database whose backends serve it, when not the comparison's own (a peer with a copy of the rows). */
  database?: string;
}

const NO_CPU: Readonly<CpuSpent> = { seconds: 0, machine: 0, node: 0, main: 0, server: 0, postgres: 0 };

const addCpu = (a: CpuSpent, b: CpuSpent): CpuSpent => ({
  seconds: a.seconds + b.seconds,
  machine: a.machine + b.machine,
  node: a.node + b.node,
  main: a.main + b.main,
  server: a.server + b.server,
  postgres: a.postgres + b.postgres,
});

/**
 * Measures each way in `options.rounds` windows that share its measured time, in mirrored
 * order (API, SQL, pg, then pg, SQL, API, …), each after its warm-up: the machine's speed
 * drifts over a run (other guests of the host, the kernel's caches), and a drift that weighed
 * on one side of a comparison measured after the other would read as a difference between
 * them. Operation numbers run on across a way's windows.
 */
export async function timedWays(options: RunOptions, database: string, ways: readonly Way[]): Promise<Side[]> {
  const { rounds, warmupMs, ms } = options;
  const windows = ways.map(() => [] as Timed[]);
  const cpu: CpuSpent[] = ways.map(() => ({ ...NO_CPU }));
  const next = ways.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    const order = ways.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const w of order) {
      const way = ways[w] as Way;
      const op = (i: number) => way.op((next[w] as number) + i);
      const warm = await loadTimes(op, { ...options, ms: warmupMs });
      next[w] = (next[w] as number) + warm.times.length;
      const end = cpuWindow({ database: way.database ?? database, serverThread: way.thread });
      const measured = await loadTimes(op, { ...options, ms: ms / rounds });
      const spent = end();
      next[w] = (next[w] as number) + measured.times.length;
      windows[w]?.push(measured);
      cpu[w] = addCpu(cpu[w] as CpuSpent, spent);
    }
  }
  return ways.map((_, w) => ({ ...summariseWindows(windows[w] ?? []), cpu: cpu[w] as CpuSpent }));
}

/** A name for each direct statement's text. */
const directNames = new Map<string, string>();

/**
 * Runs a direct statement as the direct server does: a named prepared statement, parsed once
 * per connection, planned as PostgreSQL sees fit (as the API's recurring statements are).
 */
async function runDriver(pool: pg.Pool, statement: Statement): Promise<void> {
  let name = directNames.get(statement.text);
  if (name === undefined) {
    name = `direct_${directNames.size + 1}`;
    directNames.set(statement.text, name);
  }
  const result = await pool.query({ name, text: statement.text, values: statement.values });
  if (result.rowCount !== 1) throw new Error(`direct statement returned ${result.rowCount} rows`);
}

/** The API, the planned statement and the direct server must answer alike, or the baselines measure something else. */
async function checkSameAnswer(rig: Rig, shape: ReadShape, statements: readonly Statement[]): Promise<void> {
  for (const [i, variables] of shape.variables.slice(0, 3).entries()) {
    const statement = statements[i] as Statement;
    const reply = (await postJson(rig.app.endpoint, rig.app.token, shape.query, variables)) as { data?: Record<string, unknown>; errors?: unknown };
    const viaApi = Object.values(reply.data ?? {})[0];
    const viaSql: unknown = JSON.parse((await rig.pool.query<{ v: string }>(statement)).rows[0]?.v ?? 'null');
    const viaServer = (JSON.parse(await rig.direct.run(statement)) as { data: unknown }).data;
    if (reply.errors || viaApi === undefined || viaApi === null || !isDeepStrictEqual(viaApi, viaSql) || !isDeepStrictEqual(viaServer, viaSql)) {
      throw new Error(`${shape.label}: the API, its planned SQL and the direct server disagree for ${JSON.stringify(variables)}`);
    }
  }
}

/**
 * Brings both servers to the state a server that has run for a while is in: its code compiled
 * by V8's optimising tiers, its caches and prepared statements filled. A freshly started server
 * answers at half speed or less for its first seconds, which would count against whichever
 * shape is measured first.
 */
export async function warmUp(rig: Rig, shapes: readonly { shape: ReadShape; statements: readonly Statement[] }[]): Promise<void> {
  const api = shapes.flatMap(({ shape }) => requestBodies(shape));
  const direct = shapes.flatMap(({ statements }) => statements);
  const ms = rig.options.serverWarmupMs;
  await load((i) => postGraphql(rig.app.endpoint, rig.app.token, api[i % api.length] as string), { ...rig.options, ms });
  await load((i) => rig.direct.run(direct[i % direct.length] as Statement), { ...rig.options, ms });
}

export async function compareRead(rig: Rig, shape: ReadShape, statements: readonly Statement[]): Promise<Comparison> {
  await checkSameAnswer(rig, shape, statements);
  const bodies = requestBodies(shape);
  const statement = (i: number) => statements[i % statements.length] as Statement;
  const [api, direct, driver] = (await timedWays(rig.options, rig.db.name, [
    { thread: rig.server.thread, op: (i) => postGraphql(rig.app.endpoint, rig.app.token, bodies[i % bodies.length] as string) },
    { thread: rig.direct.thread, op: (i) => rig.direct.run(statement(i)) },
    { thread: undefined, op: (i) => runDriver(rig.pool, statement(i)) },
  ])) as [Side, Side, Side];
  return { label: shape.label, api, direct, driver };
}

export async function compareWrite(rig: Rig, shape: WriteShape): Promise<Comparison> {
  // Other operation numbers for each way, so no title is written twice.
  const [api, direct, driver] = (await timedWays(rig.options, rig.db.name, [
    { thread: rig.server.thread, op: (i) => postGraphql(rig.app.endpoint, rig.app.token, shape.body(i)) },
    { thread: rig.direct.thread, op: (i) => rig.direct.run(shape.direct(1_000_000 + i, 'server')) },
    { thread: undefined, op: (i) => runDriver(rig.pool, shape.direct(2_000_000 + i, 'driver')) },
  ])) as [Side, Side, Side];
  return { label: shape.label, api, direct, driver };
}
