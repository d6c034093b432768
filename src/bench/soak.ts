// The soak: a bounded run of mixed reads and writes through a real server on PostgreSQL, to show
// that the server holds up under sustained load — no error at all, steady latency, and memory
// that levels off rather than climbs. Figures and how to read them: docs/performance.md ("Soak").

import http from 'node:http';
import type pg from 'pg';
import { createBenchApp } from './benchApp.js';
import type { BenchApp } from './benchApp.js';
import { startBenchServer } from './benchServer.js';
import type { BenchServer } from './benchServer.js';
import { closeConnections, post } from './client.js';
import { createBenchDatabase, directPool } from './database.js';
import { createPostShape, readShapes, requestBodies } from './dataShapes.js';
import { loadFixtures } from './fixtures.js';
import { percentile } from './measure.js';
import { fmt } from './report.js';
import { logLevel, numberFromEnv } from './env.js';
import { seed, seedSizes } from './seed.js';

const UPDATE_POST = `mutation UpdatePost($input: UpdatePostInput!) { updatePost(input: $input) { changedPost { id score } } }`;

/** One kind of request in the mix: its share of the requests and how to make the `i`-th body. */
interface Kind {
  label: string;
  weight: number;
  body(i: number): string;
  times: number[];
}

function mix(app: BenchApp, fixtures: Awaited<ReturnType<typeof loadFixtures>>): Kind[] {
  const shapes = readShapes(fixtures);
  const bodiesOf = (shape: Parameters<typeof requestBodies>[0]) => {
    const bodies = requestBodies(shape);
    return (i: number) => bodies[i % bodies.length] as string;
  };
  const create = createPostShape(app.id, fixtures.userUuids);
  const postIds = fixtures.postIds;
  return [
    { label: 'getPost by id', weight: 45, body: bodiesOf(shapes.getPost), times: [] },
    { label: 'allPosts first page', weight: 15, body: bodiesOf(shapes.firstPage), times: [] },
    { label: 'filtered + author + comments(3)', weight: 10, body: bodiesOf(shapes.filtered), times: [] },
    // Far beyond the data bench's operation numbers, so no title is written twice.
    { label: 'createPost', weight: 20, body: (i) => create.body(10_000_000 + i), times: [] },
    {
      label: 'updatePost score',
      weight: 10,
      body: (i) => JSON.stringify({ query: UPDATE_POST, variables: { input: { id: postIds[i % postIds.length], score: i % 1000 } } }),
      times: [],
    },
  ];
}

/** The kinds in proportion to their weights, spread out: request `i` is of kind `schedule[i % n]`. */
function scheduleOf(kinds: readonly Kind[]): Kind[] {
  const out: Kind[] = [];
  const total = kinds.reduce((n, k) => n + k.weight, 0);
  for (let slot = 0; slot < total; slot++) {
    // Largest remainder: at each slot, the kind furthest behind its share.
    let best = kinds[0] as Kind;
    let lag = -Infinity;
    for (const kind of kinds) {
      const due = ((slot + 1) * kind.weight) / total - out.filter((k) => k === kind).length;
      if (due > lag) {
        lag = due;
        best = kind;
      }
    }
    out.push(best);
  }
  return out;
}

interface MemorySample {
  atSeconds: number;
  heapUsed: number;
  rss: number;
}

