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
import { load } from './measure.js';
import type { LoadOptions, Measured } from './measure.js';

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
  /** Untimed traffic before each run: JIT, connections and caches settle. */
  warmupMs: number;
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

/** `thread`: the server whose CPU time is read as the side's `server` (none for the driver). */
async function timed(rig: Rig, thread: string | undefined, op: (i: number) => Promise<unknown>): Promise<Side> {
  await load(op, { ...rig.options, ms: rig.options.warmupMs });
  const end = cpuWindow({ database: rig.db.name, serverThread: thread });
  const measured = await load(op, rig.options);
  return { ...measured, cpu: end() };
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
  const api = await timed(rig, rig.server.thread, (i) => postGraphql(rig.app.endpoint, rig.app.token, bodies[i % bodies.length] as string));
  const direct = await timed(rig, rig.direct.thread, (i) => rig.direct.run(statement(i)));
  const driver = await timed(rig, undefined, (i) => runDriver(rig.pool, statement(i)));
  return { label: shape.label, api, direct, driver };
}

export async function compareWrite(rig: Rig, shape: WriteShape): Promise<Comparison> {
  const api = await timed(rig, rig.server.thread, (i) => postGraphql(rig.app.endpoint, rig.app.token, shape.body(i)));
  // Other operation numbers, so no title is written twice.
  const direct = await timed(rig, rig.direct.thread, (i) => rig.direct.run(shape.direct(1_000_000 + i, 'server')));
  const driver = await timed(rig, undefined, (i) => runDriver(rig.pool, shape.direct(2_000_000 + i, 'driver')));
  return { label: shape.label, api, direct, driver };
}
