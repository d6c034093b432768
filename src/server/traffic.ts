// Each app's traffic as its operators see it in the console: the latest operations this
// instance answered (kept in memory, a bounded number per app and of apps), and operations per
// minute with their errors and latencies, which every instance adds to the catalog every few
// seconds so that the graphs cover the whole deployment. Nothing a client sent is kept — no
// document, no variables — only what the operation was, who asked, and how it ended.

import type { TrafficMinuteView, TrafficSource } from '../admin/index.js';
import { LruMap } from '../lru/index.js';
import type { Store, TrafficRow } from '../store/index.js';
import { TRAFFIC_BUCKETS_MS, addTraffic, pruneTraffic, trafficSince } from '../store/index.js';

/** An operation of the data API, answered. */
export interface AnsweredOperation {
  appId: string;
  transport: 'http' | 'websocket';
  /** `query`, `mutation`, `subscription`, or `unknown` when the document did not parse or validate. */
  type: string;
  name?: string | undefined;
  /** `ok`, or the code of the first error. */
  outcome: string;
  seconds: number;
  requestId: string;
  /** The HTTP status; none over WebSocket. */
  status?: number | undefined;
  caller: 'anonymous' | 'user' | 'admin';
  userId?: string | undefined;
}

/** One line of an app's recent operations. */
export interface LoggedOperation extends Omit<AnsweredOperation, 'appId' | 'seconds'> {
  at: Date;
  durationMs: number;
}

/** Outcomes that are the server's failures rather than a refusal or a client's mistake. */
const FAILURES = new Set(['INTERNAL', 'UNAVAILABLE']);

export interface TrafficOptions {
  /** How often counts are added to the catalog (default 10 s). */
  flushMs?: number;
  /** Recent operations kept per app (default 100). */
  keepPerApp?: number;
  /** Apps whose recent operations are kept; the least recently active go first (default 1,000). */
  maxApps?: number;
  /** How long minutes are kept in the catalog (default 7 days). */
  retentionMs?: number;
  onError(err: unknown): void;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** The latency bucket (index into a row's `latency`) of a duration. */
function bucketOf(ms: number): number {
  const i = TRAFFIC_BUCKETS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? TRAFFIC_BUCKETS_MS.length : i;
}

/**
 * The latency under which a share `q` of a minute's operations finished, as the upper bound of
 * the bucket it falls in (the last bound for the open bucket past it); null without operations.
 */
export function latencyQuantileMs(latency: readonly number[], q: number): number | null {
  const total = latency.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const target = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < latency.length; i += 1) {
    seen += latency[i] ?? 0;
    if (seen >= target) return TRAFFIC_BUCKETS_MS[Math.min(i, TRAFFIC_BUCKETS_MS.length - 1)] ?? null;
  }
  return TRAFFIC_BUCKETS_MS.at(-1) ?? null;
}

function emptyRow(appId: string, minute: Date): TrafficRow {
  return { appId, minute, operations: 0, errors: 0, failures: 0, latency: new Array<number>(TRAFFIC_BUCKETS_MS.length + 1).fill(0) };
}

function addInto(into: TrafficRow, from: TrafficRow): void {
  into.operations += from.operations;
  into.errors += from.errors;
  into.failures += from.failures;
  from.latency.forEach((n, i) => {
    into.latency[i] = (into.latency[i] ?? 0) + n;
  });
}

/** The latest operations of one app: a ring of fixed capacity, the oldest overwritten first. */
class RecentLines {
  readonly #lines: LoggedOperation[] = [];
  /** Where the next line goes once the ring is full: its oldest line. */
  #oldest = 0;

  constructor(readonly capacity: number) {}

  push(line: LoggedOperation): void {
    if (this.capacity <= 0) return;
    if (this.#lines.length < this.capacity) {
      this.#lines.push(line);
      return;
    }
    this.#lines[this.#oldest] = line;
    this.#oldest = (this.#oldest + 1) % this.capacity;
  }

