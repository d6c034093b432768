// Realtime subscriptions on PostgreSQL: many WebSocket subscribers on one instance, the delay
// from a mutation's commit to each subscriber's receipt, and the server's memory per
// subscriber, for one caller shared by all subscribers and for a distinct user per subscriber.
// The figures and how to read them are in docs/performance.md ("Realtime subscriptions").

import { startBenchServer } from './benchServer.js';
import type { BenchServer } from './benchServer.js';
import { closeConnections, post, postJson } from './client.js';
import { cpuWindow } from './cpu.js';
import type { CpuSpent } from './cpu.js';
import { createBenchDatabase } from './database.js';
import type { BenchDatabase } from './database.js';
import { percentile } from './measure.js';
import { fmt } from './report.js';
import { Subscribers, now, waitForGauge } from './subscribers.js';
import type { ServerMemory } from './serverWorker.js';

const SCHEMA = `
type Tick @model @permission(scope: AUTHENTICATED, read: true) {
  seq: Int!
  sentAt: Float!
}
`;

const SUBSCRIPTION = 'subscription { subscribeToTick(mutations: [createTick]) { mutation value { id seq sentAt createdAt } } }';
const CREATE_TICK = 'mutation($i: CreateTickInput!) { createTick(input: $i) { changedTick { id } } }';
const PASSWORD = 'correct horse battery staple';

function intFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${text}"`);
  return n;
}

/** A run of mutations: how many, one every how many milliseconds. */
interface Pace {
  events: number;
  intervalMs: number;
}

interface Settings {
  subscribers: number;
  /** Distinct users of scenario (b); each opens subscribers / users connections. */
  users: number;
  /** Scenario (a): one evaluation per event, so events can come fast. */
  shared: Pace;
  /** Scenario (b): one statement per event evaluates it for every user (the issue's goal: 50 events/s for 30 s). */
  distinct: Pace;
}

interface Rig {
  server: BenchServer;
  db: BenchDatabase;
  appId: string;
  endpoint: string;
  adminToken: string;
  settings: Settings;
}

interface Summary {
  p50: number;
  p99: number;
  max: number;
}

function summary(samples: number[]): Summary {
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples[samples.length - 1] ?? Number.NaN };
}

interface Outcome {
  label: string;
  pace: Pace;
  opened: { seconds: number };
  memory: { before: ServerMemory; after: ServerMemory; closed: ServerMemory };
  expected: number;
  delivered: number;
  duplicates: number;
  failures: readonly string[];
  /** Receipt minus the HTTP response to the mutation: commit happened before, so a lower bound. */
  fromResponse: Summary;
  /** Receipt minus the moment the mutation was sent (the row's sentAt): an upper bound. */
  fromSent: Summary;
  /**
   * Receipt minus the start of the mutation's transaction (the row's createdAt), or its sending
   * if later: the tighter upper bound, without the time the request waited to be taken up.
   */
  fromStart: Summary;
  /** The row's createdAt minus its sentAt: how long the request waited to start its transaction (never negative while the two clocks agree). */
  startLag: Summary & { min: number };
  /** Per event, its last receipt minus the HTTP response. */
  lastOfEvent: Summary;
  /** Mutation round trip over HTTP, for scale. */
  mutation: Summary;
  cpu: CpuSpent;
}

async function manage<T>(rig: Pick<Rig, 'server'>, query: string, variables: Record<string, unknown>): Promise<T> {
  const reply = (await postJson(`${rig.server.base}/admin/graphql`, rig.server.key, query, variables)) as { data?: T; errors?: unknown };
  if (reply.errors !== undefined || reply.data === undefined) throw new Error(`management API: ${JSON.stringify(reply.errors)}`);
  return reply.data;
}

/** Signs up `n` users, `concurrency` at a time (each costs an Argon2id hash); returns their tokens. */
async function createUsers(endpoint: string, n: number, concurrency: number): Promise<string[]> {
  const tokens: string[] = new Array<string>(n);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const reply = (await postJson(endpoint, '', 'mutation($i: CreateUserInput!) { createUser(input: $i) { token } }', { i: { username: `rt${i}`, password: PASSWORD } })) as {
        data?: { createUser?: { token?: string } };
      };
      const token = reply.data?.createUser?.token;
      if (!token) throw new Error(`createUser: ${JSON.stringify(reply).slice(0, 300)}`);
      tokens[i] = token;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tokens;
}

