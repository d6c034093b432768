// `npm run bench`: prints throughput and latency figures for Tessera's hot paths. Each section
// is self-contained and bounded in time; figures go to docs/performance.md.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createAdminService } from '../admin/index.js';
import { parseSchema, planMigration } from '../model/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { ensureCatalog, openStore } from '../store/index.js';
import type { Store } from '../store/index.js';

const BLOG = readFileSync(new URL('../../examples/blog/schema.graphql', import.meta.url), 'utf8');

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

/** Runs `fn` repeatedly for about `ms`, returning ops/s and latency percentiles (ms). */
async function measure(fn: () => unknown, { ms = 2000, max = 100_000 } = {}) {
  const times: number[] = [];
  const start = performance.now();
  while (performance.now() - start < ms && times.length < max) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  const total = performance.now() - start;
  times.sort((a, b) => a - b);
  return { n: times.length, opsPerSec: (times.length / total) * 1000, p50: percentile(times, 50), p95: percentile(times, 95) };
}

function row(name: string, r: Awaited<ReturnType<typeof measure>>) {
  console.log(
    `${name.padEnd(44)} ${r.opsPerSec.toFixed(1).padStart(10)} ops/s   p50 ${r.p50.toFixed(2).padStart(8)} ms   p95 ${r.p95.toFixed(2).padStart(8)} ms   (n=${r.n})`,
  );
}

async function storeSection(label: string, store: Store) {
  await ensureCatalog(store);
  const admin = createAdminService(store);
  let i = 0;
  row(`${label}: createApp (blog schema)`, await measure(() => admin.createApp({ name: `bench${i++}`, schema: BLOG }), { ms: 5000, max: 50 }));
  const app = await admin.createApp({ name: 'benchmigrate', schema: BLOG });
  let v = 0;
  row(
    `${label}: migrateSchema (add one field)`,
    await measure(() => admin.migrateSchema({ appId: app.id, schema: `${BLOG}\ntype Extra${v++} @model { note: String }` , allowDestructive: true }), { ms: 5000, max: 50 }),
  );
  row(`${label}: migrateSchema (no change)`, await measure(() => admin.migrateSchema({ appId: app.id, schema: BLOG + `\ntype Extra${v - 1} @model { note: String }` }), { ms: 3000, max: 200 }));
}

async function main() {
  console.log('Tessera benchmarks (foundation)\n');
  row('parseSchema (blog)', await measure(() => parseSchema(BLOG)));
  const model = parseSchema(BLOG);
  row('planMigration (new app, blog)', await measure(() => planMigration(null, model)));
  row('planMigration (blog → blog)', await measure(() => planMigration(model, model)));

  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  const embedded = await openStore({ dataDir: dir });
  try {
    await storeSection('embedded', embedded);
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const serverUrl = process.env.TESSERA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `tessera_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(compile(sql`CREATE DATABASE ${ident(dbName)}`).text);
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const postgres = await openStore({ databaseUrl: url.toString() });
  try {
    await storeSection('postgres', postgres);
  } finally {
    await postgres.close();
    await admin.query(compile(sql`DROP DATABASE ${ident(dbName)}`).text);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