  /** The newest `last` lines, newest first. */
  newest(last: number): LoggedOperation[] {
    const lines = this.#lines;
    const n = lines.length;
    const out: LoggedOperation[] = [];
    for (let i = 0; i < Math.min(last, n); i += 1) out.push(lines[(this.#oldest - 1 - i + 2 * n) % n] as LoggedOperation);
    return out;
  }
}

export class TrafficRecorder {
  readonly #store: Store;
  readonly #options: Required<Omit<TrafficOptions, 'onError'>> & Pick<TrafficOptions, 'onError'>;
  /** Recent operations per app, oldest first; the least recently active app goes first. */
  readonly #recent: LruMap<string, RecentLines>;
  /** Counts not yet added to the catalog, by app and minute. */
  #pending = new Map<string, TrafficRow>();
  /** The row of #pending counted into last (cleared with it). */
  #lastRow: TrafficRow | undefined;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #lastPrune = 0;

  constructor(store: Store, options: TrafficOptions) {
    this.#store = store;
    this.#options = { flushMs: 10_000, keepPerApp: 100, maxApps: 1_000, retentionMs: 7 * 24 * HOUR_MS, ...options };
    this.#recent = new LruMap(this.#options.maxApps);
  }

  record(op: AnsweredOperation): void {
    const now = Date.now();
    const durationMs = Math.round(op.seconds * 100_000) / 100;
    // Spelled out rather than spread: this runs for every operation the server answers.
    const line: LoggedOperation = {
      transport: op.transport,
      type: op.type,
      name: op.name,
      outcome: op.outcome,
      requestId: op.requestId,
      status: op.status,
      caller: op.caller,
      userId: op.userId,
      at: new Date(now),
      durationMs,
    };
    let lines = this.#recent.get(op.appId);
    if (!lines) {
      lines = new RecentLines(this.#options.keepPerApp);
      this.#recent.set(op.appId, lines);
    }
    lines.push(line);

    const row = this.#pendingRow(op.appId, Math.floor(now / MINUTE_MS) * MINUTE_MS);
    row.operations += 1;
    if (op.outcome !== 'ok') row.errors += 1;
    if (FAILURES.has(op.outcome)) row.failures += 1;
    const bucket = bucketOf(durationMs);
    row.latency[bucket] = (row.latency[bucket] ?? 0) + 1;
  }

  /** The counts of an app's minute not yet added to the catalog; the last one asked for is at hand. */
  #pendingRow(appId: string, minute: number): TrafficRow {
    const last = this.#lastRow;
    if (last && last.appId === appId && last.minute.getTime() === minute) return last;
    const key = `${appId}|${minute}`;
    let row = this.#pending.get(key);
    if (!row) {
      row = emptyRow(appId, new Date(minute));
      this.#pending.set(key, row);
    }
    this.#lastRow = row;
    return row;
  }

  /** The app's latest operations on this instance, newest first. */
  recent(appId: string, last: number): LoggedOperation[] {
    return this.#recent.peek(appId)?.newest(last) ?? [];
  }

  /** The app's minutes from `since` on, oldest first: the catalog's, plus what this instance has not added yet. */
  async minutes(appId: string, since: Date): Promise<TrafficRow[]> {
    const stored = await trafficSince(this.#store, appId, since);
    const byMinute = new Map(stored.map((r) => [r.minute.getTime(), r]));
    for (const row of this.#pending.values()) {
      if (row.appId !== appId || row.minute < since) continue;
      const into = byMinute.get(row.minute.getTime());
      if (into) addInto(into, row);
      else byMinute.set(row.minute.getTime(), { ...row, latency: [...row.latency] });
    }
    return [...byMinute.values()].sort((a, b) => a.minute.getTime() - b.minute.getTime());
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#options.flushMs);
    this.#timer.unref();
  }

  /** Adds the pending counts to the catalog (and, once an hour, forgets minutes past the retention). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flush());
    return this.#flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async #flush(): Promise<void> {
    const rows = [...this.#pending.values()];
    this.#pending = new Map();
    this.#lastRow = undefined;
    try {
      await addTraffic(this.#store, rows);
      if (Date.now() - this.#lastPrune > HOUR_MS) {
        this.#lastPrune = Date.now();
        await pruneTraffic(this.#store, new Date(Date.now() - this.#options.retentionMs));
      }
    } catch (err) {
      // Kept for the next attempt: counts are only lost if the process ends first.
      for (const row of rows) {
        const key = `${row.appId}|${row.minute.getTime()}`;
        const current = this.#pending.get(key);
        if (current) addInto(current, row);
        else this.#pending.set(key, row);
      }
      this.#options.onError(err);
    }
  }
}

/** The recorder as the management API reads it: whole windows of minutes, zeros included. */
export function trafficSource(recorder: TrafficRecorder): TrafficSource {
  return {
    async minutes(appId, minutes) {
      const now = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS;
      const first = now - (minutes - 1) * MINUTE_MS;
      const rows = new Map((await recorder.minutes(appId, new Date(first))).map((r) => [r.minute.getTime(), r]));
      const out: TrafficMinuteView[] = [];
      for (let t = first; t <= now; t += MINUTE_MS) {
        const row = rows.get(t);
        out.push({
          minute: new Date(t),
          operations: row?.operations ?? 0,
          errors: row?.errors ?? 0,
          failures: row?.failures ?? 0,
          p50Ms: row ? latencyQuantileMs(row.latency, 0.5) : null,
          p95Ms: row ? latencyQuantileMs(row.latency, 0.95) : null,
        });
      }
      return out;
    },
    recent: (appId, last) => recorder.recent(appId, last),
  };
}
