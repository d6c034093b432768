// The data API benchmark on PostgreSQL: a real server over HTTP next to the same SQL served by
// a bare HTTP server on the same driver, and run through `pg` alone, shape by shape, with the
// CPU each part spent. The figures and how to read them are in docs/performance.md ("Data API").

import type pg from 'pg';
import { appContext, createBenchApp } from './benchApp.js';
import { startBenchServer } from './benchServer.js';
import type { BenchServer } from './benchServer.js';
import { closeConnections } from './client.js';
import { compareRead, compareWrite, warmUp } from './compare.js';
import type { Comparison, Rig, RunOptions } from './compare.js';
import { createBenchDatabase, directPool } from './database.js';
import { startDirectServer } from './directServer.js';
import type { DirectServer } from './directServer.js';
import { createPostShape, deletePostShape, planShape, readShapes, updatePostShape } from './dataShapes.js';
import type { Statement } from './dataShapes.js';
import { explainGenericSummary, explainSummary } from './explain.js';
import { loadFixtures, rowsToDelete } from './fixtures.js';
import { fmt, printCpu, printDisturbance, printThroughput } from './report.js';
import { logLevel, numberFromEnv } from './env.js';
import { seed, seedSizes } from './seed.js';

/** Issue 14's aims, API ÷ direct server: reads 0.9, a read by id 0.8, writes 0.8. */
const AIMS = { getPost: 0.8, firstPage: 0.9, filtered: 0.9, deepPage: 0.9, createPost: 0.8, updatePost: 0.8, deletePost: 0.8 } as const;

function printPageCheck(first: Comparison, deep: Comparison): void {
  console.log(
    `\nDeep page vs first page, p50: API ${fmt(deep.api.p50, 2)} vs ${fmt(first.api.p50, 2)} ms, ` +
      `SQL ${fmt(deep.direct.p50, 2)} vs ${fmt(first.direct.p50, 2)} ms`,
  );
}

async function printExplains(pool: pg.Pool, statements: Record<string, Statement>): Promise<void> {
  for (const [name, statement] of Object.entries(statements)) {
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the ${name} statement:`);
    for (const line of await explainSummary(pool, statement)) console.log(`  ${line}`);
    // The server keeps its statements prepared: a generic plan must not lose an index.
    console.log(`  under a forced generic plan:`);
    for (const line of await explainGenericSummary(pool, statement)) console.log(`    ${line}`);
  }
}

/**
 * Rows the delete shape needs by default: a third for each way, each deleting up to 30,000 a
 * second for as long as it runs (its warm-ups and its measured windows).
 */
export function deletesNeeded(options: RunOptions): number {
  const seconds = (options.rounds * options.warmupMs + options.ms) / 1000;
  return 3 * 30_000 * Math.ceil(seconds);
}

async function run(rig: Rig): Promise<void> {
  const context = await appContext(rig.db.url, rig.app.id);
  const fixtures = await loadFixtures(rig.pool, rig.app);
  const shapes = readShapes(fixtures);
  const planned = {
    getPost: planShape(context, shapes.getPost),
    firstPage: planShape(context, shapes.firstPage),
    filtered: planShape(context, shapes.filtered),
    deepPage: planShape(context, shapes.deepPage),
  };
  await warmUp(rig, [
    { shape: shapes.getPost, statements: planned.getPost },
    { shape: shapes.firstPage, statements: planned.firstPage },
    { shape: shapes.filtered, statements: planned.filtered },
    { shape: shapes.deepPage, statements: planned.deepPage },
  ]);
  const results = {
    getPost: await compareRead(rig, shapes.getPost, planned.getPost),
    firstPage: await compareRead(rig, shapes.firstPage, planned.firstPage),
    filtered: await compareRead(rig, shapes.filtered, planned.filtered),
    deepPage: await compareRead(rig, shapes.deepPage, planned.deepPage),
    // Last: their rows would otherwise move the deep page.
    createPost: await compareWrite(rig, createPostShape(rig.app.id, fixtures.userUuids)),
    updatePost: await compareWrite(rig, updatePostShape(rig.app.id, fixtures.postUuids)),
    deletePost: await compareWrite(rig, deletePostShape(rig.app.id, await rowsToDelete(rig.pool, rig.app.id, numberFromEnv('TESSERA_BENCH_DELETES', deletesNeeded(rig.options))))),
  };
  const rows = (Object.keys(results) as (keyof typeof results)[]).map((key) => ({ ...results[key], aim: AIMS[key] }));
  printThroughput(rows);
  console.log('');
  printCpu(rows);
  printDisturbance(rows);
  printPageCheck(results.firstPage, results.deepPage);
  await printExplains(rig.pool, {
    'first page': planned.firstPage[0] as Statement,
    'deep page': planned.deepPage[0] as Statement,
    filtered: planned.filtered[0] as Statement,
  });
}

/** The comparison's load, windows and warm-ups, from the TESSERA_BENCH_* settings (also the peers section's). */
export function runOptionsFromEnv(): RunOptions {
  return {
    concurrency: numberFromEnv('TESSERA_BENCH_CONCURRENCY', 16),
    ms: numberFromEnv('TESSERA_BENCH_SECONDS', 5) * 1000,
    warmupMs: 1000,
    rounds: Math.ceil(numberFromEnv('TESSERA_BENCH_ROUNDS', 2)),
    serverWarmupMs: numberFromEnv('TESSERA_BENCH_WARMUP_SECONDS', 10) * 1000,
  };
}

export async function dataApiSection(): Promise<void> {
  const options = runOptionsFromEnv();
  const sizes = seedSizes();
  const db = await createBenchDatabase();
  let server: BenchServer | undefined;
  let pool: pg.Pool | undefined;
  let direct: DirectServer | undefined;
  try {
    server = await startBenchServer(db.url, logLevel());
    const app = await createBenchApp(server);
    const seeding = performance.now();
    await seed(db.url, app.id, sizes);
    console.log(
      `Data API on PostgreSQL: ${fmt(sizes.posts)} posts, ${fmt(sizes.comments)} comments, ${fmt(sizes.users)} users ` +
        `(seeded in ${fmt((performance.now() - seeding) / 1000, 1)} s); ${options.concurrency} in flight, ` +
        `${options.ms / 1000} s measured per way and shape, in ${options.rounds} windows taken in turn with the other ways', each after 1 s of warm-up ` +
        `(both servers first warmed for ${options.serverWarmupMs / 1000} s each); latencies in ms\n`,
    );
    pool = directPool(db.url);
    direct = await startDirectServer(db.url);
    await run({ app, server, direct, pool, db, options });
  } finally {
    closeConnections();
    await direct?.close();
    await pool?.end();
    await server?.close();
    await db.drop();
  }
}
