// Read lanes: a few connections on which the data API's recurring reads are pipelined. A read
// given to a lane is sent at once, even while the lane's connection still runs earlier reads:
// PostgreSQL answers them in order, each in its own implicit transaction (one Sync each), and
// the reads sent during one turn of the event loop leave in one write. Under load that spares a
// pool checkout and a round trip's wake-ups per read: the server makes fewer system calls, and a
// backend that finds its next statement waiting serves it without going to sleep in between.
//
// A lane takes only what cannot hold up the statements behind it for long or change what they
// see: recurring reads (no write, no lock) under the store's own statement timeout. A read takes
// a lane with fewer than LANE_SHALLOW statements in flight, else a free pool connection, else a
// lane with fewer than LANE_DEPTH (ReadLanes.send); anything else waits for the pool. A
// read can still wait for a lock: a table another transaction locks whole (an app's schema
// change) is read only once that commits. A lane's session gives up such a wait after
// LANE_LOCK_TIMEOUT_MS, so that the statements behind it (of other apps, as likely as not) go
// on, and the store runs that one again on the pool, where it waits as long as it must.
//
// The lanes are connections the pool does without, and a load of writes alone would leave them
// idle. So standalone writes (one statement committed on its own: the data API's one-statement
// create, update and delete) take them too, and go further than reads: the writes given to a
// lane while its last batch of writes is out are sent together as the next batch, bound and
// executed one after another with one Sync after the last (pgBatch.ts), so that PostgreSQL runs
// them in one implicit transaction and commits them once: one flush of the WAL, one wake-up of
// the backend and one answer for the lot, where each on its own connection costs all three
// (docs/performance.md). A write joins a batch only on a lane whose connection has its statement
// prepared and its answer's columns described; the first on a lane runs there on its own, and
// only when the pool has no connection free, to a lane with fewer than LANE_WRITE_DEPTH in
// flight. No read is sent behind a write.
//
// A batch stands or falls as one: when any statement of it fails, PostgreSQL rolls back what
// the others did, and each runs again on the pool, where it gets its own outcome (a batch of one
// keeps its own error, but for a lock timeout, and so does a write its statement timeout
// cancelled: no batch mate made it slow, and it would only take as long again). A write that
// waits for a row lock gives up after the lane's lock timeout like a read, so that its batch and
// the statements behind it go on. Writes fill the batches of a lane that carries writes already
// before they take another, which leaves the other lanes to the reads.
//
// A read can also be slow of itself (a filter no index serves, up to its app's statement
// timeout). Once the statement at the head of a lane has run for LANE_SLOW_MS, nothing is sent
// behind it; and a text that was that slow on its last SLOW_RUNS runs on a lane keeps to the
// pool for LANE_SLOW_MEMORY_MS (slowTexts.ts). What one app's heavy read can hold up is then the
// few statements sent behind it before it was seen to be slow, twice. (One slow run is not enough: a pause of
// the server's event loop, or of the disk, makes the statement at each lane's head look slow
// once. A text sent to the pool that way costs a little speed for a while, and nothing else.)

import pg from 'pg';
import type { ClientConfig } from 'pg';
import { sqlState } from './errors.js';
import { BatchRun } from './pgBatch.js';
import type { BatchItem } from './pgBatch.js';
import { NamedRun, preparedColumns } from './pgNamed.js';
import type { NamedResult } from './pgNamed.js';
import { primeAllocator } from './pgAllocator.js';
import { pgTypes } from './pgTypes.js';
import { SlowTexts } from './slowTexts.js';

/**
 * Reads a lane takes in flight before the pool is asked for a free connection: enough that a
 * backend finds its next read waiting, few enough that a slow read holds up little behind it.
 */
export const LANE_SHALLOW = 4;

/** Reads a lane holds in flight at most, once the pool has no connection free; deeper ones wait for the pool. */
export const LANE_DEPTH = 8;

/** Statements a lane may hold in flight for a standalone write new to its connection to join them: it waits for at most one commit before its own. */
export const LANE_WRITE_DEPTH = 2;

/**
 * Standalone writes a lane sends together at most, committed as one: enough that a commit's
 * flush of the WAL serves many, few enough that a batch runs in a couple of milliseconds.
 * Writes beyond a full batch on every lane go to the pool.
 */
export const LANE_BATCH = 16;

/**
 * How long a read on a lane waits for a lock before it gives up (SQLSTATE 55P03) and is run again
 * on the pool: the most that a lock can hold up the reads sent behind it.
 */
export const LANE_LOCK_TIMEOUT_MS = 20;

