// The many-apps benchmark: N apps of a five-type schema created one after another through the
// management API, then read in a mix spread over all of them, on PostgreSQL and on the embedded
// store. It prints how createApp's time grows with the catalog, cold and warm latency, the
// server's memory with a 64 MiB app cache, and PostgreSQL's own memory. Figures and how to read
// them: docs/performance.md ("Many apps") and docs/scaling.md.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generatePlatformKey } from '../server/index.js';
import { appSchemaName } from '../store/index.js';
import { startBenchServer } from './benchServer.js';
import type { BenchServer, BenchStore } from './benchServer.js';
import { closeConnections, post, postJson } from './client.js';
import { createBenchDatabase } from './database.js';
import type { BenchDatabase } from './database.js';
import { logLevel, numberFromEnv } from './env.js';
import { percentile } from './measure.js';
import { fmt } from './report.js';

/** Five model types, seven relations (one many-to-many), as a small SaaS product's tenants have. */
const SCHEMA = `
type User @model {
  displayName: String
  posts: [Post] @relation(name: "PostAuthor")
  comments: [Comment] @relation(name: "CommentAuthor")
}
type Post @model {
  title: String! @index
  score: Int @index
  published: Boolean
  author: User @relation(name: "PostAuthor")
  comments: [Comment] @relation(name: "PostComments")
  category: Category @relation(name: "PostCategory")
  tags: [Tag] @relation(name: "PostTags")
}
type Comment @model {
  text: String!
  post: Post @relation(name: "PostComments")
  author: User @relation(name: "CommentAuthor")
}
type Category @model {
  name: String! @unique
  posts: [Post] @relation(name: "PostCategory")
}
type Tag @model {
  label: String! @unique
  posts: [Post] @relation(name: "PostTags")
}
`;

const SEED = `mutation Seed {
  first: createPost(input: { title: "first", score: 1, published: true }) { changedPost { id } }
  second: createPost(input: { title: "second", score: 2 }) { changedPost { id } }
}`;

/** The read mix, in equal parts: a page with to-one relations, one post with its comments, a filtered page with a many-to-many. */
const PAGE = `query Page { viewer { allPosts(first: 10) { edges { node { id title score author { displayName } category { name } } } } } }`;
const ONE = `query One($id: ID!) { getPost(id: $id) { id title score comments(first: 3) { edges { node { text } } } } }`;
const TAGGED = `query Tagged { viewer { allPosts(first: 5, where: { score: { gte: 1 } }, orderBy: { field: score, direction: DESC }) { edges { node { title tags(first: 3) { edges { node { label } } } } } } } }`;

interface Settings {
  apps: number;
  embeddedApps: number;
  concurrency: number;
  seconds: number;
  /** The bounded run's TESSERA_APP_CACHE_MB. */
  cacheMb: number;
  /** The warm run's: large enough for every app (default: the server's default, 256). */
  warmCacheMb: number;
  /** Distinct schemas among the apps (1: every app has the same, as a SaaS product's tenants). */
  schemas: number;
}

