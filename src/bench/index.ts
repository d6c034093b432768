// `npm run bench`: prints throughput and latency figures for Tessera's hot paths. Each section
// is self-contained and bounded in time; figures go to docs/performance.md. Section names as
// arguments run only those (`npm run bench -- data`); no arguments run them all.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createAdminService } from '../admin/index.js';
import { parseSchema, planMigration } from '../model/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { ensureCatalog, openStore } from '../store/index.js';
import type { Store } from '../store/index.js';
import { appsSection } from './appsBench.js';
import { authSection } from './authBench.js';
import { dataApiSection } from './dataApi.js';
import { filesSection } from './filesBench.js';
import { functionsSection, hooksSection } from './functionsBench.js';
import { exportSection } from './exportBench.js';
import { measure, row } from './measure.js';
import { peersSection } from './peersBench.js';
import { realtimeSection } from './realtimeBench.js';
import { soakSection } from './soak.js';
import { startupSection } from './startupBench.js';

const BLOG = readFileSync(new URL('../../examples/blog/schema.graphql', import.meta.url), 'utf8');

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

async function foundationSection() {
  console.log('Foundation: schema handling and migrations\n');
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

const SECTIONS: Record<string, () => Promise<void>> = { foundation: foundationSection, data: dataApiSection, auth: authSection, realtime: realtimeSection, functions: functionsSection, hooks: hooksSection, files: filesSection, export: exportSection, soak: soakSection, apps: appsSection, startup: startupSection, peers: peersSection };

async function main() {
  const chosen = process.argv.slice(2);
  const unknown = chosen.filter((name) => !(name in SECTIONS));
  if (unknown.length > 0) throw new Error(`unknown benchmark section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  const names = chosen.length > 0 ? chosen : Object.keys(SECTIONS);
  for (const [i, name] of names.entries()) {
    if (i > 0) console.log('');
    await (SECTIONS[name] as () => Promise<void>)();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