/**
 * How long a statement may run at the head of its lane and still be fast: nothing is sent behind
 * one that has run longer, and a text that ran longer twice in a row keeps to the pool for a
 * while. A data API read served by an index takes well under a millisecond, and pipelining saves
 * a slower one little; but with the machine's cores all busy a quick read can take several
 * milliseconds to be answered, which must not count as slow. How many statements a slow one
 * holds up is bounded by the lane's depth more than by this time.
 */
export const LANE_SLOW_MS = 50;

/** A lane: a pipelined connection and what the store knows of it. */
interface Lane {
  readonly client: pg.Client;
  /** The connection's socket (a TLS one replaces the first while connecting), corked while a turn's reads are written. */
  stream: { cork(): void; uncork(): void };
  /** Statements sent and not yet answered. */
  inFlight: number;
  /** Writes among them: while any is in flight the lane takes no read. */
  writes: number;
  /** Since when the oldest statement in flight has been running (performance.now()): the lane's last answer, or its sending on an idle lane. */
  headSince: number;
  /** Statement names this connection has been asked to prepare. */
  readonly names: Set<string>;
  /** Counted uses (names new to the connection); the lane retires once it has served its share. */
  uses: number;
  /** Whether its socket is held corked until the event loop's next turn. */
  corked: boolean;
  /** The error the connection reported, once it failed. */
  lost: Error | undefined;
  /** When it last took a read (performance.now()). */
  lastUsed: number;
  /** Writes waiting to be sent as the lane's next batch. */
  pending: PendingWrite[];
  /** Whether a batch of writes is out, or about to be sent. */
  batching: boolean;
}

/** Whether the statement at the head of the lane has run past LANE_SLOW_MS: nothing is sent behind it. */
function headSlow(lane: Lane, now: number): boolean {
  return lane.inFlight > 0 && now - lane.headSince > LANE_SLOW_MS;
}

/** A write waiting in a lane's next batch, and where its outcome goes. */
interface PendingWrite extends BatchItem {
  resolve(outcome: LaneOutcome): void;
}

export interface LaneOptions {
  /** The connection settings of the store's pool (session time zone and statement timeout); a lane's session adds its lock timeout. */
  config: ClientConfig;
  /** How many lanes at most. */
  count: number;
  /** Names a connection keeps prepared at most. */
  preparedPerConnection: number;
  /** Counted uses a connection serves before it is replaced (Infinity: never). */
  maxUses: number;
  /** A lane that has taken no read for this long is closed, as the pool closes idle connections (default LANE_IDLE_MS). */
  idleMs?: number;
  /** How long a lane's connection may take to open, in ms (0: no limit of its own). */
  connectMs: number;
}

/** How long a lane may stay idle before it is closed: the pool's default for its idle connections. */
export const LANE_IDLE_MS = 10_000;

/**
 * What a statement sent on a lane gives back: its answer, or the error with whether the lane's
 * connection failed under it, and whether it is to run again on the pool (`again`): it did
 * nothing, a write's implicit transaction rolled back.
 */
export type LaneOutcome = { result: NamedResult } | { error: unknown; lost: Error | undefined; again: boolean };

/**
 * SQLSTATEs of a statement that runs again on the pool: 26000, a named statement the connection
 * does not hold (sent behind one of the same text whose Parse failed); 55P03, a lock not granted
 * within the lane's lock timeout. On the pool it answers with its own error or its rows, waiting
 * for the lock as long as its statement timeout allows.
 */
const RUN_AGAIN: ReadonlySet<string> = new Set(['26000', '55P03']);

/** SQLSTATE of a statement its statement timeout cancelled. */
const STATEMENT_TIMEOUT = '57014';

