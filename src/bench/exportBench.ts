// `npm run bench -- export`: export and import throughput (rows/s) of a 1,000,000-row app on
// PostgreSQL, through the CLI and a server each in a process of its own, next to psql's
// `\copy … TO` and `\copy … FROM` of the same table (the ratio is the figure), with the CLI's
// and the server's peak resident memory (VmHWM / maxRSS).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { compile, ident, sql } from '../sql/index.js';
import { packageRoot } from '../build/index.js';

const ROWS = Number(process.env.TESSERA_BENCH_EXPORT_ROWS ?? 1_000_000);
const SCHEMA = `
type User @model { items: [Item] @relation(name: "ItemOwner") }
type Item @model { name: String! @index  n: Int  price: Float  tags: [String]  at: DateTime  note: Text  owner: User @relation(name: "ItemOwner") }`;
const KEY = 'tsk_bench_export_key_0123456789abcdefghijklmnop';

/** A preload that writes the process's peak RSS (KiB) to a file as it exits. */
const PRELOAD = `const fs = require('node:fs'); process.on('exit', () => { if (process.env.PEAK_RSS_FILE) fs.writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)); });
for (const s of ['SIGTERM', 'SIGINT']) process.once(s, () => process.exit(0));`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function mib(kib: number): string {
  return `${(kib / 1024).toFixed(0)} MiB`;
}

function rate(rows: number, ms: number): string {
  return `${Math.round((rows * 1000) / ms).toLocaleString('en-US')} rows/s`;
}

function timed(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return performance.now() - started;
}

export async function exportSection(): Promise<void> {
  console.log(`Export and import: a ${ROWS.toLocaleString('en-US')}-row app on PostgreSQL, next to psql's \\copy\n`);
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-export-'));
  const serverUrl = process.env.TESSERA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `tessera_bench_export_${process.pid}`;
  const root = new pg.Client({ connectionString: serverUrl });
  await root.connect();
  await root.query(compile(sql`CREATE DATABASE ${ident(dbName)}`).text);
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const preload = join(dir, 'peak.cjs');
  writeFileSync(preload, PRELOAD);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serverPeak = join(dir, 'server.rss');
  const env = { ...process.env, DATABASE_URL: databaseUrl, TESSERA_ADMIN_KEY: KEY, TESSERA_DATA_DIR: join(dir, 'data'), TESSERA_URL: base, TESSERA_LOG_LEVEL: 'warn' };
  const bin = join(packageRoot(), 'bin/tessera.js');
  const server = spawn(process.execPath, ['--require', preload, bin, 'serve', '--port', String(port)], { env: { ...env, PEAK_RSS_FILE: serverPeak }, stdio: 'ignore' });
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok) break;
      } catch {
        // Not listening yet.
      }
      if (i > 300) throw new Error('the bench server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const created = await fetch(`${base}/admin/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ query: 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', variables: { i: { name: 'exportbench', schema: SCHEMA } } }),
    });
    const appId = ((await created.json()) as { data: { createApp: { app: { id: string } } } }).data.createApp.app.id;
    await db.connect();
    const schema = `app_${appId}`;
    await db.query(compile(sql`INSERT INTO ${ident(schema, 'User')} (username, password) SELECT 'user' || g, 'x' FROM generate_series(1, 1000) g`).text);
    const seeded = performance.now();
    const seed = compile(sql`INSERT INTO ${ident(schema, 'Item')} (name, n, price, tags, at, note, "ownerId")
        SELECT 'item ' || g, g, g * 1.25, jsonb_build_array('t' || (g % 10), 'u'), now() - g * interval '1 second',
               CASE WHEN g % 10 = 0 THEN repeat('note ', 20) END, o.ids[1 + g % 1000]
          FROM generate_series(1, ${ROWS}::int) g, (SELECT array_agg(id) AS ids FROM ${ident(schema, 'User')}) o`);
    await db.query(seed.text, seed.values);
    await db.query(compile(sql`VACUUM ANALYZE ${ident(schema, 'Item')}`).text);
    console.log(`  seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    const total = ROWS + 1000 + 1;

    const psqlEnv = { ...process.env };
    const copyFile = join(dir, 'items.copy');
    const table = `"${schema}"."Item"`;
    const copyOut = timed('psql', [databaseUrl, '-qc', `\\copy ${table} TO '${copyFile}'`], psqlEnv);
    await db.query(compile(sql`CREATE TABLE ${ident(schema, 'ItemCopy')} (LIKE ${ident(schema, 'Item')} INCLUDING ALL)`).text);
    const copyIn = timed('psql', [databaseUrl, '-qc', `\\copy "${schema}"."ItemCopy" FROM '${copyFile}'`], psqlEnv);
    await db.query(compile(sql`DROP TABLE ${ident(schema, 'ItemCopy')}`).text);

    const archive = join(dir, 'app.tessera.gz');
    const cliPeak = join(dir, 'cli.rss');
    const exportMs = timed(process.execPath, ['--require', preload, bin, 'app', 'export', appId, '--out', archive], { ...env, PEAK_RSS_FILE: cliPeak });
    const exportRss = Number(readFileSync(cliPeak, 'utf8'));
    // The server alone: the download read and dropped, no check (what the CLI's check costs is the difference).
    const link = await fetch(`${base}/admin/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ query: 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url } }', variables: { i: { appId } } }),
    });
    const downloadStarted = performance.now();
    const download = await fetch(((await link.json()) as { data: { exportApp: { url: string } } }).data.exportApp.url);
    for await (const _chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      // Dropped.
    }
    const serverMs = performance.now() - downloadStarted;
    const importMs = timed(process.execPath, ['--require', preload, bin, 'app', 'import', archive, '--name', 'exportbenchcopy'], { ...env, PEAK_RSS_FILE: cliPeak });
    const importRss = Number(readFileSync(cliPeak, 'utf8'));

    console.log(`  archive: ${(statSync(archive).size / 1024 / 1024).toFixed(1)} MiB gzip; \\copy text of Item alone: ${(statSync(copyFile).size / 1024 / 1024).toFixed(1)} MiB`);
    console.log(`  export (CLI, checked as it downloads): ${(exportMs / 1000).toFixed(1)} s, ${rate(total, exportMs)}   \\copy TO: ${(copyOut / 1000).toFixed(1)} s, ${rate(ROWS, copyOut)}   ratio ${(exportMs / copyOut).toFixed(1)}×`);
    console.log(`  export (server alone, download dropped unchecked): ${(serverMs / 1000).toFixed(1)} s, ${rate(total, serverMs)}   ratio ${(serverMs / copyOut).toFixed(1)}×`);
    console.log(`  import (CLI → server, one transaction): ${(importMs / 1000).toFixed(1)} s, ${rate(total, importMs)}   \\copy FROM: ${(copyIn / 1000).toFixed(1)} s, ${rate(ROWS, copyIn)}   ratio ${(importMs / copyIn).toFixed(1)}×`);
    console.log(`  CLI peak RSS: export ${mib(exportRss)}, import ${mib(importRss)}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    try {
      console.log(`  server peak RSS (whole run: seed, export, import): ${mib(Number(readFileSync(serverPeak, 'utf8')))}`);
    } catch {
      console.log('  server peak RSS: not recorded');
    }
    await db.end().catch(() => undefined);
    await root.query(compile(sql`DROP DATABASE ${ident(dbName)} WITH (FORCE)`).text);
    await root.end();
    rmSync(dir, { recursive: true, force: true });
  }
}
