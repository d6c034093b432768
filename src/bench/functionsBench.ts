// EVENT function delivery on each store, through the real server in this process and a real
// HTTP receiver on this machine: (1) how fast a backlog of outbox rows drains (written while no
// instance delivered, then one instance started), and (2) commit → receipt latency at a steady
// write rate — the event's createdAt (the mutation's transaction time) to the moment the
// receiver has read the call.

import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdminService } from '../admin/index.js';
import { SecretBox, generateSecretKey } from '../secrets/index.js';
import { createServer, generatePlatformKey } from '../server/index.js';
import { ensureCatalog, openStore } from '../store/index.js';
import type { Store } from '../store/index.js';
import { post, postJson } from './client.js';
import { createBenchDatabase } from './database.js';
import { load, percentile, row } from './measure.js';
import type { Measured } from './measure.js';

const SCHEMA = 'type Note @model { text: String! }';
const BACKLOG = Number(process.env.TESSERA_BENCH_BACKLOG ?? 2000);
const SECONDS = Number(process.env.TESSERA_BENCH_SECONDS ?? 5);

interface Receiver {
  url: string;
  /** Receipt time (ms since the epoch) of each event, by the note's id; and the event's createdAt. */
  received: Map<string, { at: number; createdAt: number }>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, { at: number; createdAt: number }>();
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string; event: { after: { id: string } } };
      received.set(body.event.after.id, { at, createdAt: Date.parse(body.createdAt) });
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serve(store: Store, secretKey: string, key: string, deliver: boolean) {
  const functions = { secrets: new SecretBox(secretKey), allowPrivate: true };
  const app = createServer({ store, admin: createAdminService(store, { functions }), adminKey: key, logLevel: 'warn', ...(deliver ? { functions } : {}) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, base: `http://127.0.0.1:${port}` };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

async function storeRun(label: string, store: Store, rates: readonly number[]): Promise<void> {
  await ensureCatalog(store);
  const secretKey = generateSecretKey();
  const key = generatePlatformKey();
  const receiver = await startReceiver();
  try {
    // (1) A backlog written by an instance that delivers nothing, drained by one that does.
    const writer = await serve(store, secretKey, key, false);
    const admin = `${writer.base}/admin/graphql`;
    const created = (await postJson(admin, key, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'events', schema: SCHEMA } })) as { data: { createApp: { app: { id: string } } } };
    const appId = created.data.createApp.app.id;
    await postJson(admin, key, 'mutation($i: CreateFunctionInput!) { createFunction(input: $i) { secret } }', { i: { appId, name: 'hook', kind: 'EVENT', url: receiver.url, operations: ['createNote'] } });
    const endpoint = `${writer.base}/graphql/${appId}`;
    const write = (i: number) => postJson(endpoint, key, 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { id } } }', { t: `note ${i}` });
    for (let i = 0; i < BACKLOG; i += 8) await Promise.all(Array.from({ length: Math.min(8, BACKLOG - i) }, (_, j) => write(i + j)));
    await writer.app.close();
    const started = performance.now();
    const deliverer = await serve(store, secretKey, key, true);
    const drained = await waitFor(() => receiver.received.size >= BACKLOG, 120_000);
    const seconds = (performance.now() - started) / 1000;
    console.log(`${`${label}: drain ${BACKLOG} pending events`.padEnd(44)} ${(receiver.received.size / seconds).toFixed(0).padStart(10)} events/s${drained ? '' : '   (incomplete)'}`);

    // (2) Steady writes at each rate per second for SECONDS: commit → receipt latency.
    const steady = `${deliverer.base}/graphql/${appId}`;
    for (const rate of rates) await steadyRun(label, steady, key, receiver, rate);
    await deliverer.app.close();
  } finally {
    await receiver.close();
  }
}

async function steadyRun(label: string, steady: string, key: string, receiver: Receiver, rate: number): Promise<void> {
  receiver.received.clear();
  const writeSteady = (i: number) => postJson(steady, key, 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { id } } }', { t: `steady ${i}` });
  const total = rate * SECONDS;
  const begin = performance.now();
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = begin + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(writeSteady(i));
  }
  await Promise.all(writes);
  const complete = await waitFor(() => receiver.received.size >= total, 60_000);
  const latencies = [...receiver.received.values()].map((r) => r.at - r.createdAt).sort((a, b) => a - b);
  console.log(
    `${`${label}: ${rate} writes/s, commit → receipt`.padEnd(44)} p50 ${percentile(latencies, 50).toFixed(1).padStart(7)} ms   p99 ${percentile(latencies, 99).toFixed(1).padStart(7)} ms   (n=${latencies.length}${complete ? '' : ', incomplete'})`,
  );
}