export class ReadLanes {
  readonly #options: LaneOptions;
  readonly #lanes: Lane[] = [];
  /** The texts found slow on a lane lately (slowTexts.ts). */
  readonly #slow = new SlowTexts();
  /** Lanes being opened. */
  #opening = 0;
  #closed = false;
  /** Closes lanes idle for longer than the options allow, while any is open. */
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: LaneOptions) {
    this.#options = options;
  }

  /** Lanes open, and how many of them run statements now. */
  counts(): { open: number; busy: number } {
    let busy = 0;
    for (const lane of this.#lanes) if (lane.inFlight > 0) busy += 1;
    return { open: this.#lanes.length, busy };
  }

  /**
   * Sends the statement named `name` on a lane, as the header says: a read to the least busy
   * lane below LANE_SHALLOW, or when the pool has no connection free (`poolFull`) below
   * LANE_DEPTH; a standalone write into the next batch of a lane that has it prepared (#batch
   * says which), or when none has and the pool has no connection free, on its own to a lane
   * below LANE_WRITE_DEPTH. Undefined when no lane takes it (then nothing was sent). A lane that takes
   * it has (or gets) it prepared under `name`. While fewer lanes are open than allowed and none
   * is idle, one more is opened for the statements to come. A text found slow lately (SLOW_RUNS
   * in a row) takes no lane; no lane whose head has run past LANE_SLOW_MS takes a statement, and
   * none with a write in flight takes a read.
   */
  send(text: string, name: string, values: readonly unknown[], kind: 'read' | 'write', poolFull: boolean): Promise<LaneOutcome> | undefined {
    const write = kind === 'write';
    const now = performance.now();
    if (this.#slow.kept(name, now)) return undefined;
    if (write) {
      const batched = this.#batch(name, values, now);
      if (batched || !poolFull) return batched;
    }
    const lane = write
      ? this.#leastBusy(LANE_WRITE_DEPTH, now, true)
      : (this.#leastBusy(LANE_SHALLOW, now, false) ?? (poolFull ? this.#leastBusy(LANE_DEPTH, now, false) : undefined));
    if (!lane || lane.inFlight > 0) this.#grow();
    if (!lane) return undefined;
    if (!lane.names.has(name)) {
      // A name new to the connection counts a use, as on the pool's connections; a lane that
      // has served its uses takes no more reads and ends once its last is answered.
      lane.uses += 1;
      // A lane that holds its share of names leaves the others to the pool.
      if (lane.names.size >= this.#options.preparedPerConnection) {
        if (lane.uses >= this.#options.maxUses) this.#retire(lane);
        return undefined;
      }
      lane.names.add(name);
    }
    if (lane.inFlight === 0) lane.headSince = now;
    lane.inFlight += 1;
    if (write) lane.writes += 1;
    lane.lastUsed = now;
    // The reads sent in this turn of the event loop leave together, in one write.
    if (!lane.corked) {
      lane.corked = true;
      lane.stream.cork();
      setImmediate(() => {
        lane.corked = false;
        lane.stream.uncork();
      });
    }
    const answered = new Promise<LaneOutcome>((resolve) => {
      const done = (err: Error | undefined, result?: NamedResult) => {
        // Answers come in order: this statement ran from the answer before it (or its sending) until now.
        const at = performance.now();
        this.#slow.ran(name, at - lane.headSince > LANE_SLOW_MS, at);
        lane.headSince = at;
        lane.inFlight -= 1;
        if (write) lane.writes -= 1;
        if (err || !result) resolve({ error: err, lost: lane.lost, again: RUN_AGAIN.has(sqlState(err) ?? '') });
        else resolve({ result });
      };
      lane.client.query(new NamedRun(text, name, values, pgTypes, done) as unknown as pg.Submittable);
    });
    if (lane.uses >= this.#options.maxUses) this.#retire(lane);
    return answered;
  }

  /**
   * Puts the write into the next batch of a lane whose connection has its statement prepared
   * and described, and whose batch is not full; undefined when none. A lane that carries writes
   * already is taken first, the least busy of them, so that writes fill one lane's batches
   * before they take another lane from the reads; else the least busy lane.
   */
  #batch(name: string, values: readonly unknown[], now: number): Promise<LaneOutcome> | undefined {
    let best: Lane | undefined;
    let columns: BatchItem['columns'] | undefined;
    for (const lane of this.#lanes) {
      if (lane.pending.length >= LANE_BATCH || headSlow(lane, now) || !lane.names.has(name)) continue;
      if (best && (best.writes > 0 !== lane.writes > 0 ? best.writes > 0 : lane.inFlight >= best.inFlight)) continue;
      const known = preparedColumns(lane.client, name);
      if (known === undefined) continue;
      best = lane;
      columns = known;
    }
    if (!best || !columns) return undefined;
    const lane = best;
    if (lane.inFlight === 0) lane.headSince = now;
    lane.inFlight += 1;
    lane.writes += 1;
    lane.lastUsed = now;
    const outcome = new Promise<LaneOutcome>((resolve) => lane.pending.push({ name, columns: columns as BatchItem['columns'], values, resolve }));
    // The writes given in this turn of the event loop go out together, or with the next batch
    // once the one out is answered.
    if (!lane.batching) {
      lane.batching = true;
      setImmediate(() => this.#sendBatch(lane));
    }
    return outcome;
  }

  /** Sends the lane's pending writes as one batch; once it is answered, the writes given meanwhile. */
  #sendBatch(lane: Lane): void {
    const batch = lane.pending.splice(0);
    if (batch.length === 0) {
      lane.batching = false;
      return;
    }
    const settle = (outcome: (item: PendingWrite, i: number) => LaneOutcome) => {
      lane.inFlight -= batch.length;
      lane.writes -= batch.length;
      batch.forEach((item, i) => item.resolve(outcome(item, i)));
    };
    // A lane taken out of use since: its writes were never sent, and run on the pool.
    if (!this.#lanes.includes(lane)) {
      lane.batching = false;
      settle(() => ({ error: new Error('the lane closed before its batch was sent'), lost: undefined, again: true }));
      return;
    }
    const done = (err: Error | undefined, results?: NamedResult[], failedAt?: number) => {
      const at = performance.now();
      const slow = at - lane.headSince > LANE_SLOW_MS;
      for (const name of new Set(batch.map((item) => item.name))) this.#slow.ran(name, slow, at);
      lane.headSince = at;
      // A failed batch did nothing (its transaction rolled back): each runs again on the pool
      // for its own outcome. The error is the statement's own, as any statement's on a lane, in
      // a batch of one, and for the statement a timeout cancelled (no batch mate makes it slow;
      // run again, it would take as long once more).
      const state = sqlState(err) ?? '';
      const own = (i: number) => batch.length === 1 || (i === failedAt && state === STATEMENT_TIMEOUT);
      if (err || !results) settle((_, i) => ({ error: err, lost: lane.lost, again: !own(i) || RUN_AGAIN.has(state) }));
      else settle((_, i) => ({ result: results[i] as NamedResult }));
      this.#sendBatch(lane);
    };
    lane.client.query(new BatchRun(batch, done) as unknown as pg.Submittable);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const lanes = this.#lanes.splice(0);
    await Promise.all(lanes.map((lane) => lane.client.end().catch(() => undefined)));
  }

  /** The lane with the fewest statements in flight below `depth`, leaving out any whose head has run past LANE_SLOW_MS, and for a read any with a write in flight. */
  #leastBusy(depth: number, now: number, write: boolean): Lane | undefined {
    let best: Lane | undefined;
    for (const lane of this.#lanes) {
      if (lane.inFlight >= depth || (!write && lane.writes > 0) || headSlow(lane, now)) continue;
      if (!best || lane.inFlight < best.inFlight) best = lane;
    }
    return best;
  }

  /** Opens one more lane in the background when there are fewer than the count. */
  #grow(): void {
    if (this.#closed || this.#lanes.length + this.#opening >= this.#options.count) return;
    this.#opening += 1;
    const connectMs = this.#options.connectMs;
    const config = this.#options.config;
    const options = `${config.options ?? ''} -c lock_timeout=${LANE_LOCK_TIMEOUT_MS}`.trim();
    const client = new pg.Client({ ...config, options, pipeline: true, ...(connectMs > 0 ? { connectionTimeoutMillis: connectMs } : {}) } as ClientConfig);
    const connection = (client as unknown as { connection: { stream: Lane['stream'] } }).connection;
    const lane: Lane = { client, stream: connection.stream, inFlight: 0, writes: 0, headSince: 0, names: new Set(), uses: 0, corked: false, lost: undefined, lastUsed: performance.now(), pending: [], batching: false };
    // A lane that fails is dropped; the reads in flight on it fail on their own.
    client.on('error', (err: Error) => {
      lane.lost = err;
      this.#drop(lane);
    });
    void (async () => {
      try {
        await client.connect();
        await primeAllocator(client);
        if (this.#closed) throw new Error('closed');
        lane.stream = connection.stream;
        lane.lastUsed = performance.now();
        this.#lanes.push(lane);
        this.#sweep();
      } catch {
        await client.end().catch(() => undefined);
      } finally {
        this.#opening -= 1;
      }
    })();
  }

  /** Keeps a timer, while lanes are open, that closes the ones idle for too long. */
  #sweep(): void {
    if (this.#sweeper) return;
    const idleMs = this.#options.idleMs ?? LANE_IDLE_MS;
    this.#sweeper = setInterval(() => {
      const now = performance.now();
      for (const lane of [...this.#lanes]) if (lane.inFlight === 0 && now - lane.lastUsed > idleMs) this.#retire(lane);
      if (this.#lanes.length === 0) {
        clearInterval(this.#sweeper);
        this.#sweeper = undefined;
      }
    }, Math.max(10, idleMs / 2));
    // The process may exit with lanes open: the timer does not hold it.
    this.#sweeper.unref();
  }

  #drop(lane: Lane): void {
    const at = this.#lanes.indexOf(lane);
    if (at >= 0) this.#lanes.splice(at, 1);
  }

  /** Takes the lane out of use and ends its connection once the reads sent on it are answered. */
  #retire(lane: Lane): void {
    this.#drop(lane);
    // pg ends a pipelined connection gracefully after its last answer.
    void lane.client.end().catch(() => undefined);
  }
}