/** Sends createTick mutation `seq`; resolves with when it was sent and when its response came. */
async function createTick(rig: Rig, seq: number): Promise<{ sent: number; responded: number }> {
  const sent = now();
  const reply = await post(rig.endpoint, rig.adminToken, JSON.stringify({ query: CREATE_TICK, variables: { i: { seq, sentAt: sent } } }));
  const responded = now();
  if (reply.status !== 200 || reply.text.includes('"errors"')) throw new Error(`createTick: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
  return { sent, responded };
}

const sleepUntil = (t: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - performance.now())));

async function scenario(rig: Rig, label: string, tokens: readonly string[], pace: Pace): Promise<Outcome> {
  const { subscribers: count } = rig.settings;
  const { events, intervalMs } = pace;
  const before = await rig.server.memory();
  const opening = performance.now();
  const subscribers = await Subscribers.open({ endpoint: rig.endpoint, tokens, count, query: SUBSCRIPTION, concurrency: 25 });
  let open = true;
  try {
    await waitForGauge(rig.server.base, 'tessera_subscriptions', count, 60_000);
    const opened = { seconds: (performance.now() - opening) / 1000 };
    await waitForGauge(rig.server.base, 'tessera_websocket_connections', count, 5_000);
    const after = await rig.server.memory();

    // Events are sent on a fixed schedule whether or not earlier ones have been answered.
    const responded = new Array<number>(events);
    const roundTrips: number[] = [];
    const window = cpuWindow({ database: rig.db.name, serverThread: rig.server.thread });
    const start = performance.now();
    const sends: Promise<void>[] = [];
    for (let seq = 0; seq < events; seq++) {
      await sleepUntil(start + seq * intervalMs);
      sends.push(
        createTick(rig, seq).then((t) => {
          responded[seq] = t.responded;
          roundTrips.push(t.responded - t.sent);
        }),
      );
    }
    await Promise.all(sends);
    const expected = count * events;
    // Not longer: an idle pool connection ends after 10 s, taking its CPU time out of /proc.
    await subscribers.waitFor(expected, 3_000);
    const cpu = window();

    const failures = [...subscribers.failures];
    const fromResponse: number[] = [];
    const fromSent: number[] = [];
    const fromStart: number[] = [];
    const startLag: number[] = [];
    const last = new Array<number>(events).fill(Number.NEGATIVE_INFINITY);
    const receipts = subscribers.receipts;
    for (let i = 0; i < receipts.length; i++) {
      const seq = receipts.seq(i);
      const at = receipts.at(i);
      const sentAt = receipts.sentAt(i);
      const startedAt = receipts.startedAt(i);
      const response = responded[seq] as number;
      fromResponse.push(at - response);
      fromSent.push(at - sentAt);
      fromStart.push(at - Math.max(sentAt, startedAt));
      startLag.push(startedAt - sentAt);
      last[seq] = Math.max(last[seq] as number, at - response);
    }
    await subscribers.close();
    open = false;
    await waitForGauge(rig.server.base, 'tessera_websocket_connections', 0, 30_000);
    await waitForGauge(rig.server.base, 'tessera_subscriptions', 0, 5_000);
    const closed = await rig.server.memory();
    return {
      label,
      pace,
      opened,
      memory: { before, after, closed },
      expected,
      delivered: subscribers.receipts.length - subscribers.duplicates,
      duplicates: subscribers.duplicates,
      failures,
      fromResponse: summary(fromResponse),
      fromSent: summary(fromSent),
      fromStart: summary(fromStart),
      startLag: { ...summary(startLag), min: startLag.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY) },
      lastOfEvent: summary(last.filter(Number.isFinite)),
      mutation: summary(roundTrips),
      cpu,
    };
  } finally {
    if (open) await subscribers.close();
  }
}

const KIB = 1024;
const MIB = 1024 * 1024;

function printOutcome(o: Outcome, subscribers: number): void {
  const ms = (s: Summary) => `p50 ${fmt(s.p50, 1).padStart(7)}   p99 ${fmt(s.p99, 1).padStart(7)}   max ${fmt(s.max, 1).padStart(7)} ms`;
  const { events, intervalMs } = o.pace;
  console.log(`${o.label}; ${fmt(events)} createTick, one every ${fmt(intervalMs)} ms`);
  console.log(`  ${fmt(subscribers)} subscriptions open in ${fmt(o.opened.seconds, 1)} s`);
  const missing = o.expected - o.delivered;
  console.log(
    `  delivered ${fmt(o.delivered)} of ${fmt(o.expected)} (${fmt(subscribers)} × ${fmt(events)} events)` +
      `${missing > 0 ? `, MISSING ${fmt(missing)}` : ', none missing'}${o.duplicates > 0 ? `, ${fmt(o.duplicates)} duplicates` : ''}`,
  );
  console.log(`  commit → receipt, lower bound (receipt − mutation's HTTP response)   ${ms(o.fromResponse)}`);
  console.log(`  commit → receipt, upper bound (receipt − mutation sent, row's sentAt) ${ms(o.fromSent)}`);
  console.log(`  commit → receipt, upper bound (receipt − its transaction's start)    ${ms(o.fromStart)}`);
  console.log(`  mutation sent → its transaction's start (row's createdAt − sentAt)  ${ms(o.startLag)}, min ${fmt(o.startLag.min, 1)} ms`);
  console.log(`  last subscriber of each event (receipt − HTTP response)             ${ms(o.lastOfEvent)}`);
  console.log(`  createTick over HTTP, round trip (for scale)                        ${ms(o.mutation)}`);
  const perEvent = (seconds: number) => fmt((seconds / events) * 1000, 1);
  const other = (o.cpu.machine - o.cpu.node - o.cpu.server - o.cpu.postgres) / o.cpu.seconds;
  console.log(
    `  CPU ms per event (mutation included): server ${perEvent(o.cpu.server)}, postgres ${perEvent(o.cpu.postgres)}, ` +
      `bench process (subscribers + mutator) ${perEvent(o.cpu.node)}; other load ${fmt(other, 2)} cores`,
  );
  const { before, after, closed } = o.memory;
  const per = (a: number, b: number) => fmt((b - a) / subscribers / KIB, 1);
  console.log(
    `  server memory${before.collected ? ' after a full GC' : ' (settled, no forced GC)'}: RSS ${fmt(before.rss / MIB, 1)} → ${fmt(after.rss / MIB, 1)} MiB, ` +
      `heap ${fmt(before.heapUsed / MIB, 1)} → ${fmt(after.heapUsed / MIB, 1)} MiB; per subscriber: RSS ${per(before.rss, after.rss)} KiB, heap ${per(before.heapUsed, after.heapUsed)} KiB`,
  );
  console.log(`  after every subscriber closed: RSS ${fmt(closed.rss / MIB, 1)} MiB, heap ${fmt(closed.heapUsed / MIB, 1)} MiB`);
  for (const failure of o.failures.slice(0, 3)) console.log(`  failure: ${failure}`);
  if (o.failures.length > 3) console.log(`  … ${fmt(o.failures.length - 3)} more failures`);
}

function paceFromEnv(prefix: string, events: number, intervalMs: number): Pace {
  return { events: intFromEnv(`${prefix}_EVENTS`, events), intervalMs: intFromEnv(`${prefix}_INTERVAL_MS`, intervalMs) };
}

export async function realtimeSection(): Promise<void> {
  const settings: Settings = {
    subscribers: intFromEnv('TESSERA_BENCH_RT_SUBSCRIBERS', 1000),
    users: intFromEnv('TESSERA_BENCH_RT_USERS', 1000),
    shared: paceFromEnv('TESSERA_BENCH_RT_SHARED', 200, 50),
    distinct: paceFromEnv('TESSERA_BENCH_RT_USERS', 1500, 20),
  };
  const n = settings.subscribers;
  if (n % settings.users !== 0) throw new Error('TESSERA_BENCH_RT_SUBSCRIBERS must be a multiple of TESSERA_BENCH_RT_USERS');
  const db = await createBenchDatabase();
  let server: BenchServer | undefined;
  try {
    server = await startBenchServer(db.url, 'info', { process: true });
    const app = await manage<{ createApp: { app: { id: string } } }>({ server }, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'realtime', schema: SCHEMA } });
    const appId = app.createApp.app.id;
    const issued = await manage<{ createAdminToken: { token: string } }>({ server }, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: 'bench' } });
    const rig: Rig = { server, db, appId, endpoint: `${server.base}/graphql/${appId}`, adminToken: issued.createAdminToken.token, settings };

    const signing = performance.now();
    const tokens = await createUsers(rig.endpoint, settings.users, 4);
    const signedUp = (performance.now() - signing) / 1000;
    // Warm-up: the mutation's statement cache and the server's JIT, before anyone listens.
    for (let seq = 0; seq < 20; seq++) await createTick(rig, -1 - seq);

    const perUser = n / settings.users;
    console.log(
      `Realtime subscriptions on PostgreSQL: ${fmt(n)} WebSocket connections (graphql-transport-ws) to one server in a child process, ` +
        `one subscribeToTick(mutations: [createTick]) each; then createTick mutations over HTTP with the admin token, ` +
        `each row carrying its send time (sentAt). A receipt is the subscriber reading the event's message in the bench process, ` +
        `which holds all ${fmt(n)} clients in one thread (each speaks graphql-transport-ws over ws and checks every message). ${fmt(settings.users)} users signed up in ${fmt(signedUp, 1)} s ` +
        `(Argon2id, 4 at a time). Latencies in ms.\n`,
    );
    const shared = await scenario(rig, `(a) ${fmt(n)} subscribers, one admin caller: one evaluation per event serves all`, [rig.adminToken], settings.shared);
    printOutcome(shared, n);
    console.log('');
    const who = `${fmt(settings.users)} distinct users${perUser > 1 ? ` × ${perUser} connections` : ''}`;
    const distinct = await scenario(rig, `(b) ${fmt(n)} subscribers, ${who} under a read rule: one statement per event evaluates it for all of them`, tokens, settings.distinct);
    printOutcome(distinct, n);
    const { events, intervalMs } = distinct.pace;
    // Commit → receipt lies between the two bounds: met for sure under the upper one.
    const all = distinct.delivered === distinct.expected;
    const verdict = !all ? 'NOT met (events missing)' : distinct.fromStart.p99 <= 100 ? 'met' : distinct.fromResponse.p99 <= 100 ? 'met on the lower bound only' : 'NOT met';
    console.log(
      `  goal (${fmt(1000 / intervalMs, 1)} events/s for ${fmt((events * intervalMs) / 1000, 1)} s, every event delivered, commit → receipt p99 ≤ 100 ms): ` +
        `${verdict} (p99 lower bound ${fmt(distinct.fromResponse.p99, 1)} ms, upper bound ${fmt(distinct.fromStart.p99, 1)} ms from the transaction's start, ${fmt(distinct.fromSent.p99, 1)} ms from the mutation's sending); ` +
        `per user and event: ${fmt((distinct.cpu.server * 1000) / events / settings.users, 4)} ms server and ` +
        `${fmt((distinct.cpu.postgres * 1000) / events / settings.users, 4)} ms postgres CPU`,
    );
    console.log('');
    const ratio = (a: number, b: number) => fmt(a / b, 2);
    const perEventCpu = (o: Outcome, part: 'server' | 'postgres') => o.cpu[part] / o.pace.events;
    console.log(
      `(b)/(a), CPU per event (the paces differ, so latencies do not compare): ` +
        `server ${ratio(perEventCpu(distinct, 'server'), perEventCpu(shared, 'server'))}, ` +
        `postgres ${ratio(perEventCpu(distinct, 'postgres'), perEventCpu(shared, 'postgres'))}`,
    );
  } finally {
    closeConnections();
    await server?.close();
    await db.drop();
  }
}