/** An endpoint for BEFORE hooks that answers at once, leaving the input as it is. */
async function startPassingHook(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/before`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a BEFORE hook that answers at once adds to createX: the same create with and without one, 8 in flight. */
async function hookCost(label: string, store: Store): Promise<void> {
  const key = generatePlatformKey();
  const hookEndpoint = await startPassingHook();
  const server = await serve(store, generateSecretKey(), key, true);
  try {
    const admin = `${server.base}/admin/graphql`;
    const ids: string[] = [];
    for (const name of ['plain', 'hooked']) {
      const created = (await postJson(admin, key, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: `before-${name}`, schema: SCHEMA } })) as { data: { createApp: { app: { id: string } } } };
      ids.push(created.data.createApp.app.id);
    }
    await postJson(admin, key, 'mutation($i: CreateFunctionInput!) { createFunction(input: $i) { secret } }', { i: { appId: ids[1], name: 'check', kind: 'BEFORE', url: hookEndpoint.url, operations: ['createNote'] } });
    const body = JSON.stringify({ query: 'mutation { createNote(input: { text: "hello" }) { changedNote { id } } }' });
    const create = (appId: string) => async () => {
      const reply = await post(`${server.base}/graphql/${appId}`, key, body);
      if (reply.status !== 200 || reply.text.includes('"errors"')) throw new Error(`unexpected reply ${reply.status} ${reply.text.slice(0, 200)}`);
    };
    // Warmed up first, then measured in turns (plain, hooked, plain, hooked) so a drift of the
    // machine's load falls on both; each figure is the better of its two runs.
    await load(create(ids[0] as string), { concurrency: 8, ms: 1000 });
    await load(create(ids[1] as string), { concurrency: 8, ms: 1000 });
    const options = { concurrency: 8, ms: (SECONDS * 1000) / 2 };
    const runs: Measured[][] = [[], []];
    for (let turn = 0; turn < 4; turn++) runs[turn % 2]?.push(await load(create(ids[turn % 2] as string), options));
    const best = (list: Measured[] | undefined) => (list ?? []).reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a));
    const plain = best(runs[0]);
    const hooked = best(runs[1]);
    row(`${label}: createNote, no hook, 8 in flight`, plain);
    row(`${label}: createNote, one BEFORE hook, 8 in flight`, hooked);
    console.log(`${label}: with hook / without: ${(hooked.opsPerSec / plain.opsPerSec).toFixed(2)} (p50 +${(hooked.p50 - plain.p50).toFixed(2)} ms)`);
  } finally {
    await server.app.close();
    await hookEndpoint.close();
  }
}

export async function functionsSection(): Promise<void> {
  console.log(`EVENT functions: outbox delivery to a receiver on this machine; ${BACKLOG} events backlog, ${SECONDS} s of steady writes\n`);
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-functions-'));
  const embedded = await openStore({ dataDir: dir });
  try {
    await storeRun('embedded', embedded, [20, 100]);
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const db = await createBenchDatabase();
  const postgres = await openStore({ databaseUrl: db.url });
  try {
    await storeRun('postgres', postgres, [50, 200]);
  } finally {
    await postgres.close();
    await db.drop();
  }
}

/** `npm run bench -- hooks`: the cost of a BEFORE hook on createX, on each store. */
export async function hooksSection(): Promise<void> {
  console.log(`BEFORE functions: createX with and without a hook on this machine that answers at once; ${SECONDS} s per run\n`);
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-hooks-'));
  const embedded = await openStore({ dataDir: dir });
  try {
    await ensureCatalog(embedded);
    await hookCost('embedded', embedded);
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const db = await createBenchDatabase();
  const postgres = await openStore({ databaseUrl: db.url });
  try {
    await ensureCatalog(postgres);
    await hookCost('postgres', postgres);
  } finally {
    await postgres.close();
    await db.drop();
  }
}
