// Runs one shape two ways under the same load — through the server over HTTP, and its SQL
// straight through a `pg` pool — and keeps the figures and the CPU each part spent.

import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import type { BenchApp } from './benchApp.js';
import type { BenchServer } from './benchServer.js';
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
  /** The direct-SQL pool, sized like the server's store pool. */
  pool: pg.Pool;
  db: BenchDatabase;
  options: RunOptions;
}

export interface RunOptions extends LoadOptions {
  /** Untimed traffic before each run: JIT, connections and caches settle. */
  warmupMs: number;
}

export interface Side extends Measured {
  cpu: CpuSpent;
}

export interface Comparison {
  label: string;
  api: Side;
  direct: Side;
}

async function timed(rig: Rig, op: (i: number) => Promise<unknown>): Promise<Side> {
  await load(op, { ...rig.options, ms: rig.options.warmupMs });
  const end = cpuWindow({ database: rig.db.name, serverThread: rig.server.thread });
  const measured = await load(op, rig.options);
  return { ...measured, cpu: end() };
}

/** A name for each direct statement's text. */
const directNames = new Map<string, string>();

/**
 * Runs a direct statement as a hand-written server would: a named prepared statement, parsed
 * once per connection, planned as PostgreSQL sees fit (as the API's recurring statements are).
 */
async function runDirect(pool: pg.Pool, statement: Statement): Promise<void> {
  let name = directNames.get(statement.text);
  if (name === undefined) {
    name = `direct_${directNames.size + 1}`;
    directNames.set(statement.text, name);
  }
  const result = await pool.query({ name, text: statement.text, values: statement.values });
  if (result.rowCount !== 1) throw new Error(`direct statement returned ${result.rowCount} rows`);
}

/** The API and the planned statement must answer alike, or the baseline measures something else. */
async function checkSameAnswer(rig: Rig, shape: ReadShape, statements: readonly Statement[]): Promise<void> {
  for (const [i, variables] of shape.variables.slice(0, 3).entries()) {
    const reply = (await postJson(rig.app.endpoint, rig.app.token, shape.query, variables)) as { data?: Record<string, unknown>; errors?: unknown };
    const direct = await rig.pool.query<{ v: string }>(statements[i] as Statement);
    const viaApi = Object.values(reply.data ?? {})[0];
    const viaSql: unknown = JSON.parse(direct.rows[0]?.v ?? 'null');
    if (reply.errors || viaApi === undefined || viaApi === null || !isDeepStrictEqual(viaApi, viaSql)) {
      throw new Error(`${shape.label}: the API and its planned SQL disagree for ${JSON.stringify(variables)}`);
    }
  }
}

export async function compareRead(rig: Rig, shape: ReadShape, statements: readonly Statement[]): Promise<Comparison> {
  await checkSameAnswer(rig, shape, statements);
  const bodies = requestBodies(shape);
  const api = await timed(rig, (i) => postGraphql(rig.app.endpoint, rig.app.token, bodies[i % bodies.length] as string));
  const direct = await timed(rig, (i) => runDirect(rig.pool, statements[i % statements.length] as Statement));
  return { label: shape.label, api, direct };
}

export async function compareWrite(rig: Rig, shape: WriteShape): Promise<Comparison> {
  const api = await timed(rig, (i) => postGraphql(rig.app.endpoint, rig.app.token, shape.body(i)));
  // Other operation numbers, so no title is written twice.
  const direct = await timed(rig, (i) => runDirect(rig.pool, shape.direct(1_000_000 + i)));
  return { label: shape.label, api, direct };
}