interface BenchApp {
  id: string;
  /** Global ids of the app's two posts. */
  posts: string[];
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;

/** A small deterministic generator, so that runs pick the same apps in the same order. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** App `i`'s schema: the same for all, or one of `schemas` variants (an extra field each). */
function schemaOf(i: number, schemas: number): string {
  if (schemas <= 1) return SCHEMA;
  return `${SCHEMA}\nextend type Tag { variant${i % schemas}: Int }`;
}

async function manage<T>(server: BenchServer, query: string, variables: Record<string, unknown>): Promise<T> {
  const reply = (await postJson(`${server.base}/admin/graphql`, server.key, query, variables)) as { data?: T; errors?: unknown };
  if (reply.errors || !reply.data) throw new Error(`management API: ${JSON.stringify(reply.errors)}`);
  return reply.data;
}

/** Runs `op(i)` for i in [0, n) with `concurrency` in flight; returns each call's milliseconds. */
async function spread(n: number, concurrency: number, op: (i: number) => Promise<void>): Promise<number[]> {
  const times = new Array<number>(n);
  let next = 0;
  const loop = async () => {
    for (let i = next++; i < n; i = next++) {
      const started = performance.now();
      await op(i);
      times[i] = performance.now() - started;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, loop));
  return times;
}

/** One read of the mix on `app`; an error fails the benchmark. */
async function read(server: BenchServer, app: BenchApp, kind: number): Promise<void> {
  const body =
    kind === 0 ? JSON.stringify({ query: PAGE }) : kind === 1 ? JSON.stringify({ query: ONE, variables: { id: app.posts[0] } }) : JSON.stringify({ query: TAGGED });
  const reply = await post(`${server.base}/graphql/${app.id}`, server.key, body);
  if (reply.status !== 200 || reply.text.includes('"errors"')) throw new Error(`read of app ${app.id}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
}

/** Reads for `seconds` with `concurrency` in flight, each on the app `pick` gives. */
async function readLoad(server: BenchServer, settings: Settings, pick: () => BenchApp): Promise<{ opsPerSec: number; times: number[] }> {
  const times: number[] = [];
  const start = performance.now();
  const until = start + settings.seconds * 1000;
  let n = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const app = pick();
      const started = performance.now();
      await read(server, app, n++ % 3);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: settings.concurrency }, loop));
  times.sort((a, b) => a - b);
  return { opsPerSec: (times.length / (performance.now() - start)) * 1000, times };
}

/** The server's unlabelled metrics (its app cache's among them). */
async function metrics(server: BenchServer): Promise<Map<string, number>> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`${server.base}/metrics`, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  const out = new Map<string, number>();
  for (const match of text.matchAll(/^(tessera_app_cache_\w+|process_resident_memory_bytes) (\S+)$/gm)) out.set(match[1] as string, Number(match[2]));
  return out;
}

function latencyLine(label: string, sorted: readonly number[], extra = ''): void {
  console.log(`  ${label.padEnd(38)} p50 ${fmt(percentile(sorted, 50), 2).padStart(7)} ms   p99 ${fmt(percentile(sorted, 99), 2).padStart(7)} ms   (n=${fmt(sorted.length)})${extra}`);
}

async function createApps(server: BenchServer, settings: Settings, n: number): Promise<BenchApp[]> {
  const created: string[] = [];
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const reply = await manage<{ createApp: { app: { id: string } } }>(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', {
      i: { name: `bench${i}`, schema: schemaOf(i, settings.schemas) },
    });
    times.push(performance.now() - started);
    created.push(reply.createApp.app.id);
  }
  const chunk = n >= 2000 ? 1000 : Math.max(1, Math.ceil(n / 5));
  const means: number[] = [];
  for (let from = 0; from < n; from += chunk) {
    const part = times.slice(from, from + chunk);
    means.push(part.reduce((a, b) => a + b, 0) / part.length);
  }
  const first = means[0] ?? Number.NaN;
  const last = means[means.length - 1] ?? Number.NaN;
  console.log(`createApp, mean ms per app by ${fmt(chunk)} apps: ${means.map((m) => fmt(m, 1)).join(' ')}`);
  console.log(`  first ${fmt(chunk)}: ${fmt(first, 1)} ms, last ${fmt(chunk)}: ${fmt(last, 1)} ms (×${fmt(last / first, 2)}); p99 over all ${fmt(percentile([...times].sort((a, b) => a - b), 99), 1)} ms`);

  const apps: BenchApp[] = created.map((id) => ({ id, posts: [] }));
  await spread(apps.length, settings.concurrency, async (i) => {
    const app = apps[i] as BenchApp;
    const reply = (await postJson(`${server.base}/graphql/${app.id}`, server.key, SEED, {})) as { data?: Record<string, { changedPost: { id: string } }> };
    app.posts = Object.values(reply.data ?? {}).map((r) => r.changedPost.id);
    if (app.posts.length !== 2) throw new Error(`seeding app ${app.id}: ${JSON.stringify(reply)}`);
  });
  return apps;
}

/** One server lifetime on the apps: a cold pass over all of them, reads spread over all, reads on one. */
async function servePhase(store: BenchStore, key: string, apps: BenchApp[], settings: Settings, cacheMb: number): Promise<{ server: BenchServer; ratio: number }> {
  const server = await startBenchServer(store, logLevel(), { process: true, appCacheMb: cacheMb, key });
  const atStart = await server.memory();
  console.log(`\nTESSERA_APP_CACHE_MB=${cacheMb} (a fresh server: RSS ${mib(atStart.rss)}, heap used ${mib(atStart.heapUsed)} before any request)`);
  const order = apps.map((_, i) => i);
  const shuffle = random(1);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const cold = await spread(order.length, settings.concurrency, (i) => read(server, apps[order[i] as number] as BenchApp, i % 3));
  latencyLine('first request of each app (cold)', [...cold].sort((a, b) => a - b));

  const before = await metrics(server);
  const pickAny = random(2);
  const all = await readLoad(server, settings, () => apps[Math.floor(pickAny() * apps.length)] as BenchApp);
  const after = await metrics(server);
  const loads = (after.get('tessera_app_cache_loads_total') ?? 0) - (before.get('tessera_app_cache_loads_total') ?? 0);
  // Loads: an app not cached (never loaded, or let go), or one read again past its age while it answers.
  latencyLine('reads spread over all apps', all.times, `   ${fmt(all.opsPerSec)} ops/s, ${fmt(loads)} app loads (${fmt((loads / all.times.length) * 100, 1)} % of the reads)`);
  const one = apps[0] as BenchApp;
  const single = await readLoad(server, settings, () => one);
  latencyLine('reads on one app', single.times, `   ${fmt(single.opsPerSec)} ops/s`);
  const ratio = all.opsPerSec / single.opsPerSec;
  console.log(`  throughput over all apps / on one app: ${fmt(ratio, 2)}`);

  const memory = await server.memory();
  const cache = await metrics(server);
  console.log(
    `  server after the reads: RSS ${mib(memory.rss)}, heap used ${mib(memory.heapUsed)} (after a full GC); app cache ${fmt(cache.get('tessera_app_cache_apps') ?? 0)} apps, ` +
      `${fmt(cache.get('tessera_app_cache_schemas') ?? 0)} schema(s), ${mib(cache.get('tessera_app_cache_bytes') ?? 0)} estimated, ${fmt(cache.get('tessera_app_cache_evictions_total') ?? 0)} evictions`,
  );
  const cached = cache.get('tessera_app_cache_apps') ?? 0;
  if (cached > 0) {
    // What the estimate is calibrated against: the heap the loaded apps added, per app.
    console.log(`  heap grown per cached app: ${fmt((memory.heapUsed - atStart.heapUsed) / cached / 1024, 1)} KiB measured, ${fmt((cache.get('tessera_app_cache_bytes') ?? 0) / cached / 1024, 1)} KiB estimated`);
  }
  return { server, ratio };
}

interface Backend {
  pid: number;
  /** Private memory (RssAnon): the backend's own, shared buffers left out. */
  privateBytes: number;
}

/** /proc/<pid>/status's RssAnon of the server's connections to the database (Linux, same machine). */
async function backendMemory(url: string): Promise<Backend[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
    const out: Backend[] = [];
    for (const { pid } of rows) {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = Number(/^RssAnon:\s+(\d+) kB/m.exec(status)?.[1]);
        if (Number.isFinite(kb)) out.push({ pid, privateBytes: kb * 1024 });
      } catch {
        // PostgreSQL on another machine, or the backend just ended: nothing to read.
      }
    }
    return out;
  } finally {
    await client.end();
  }
}

/** What one fresh backend's caches hold after reading the tables of `n` apps (pg_backend_memory_contexts). */
async function relcachePerApp(url: string, apps: readonly BenchApp[], n: number): Promise<{ before: number; after: number; n: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const cacheBytes = async () =>
    Number((await client.query<{ bytes: string }>(`SELECT sum(total_bytes) AS bytes FROM pg_backend_memory_contexts WHERE name = 'CacheMemoryContext' OR parent = 'CacheMemoryContext'`)).rows[0]?.bytes ?? 0);
  try {
    const before = await cacheBytes();
    const sample = apps.slice(0, n);
    for (const app of sample) {
      const schema = client.escapeIdentifier(appSchemaName(app.id));
      for (const table of ['Post', 'User', 'Comment', 'Category', 'Tag']) await client.query(`SELECT * FROM ${schema}.${client.escapeIdentifier(table)} LIMIT 1`);
    }
    return { before, after: await cacheBytes(), n: sample.length };
  } finally {
    await client.end();
  }
}

async function postgresFigures(db: BenchDatabase, apps: readonly BenchApp[]): Promise<void> {
  const backends = await backendMemory(db.url);
  if (backends.length > 0) {
    const total = backends.reduce((n, b) => n + b.privateBytes, 0);
    const most = Math.max(...backends.map((b) => b.privateBytes));
    console.log(`  PostgreSQL: the server's ${backends.length} pooled backends hold ${mib(total)} of private memory (RssAnon), ${mib(most)} the most`);
  }
  const relcache = await relcachePerApp(db.url, apps, Math.min(apps.length, 1000));
  console.log(
    `  PostgreSQL: a fresh backend's catalog caches grow from ${mib(relcache.before)} to ${mib(relcache.after)} reading the tables of ${fmt(relcache.n)} apps ` +
      `(${fmt((relcache.after - relcache.before) / relcache.n / 1024, 1)} KiB per app, kept for the connection's life)`,
  );
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ relations: string; size: string }>(`SELECT (SELECT count(*) FROM pg_class) AS relations, pg_database_size(current_database()) AS size`);
    const row = rows[0] as { relations: string; size: string };
    console.log(`  PostgreSQL catalog: ${fmt(Number(row.relations))} relations (pg_class), database ${mib(Number(row.size))} on disk`);
  } finally {
    await client.end();
  }
}