/** The server's heap (its own isolate, from prom-client's default metrics) and the process's RSS. */
async function sampleMemory(server: BenchServer, atSeconds: number): Promise<MemorySample> {
  const reply = await new Promise<string>((resolve, reject) => {
    http
      .get(`${server.base}/metrics`, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(reply)?.[1] ?? Number.NaN);
  return { atSeconds, heapUsed: metric('nodejs_heap_size_used_bytes'), rss: metric('process_resident_memory_bytes') };
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;

interface Outcome {
  seconds: number;
  done: number;
  errors: number;
  firstErrors: string[];
  all: number[];
  memory: MemorySample[];
}

async function run(server: BenchServer, app: BenchApp, kinds: Kind[], options: { seconds: number; concurrency: number; warmupSeconds: number }): Promise<Outcome> {
  const schedule = scheduleOf(kinds);
  const outcome: Outcome = { seconds: 0, done: 0, errors: 0, firstErrors: [], all: [], memory: [] };
  let next = 0;
  let measuring = false;
  const one = async (): Promise<void> => {
    const i = next++;
    const kind = schedule[i % schedule.length] as Kind;
    const started = performance.now();
    let failure: string | undefined;
    try {
      const reply = await post(app.endpoint, app.token, kind.body(i));
      if (reply.status !== 200 || reply.text.startsWith('{"errors"') || reply.text.includes(',"errors":[')) failure = `${kind.label}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
    } catch (err) {
      failure = `${kind.label}: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (!measuring) return;
    const ms = performance.now() - started;
    outcome.done += 1;
    kind.times.push(ms);
    outcome.all.push(ms);
    if (failure !== undefined) {
      outcome.errors += 1;
      if (outcome.firstErrors.length < 5) outcome.firstErrors.push(failure);
    }
  };
  const loop = async (until: () => boolean) => {
    while (!until()) await one();
  };

  // Warm-up: JIT, connections and caches settle; not counted.
  const warmEnd = performance.now() + options.warmupSeconds * 1000;
  await Promise.all(Array.from({ length: options.concurrency }, () => loop(() => performance.now() >= warmEnd)));

  measuring = true;
  const start = performance.now();
  const end = start + options.seconds * 1000;
  const at = () => (performance.now() - start) / 1000;
  outcome.memory.push(await sampleMemory(server, 0));
  const sampler = setInterval(() => {
    void sampleMemory(server, at()).then((s) => outcome.memory.push(s), () => undefined);
  }, Math.max(500, (options.seconds * 1000) / 30));
  try {
    await Promise.all(Array.from({ length: options.concurrency }, () => loop(() => performance.now() >= end)));
  } finally {
    clearInterval(sampler);
  }
  outcome.seconds = at();
  measuring = false;
  outcome.memory.push(await sampleMemory(server, outcome.seconds));
  return outcome;
}

function report(kinds: readonly Kind[], outcome: Outcome, concurrency: number): void {
  const line = (label: string, times: number[], seconds: number) => {
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `${label.padEnd(34)} ${fmt(sorted.length / seconds).padStart(8)} ops/s   p50 ${fmt(percentile(sorted, 50), 2).padStart(7)} ms` +
        `   p99 ${fmt(percentile(sorted, 99), 2).padStart(7)} ms   (n=${fmt(sorted.length)})`,
    );
  };
  for (const kind of kinds) line(kind.label, kind.times, outcome.seconds);
  line('all', outcome.all, outcome.seconds);
  console.log(`\nerrors: ${outcome.errors} of ${fmt(outcome.done)} requests (${concurrency} in flight)`);
  for (const e of outcome.firstErrors) console.log(`  ${e}`);
  const samples = [...outcome.memory].sort((a, b) => a.atSeconds - b.atSeconds);
  const middle = samples[Math.floor(samples.length / 2)] as MemorySample;
  const first = samples[0] as MemorySample;
  const last = samples[samples.length - 1] as MemorySample;
  // Without a forced GC the heap swings with the garbage of the moment; its low-water mark in
  // each third of the run follows what is live, and a leak would make it climb.
  const third = (k: number) => samples.filter((s) => s.atSeconds >= (k * outcome.seconds) / 3 && s.atSeconds <= ((k + 1) * outcome.seconds) / 3);
  const low = (group: MemorySample[]) => mib(Math.min(...group.map((s) => s.heapUsed)));
  console.log(
    `server heap used: start ${mib(first.heapUsed)}, middle (${fmt(middle.atSeconds)} s) ${mib(middle.heapUsed)}, end ${mib(last.heapUsed)}; ` +
      `lowest in each third of the run ${[0, 1, 2].map((k) => low(third(k))).join(', ')} (${samples.length} samples)`,
  );
  console.log(`process RSS (server and load generator share it): start ${mib(first.rss)}, middle ${mib(middle.rss)}, end ${mib(last.rss)}`);
}

export async function soakSection(): Promise<void> {
  const seconds = numberFromEnv('TESSERA_SOAK_SECONDS', 60);
  const concurrency = numberFromEnv('TESSERA_BENCH_CONCURRENCY', 16);
  const sizes = seedSizes();
  const db = await createBenchDatabase();
  let server: BenchServer | undefined;
  let pool: pg.Pool | undefined;
  try {
    server = await startBenchServer(db.url, logLevel());
    const app = await createBenchApp(server);
    await seed(db.url, app.id, sizes);
    pool = directPool(db.url, 2);
    const kinds = mix(app, await loadFixtures(pool, app));
    console.log(
      `Soak on PostgreSQL: ${seconds} s of mixed reads and writes (${kinds.map((k) => `${k.weight} % ${k.label}`).join(', ')}), ` +
        `${concurrency} in flight, after 5 s of warm-up; ${fmt(sizes.posts)} posts to start with\n`,
    );
    const outcome = await run(server, app, kinds, { seconds, concurrency, warmupSeconds: 5 });
    report(kinds, outcome, concurrency);
    // A soak with errors has failed, whatever its throughput.
    if (outcome.errors > 0) process.exitCode = 1;
  } finally {
    closeConnections();
    await pool?.end();
    await server?.close();
    await db.drop();
  }
}