async function runStore(label: string, store: BenchStore, n: number, settings: Settings, db?: BenchDatabase): Promise<void> {
  const variants = settings.schemas <= 1 ? 'every app the same schema' : `${fmt(Math.min(settings.schemas, n))} distinct schemas`;
  console.log(`\nMany apps on ${label}: ${fmt(n)} apps of a five-type schema (seven relations; ${variants}), ${settings.concurrency} requests in flight, ${settings.seconds} s per load\n`);
  const key = generatePlatformKey();
  const creator = await startBenchServer(store, logLevel(), { process: true, key });
  let apps: BenchApp[];
  try {
    apps = await createApps(creator, settings, n);
  } finally {
    await creator.close();
  }
  const bounded = await servePhase(store, key, apps, settings, settings.cacheMb);
  await bounded.server.close();
  const warm = await servePhase(store, key, apps, settings, settings.warmCacheMb);
  try {
    if (db) await postgresFigures(db, apps);
  } finally {
    await warm.server.close();
  }
}

export async function appsSection(): Promise<void> {
  const settings: Settings = {
    apps: numberFromEnv('TESSERA_BENCH_APPS', 10_000),
    // One PGlite connection in the server's process: createApp's DDL and every read queue on it,
    // and its catalog caches grow in the server's own memory. The embedded store serves
    // development and small deployments; a thousand apps show how it grows.
    embeddedApps: numberFromEnv('TESSERA_BENCH_APPS_EMBEDDED', 1_000),
    concurrency: numberFromEnv('TESSERA_BENCH_CONCURRENCY', 16),
    seconds: numberFromEnv('TESSERA_BENCH_SECONDS', 10),
    cacheMb: numberFromEnv('TESSERA_BENCH_APPS_CACHE_MB', 64),
    warmCacheMb: numberFromEnv('TESSERA_BENCH_APPS_WARM_MB', 256),
    schemas: numberFromEnv('TESSERA_BENCH_APPS_SCHEMAS', 1),
  };
  const stores = (process.env.TESSERA_BENCH_APPS_STORES ?? 'postgres,embedded').split(',').map((s) => s.trim());
  console.log('Many apps: createApp as the catalog grows, reads spread over every app, memory');
  try {
    if (stores.includes('postgres')) {
      const db = await createBenchDatabase(process.env.TESSERA_BENCH_DATABASE_URL ?? process.env.DATABASE_URL);
      try {
        await runStore('PostgreSQL', db.url, settings.apps, settings, db);
      } finally {
        await db.drop();
      }
    }
    if (stores.includes('embedded')) {
      const dir = mkdtempSync(join(tmpdir(), 'tessera-apps-'));
      try {
        await runStore('the embedded store', { dataDir: dir }, settings.embeddedApps, settings);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    closeConnections();
  }
}
