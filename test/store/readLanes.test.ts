// Read lanes of the PostgreSQL store: recurring reads pipelined on a few shared connections when
// the pool has none free. Each read gets its own answer and its own error, a read sent behind a
// failed Parse gets the statement's own error, a lost lane fails only what ran on it, reads
// under another statement timeout keep to the pool, a read that waits for a lock or runs slow
// does not hold up the reads of other apps behind it, and a lane is replaced after its uses.
// Standalone writes go to the lanes in batches committed as one: each write gets its own row,
// a batch with a failing write runs its writes again on the pool so that only that one fails,
// and a write that waits for a row lock does not hold up the writes batched with it.

import { describe, expect, it } from 'vitest';
import { isTesseraError } from '../../src/errors/index.js';
import { ident, sql } from '../../src/sql/index.js';
import { openStore, sqlState } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { LANE_BATCH, LANE_DEPTH, LANE_LOCK_TIMEOUT_MS, LANE_SLOW_MS } from '../../src/store/lanes.js';
import { PostgresStore } from '../../src/store/postgres.js';
import type { PostgresOptions } from '../../src/store/postgres.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import { sleep } from '../helpers/wait.js';

const READ = { recurring: true, readOnly: true } as const;
const WRITE = { recurring: true, standalone: true } as const;

/** The first truthy answer of `check`, asked again every 20 ms until `timeoutMs` has passed. */
async function waitUntil<T>(check: () => Promise<T | false | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await check();
    if (answer !== false && answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A read that names the connection it ran on. */
function pidRead(store: Store, n: number, sleep = 0) {
  return store.query<{ n: number; pid: number }>(sql`SELECT ${n}::int AS n, pg_backend_pid() AS pid, pg_sleep(${sleep}::float8) IS NULL AS slept`, READ);
}

/** The backends of the database that a lane or the pool opened (not the test's own). */
async function backends(admin: Store): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(sql`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND query NOT LIKE '%LISTEN %'`);
  return rows.map((r) => r.pid);
}

interface RowLock {
  /** Whether the row is still locked. */
  readonly locked: boolean;
  /** Ends the transaction holding it. */
  release(): void;
  /** Settles once that transaction has ended. */
  holder: Promise<void>;
}

/** Locks counter 1 in a transaction of the test's own store, until released. */
async function lockCounter(admin: Store): Promise<RowLock> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const lock = { locked: false, release: () => release(), holder: Promise.resolve() };
  lock.holder = admin.transaction(async (tx) => {
    await tx.query(sql`SELECT n FROM counters WHERE id = 1 FOR UPDATE`);
    lock.locked = true;
    await held;
    lock.locked = false;
  });
  await waitUntil(async () => lock.locked, 5_000, 'the row locked');
  return lock;
}

interface LaneTest {
  store: Store;
  /** The test's own store, on the same database: it watches the backends. */
  admin: Store;
}

/**
 * Runs `fn` with a PostgreSQL store of these options, its lanes and pool open (the lanes open on
 * first demand), beside the test's own store; both are closed after.
 */
async function withLanes(options: Omit<PostgresOptions, 'databaseUrl'> & { maxConnections: number; readLanes: number }, fn: (t: LaneTest) => Promise<void>): Promise<void> {
  const t = await openTestStore('postgres', { catalog: false });
  const store = new PostgresStore({ databaseUrl: t.databaseUrl!, ...options });
  try {
    const pool = options.maxConnections - options.readLanes;
    await waitUntil(
      async () => {
        await Promise.all([
          ...Array.from({ length: pool }, () => store.query(sql`SELECT pg_sleep(0.02)`)),
          ...Array.from({ length: 2 * options.readLanes }, () => pidRead(store, 0)),
        ]);
        const c = store.connections();
        return c.idle + c.used === options.maxConnections;
      },
      5_000,
      'the lanes and the pool open',
    );
    await fn({ store, admin: t.store });
  } finally {
    await store.close();
    await t.close();
  }
}

describe.runIf(STORES.includes('postgres'))('read lanes of the postgres store', () => {
  it('answers many reads in flight at once on the connections allowed, each with its own rows, stacking them on the lanes when the pool is busy', async () => {
    await withLanes({ maxConnections: 4, readLanes: 2 }, async ({ store }) => {
      const reads = Array.from({ length: 2 + 2 * LANE_DEPTH }, (_, i) => pidRead(store, i + 1, 0.05));
      // While they run: no more connections than allowed, nothing waiting for the pool.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const during = store.connections();
      expect(during.used + during.idle).toBeLessThanOrEqual(4);
      expect(during.waiting).toBe(0);
      const answers = await Promise.all(reads);
      expect(answers.map((a) => a.rows[0]!.n)).toEqual(Array.from({ length: 2 + 2 * LANE_DEPTH }, (_, i) => i + 1));
      const pids = new Set(answers.map((a) => a.rows[0]!.pid));
      expect(pids.size).toBeLessThanOrEqual(4);
      // Some connection served several of them at once: they were stacked.
      const perPid = new Map<number, number>();
      for (const a of answers) perPid.set(a.rows[0]!.pid, (perPid.get(a.rows[0]!.pid) ?? 0) + 1);
      expect(Math.max(...perPid.values())).toBeGreaterThan(1);
    });
  });

  it('fails only the read whose statement fails among the reads stacked with it', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store }) => {
      const divide = (d: number) => store.query<{ q: number }>(sql`SELECT 10 / ${d}::int AS q, pg_sleep(0.01) IS NULL AS slept`, READ);
      const outcomes = await Promise.allSettled([1, 2, 0, 5, 0, 10].map(divide));
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0]!.q : sqlState(o.reason) ?? String(o.reason)))).toEqual([10, 5, '22012', 2, '22012', 1]);
    });
  });

  it("answers reads sent behind one whose Parse failed with the statement's own error, not a missing prepared statement", async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store }) => {
      // Keep the pool's connection busy so that the reads stack on the lane, all of one text.
      const busy = store.query(sql`SELECT pg_sleep(0.3)`);
      const missing = (i: number) => store.query(sql`SELECT n FROM no_such_table WHERE n = ${i}::int`, READ);
      const outcomes = await Promise.allSettled([1, 2, 3, 4].map(missing));
      await busy;
      expect(outcomes.map((o) => (o.status === 'rejected' ? sqlState(o.reason) : 'answered'))).toEqual(['42P01', '42P01', '42P01', '42P01']);
    });
  });

  it('fails the reads on a lane whose connection is cut as UNAVAILABLE, and goes on with a new lane', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      // The pool's connection is kept busy: the two reads go to the lane, one behind the other.
      const busy = store.query(sql`SELECT pg_sleep(0.5)`);
      const first = pidRead(store, 1, 2).then(
        () => undefined,
        (err: unknown) => err,
      );
      const second = pidRead(store, 2, 0).then(
        () => undefined,
        (err: unknown) => err,
      );
      const lane = await waitUntil(
        async () => {
          const { rows } = await admin.query<{ pid: number }>(sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_sleep($2::float8)%' AND state = 'active'`);
          return rows[0]?.pid;
        },
        5_000,
        'the read running on the lane',
      );
      await admin.query(sql`SELECT pg_terminate_backend(${lane}::int)`);
      for (const failed of [await first, await second]) {
        expect(isTesseraError(failed) && failed.code).toBe('UNAVAILABLE');
      }
      await busy;
      const after = await Promise.all([1, 2, 3].map((n) => pidRead(store, n)));
      expect(after.map((a) => a.rows[0]!.n)).toEqual([1, 2, 3]);
      expect(after.map((a) => a.rows[0]!.pid)).not.toContain(lane);
    });
  });

  it("does not hold the reads behind one that waits for a lock (a migration's): that one waits on the pool instead", async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      for (const statement of [sql`CREATE TABLE migrating (n int)`, sql`INSERT INTO migrating VALUES (1)`, sql`CREATE TABLE other (n int)`, sql`INSERT INTO other VALUES (10)`]) await admin.query(statement);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked = false;
      // Another app's schema change: its table locked until the change commits.
      const migration = admin.transaction(async (tx) => {
        await tx.query(sql`LOCK TABLE migrating IN ACCESS EXCLUSIVE MODE`);
        locked = true;
        await held;
      });
      try {
        await waitUntil(async () => locked, 5_000, 'the table locked');
        // The lane's first read waits for the lock; the others are sent behind it on the same lane.
        const blocked = store.query<{ n: number }>(sql`SELECT n FROM migrating`, READ);
        const others = Promise.all([1, 2, 3].map((i) => store.query<{ n: number }>(sql`SELECT n + ${i}::int AS n FROM other`, READ)));
        const first = await Promise.race([others.then(() => 'others answered'), sleep(3_000).then(() => 'still waiting')]);
        expect(first).toBe('others answered');
        expect((await others).map((r) => r.rows[0]!.n)).toEqual([11, 12, 13]);
        expect(locked).toBe(true);
        release();
        await migration;
        // The read that waited is answered once the change commits, not failed.
        expect((await blocked).rows).toEqual([{ n: 1 }]);
      } finally {
        release();
        await migration;
      }
    });
  });

  it("sends no read behind a slow one, and keeps a text slow twice in a row to the pool", async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store }) => {
      const slowText = (n: number, seconds: number) => store.query<{ n: number; pid: number }>(sql`SELECT ${n}::int AS n, pg_backend_pid() AS pid, pg_sleep(${seconds}::float8) IS NULL AS slow`, READ);
      // Another app's heavy read takes the idle lane.
      const slow = slowText(1, 0.6);
      await sleep(4 * LANE_SLOW_MS);
      // Reads sent while it runs take the pool's connection, one after another, not a place behind it.
      const fast = Promise.all([2, 3, 4].map((n) => pidRead(store, n)));
      const first = await Promise.race([fast.then(() => 'fast reads answered'), slow.then(() => 'slow read answered')]);
      expect(first).toBe('fast reads answered');
      const lane = (await slow).rows[0]!.pid;
      expect((await fast).map((r) => r.rows[0]!.pid)).not.toContain(lane);
      // Slow once: its text may still take the lane. Slow again: it keeps to the pool, even when quick.
      expect((await slowText(5, (3 * LANE_SLOW_MS) / 1000)).rows[0]!.pid).toBe(lane);
      expect((await slowText(6, 0)).rows[0]!.pid).not.toBe(lane);
      // Other texts still take the lane.
      expect((await pidRead(store, 7)).rows[0]!.pid).toBe(lane);
    });
  });

  it('sends a standalone write new to the lanes to one only when the pool has no connection free, one behind another at most, each committed on its own', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE notes (label text PRIMARY KEY)`);
      const write = (label: string) => store.query<{ pid: number }>(sql`INSERT INTO notes (label) VALUES (${label}::text) RETURNING pg_backend_pid() AS pid`, WRITE);
      const pool = (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
      // The pool's connection free: the write takes it.
      expect((await write('a')).rows[0]!.pid).toBe(pool);
      // The pool's connection busy: two writes take the lane, the second behind the first (and
      // failing alone, its label taken); the third waits for the pool.
      const busy = store.query(sql`SELECT pg_sleep(0.3)`);
      const outcomes = await Promise.allSettled([write('b'), write('a'), write('c')]);
      await busy;
      const [b, a, c] = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0]!.pid : sqlState(o.reason)));
      expect(b).not.toBe(pool);
      expect(a).toBe('23505');
      expect(c).toBe(pool);
      const { rows } = await admin.query<{ label: string }>(sql`SELECT label FROM notes ORDER BY label`);
      expect(rows.map((r) => r.label)).toEqual(['a', 'b', 'c']);
    });
  });

  it('sends no read behind a write on a lane', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE notes (label text PRIMARY KEY)`);
      const busy = store.query(sql`SELECT pg_sleep(0.3)`);
      const written = store.query<{ pid: number }>(sql`INSERT INTO notes (label) SELECT ${'slow'}::text FROM pg_sleep(0.15) RETURNING pg_backend_pid() AS pid`, WRITE);
      const read = pidRead(store, 1);
      const [w, r] = await Promise.all([written, read, busy]);
      // The read waited for the pool rather than for the write's commit.
      expect(r.rows[0]!.pid).not.toBe(w.rows[0]!.pid);
    });
  });

  it('gives up a write that waits for a row lock on a lane and runs it again on the pool, once', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)`);
      await admin.query(sql`INSERT INTO counters VALUES (1, 0)`);
      const pool = (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
      const lock = await lockCounter(admin);
      const { release, holder } = lock;
      try {
        // The pool busy: the write takes the lane, where it waits for the row.
        const busy = store.query(sql`SELECT pg_sleep(0.2)`);
        const bump = store.query<{ n: number; pid: number }>(sql`UPDATE counters SET n = n + 1 WHERE id = 1 RETURNING n, pg_backend_pid() AS pid`, WRITE);
        await busy;
        // The lane gave the write up: it takes reads again while the row is still locked.
        await sleep(4 * LANE_LOCK_TIMEOUT_MS);
        expect((await pidRead(store, 2)).rows[0]!.n).toBe(2);
        expect(lock.locked).toBe(true);
        release();
        await holder;
        const bumped = (await bump).rows[0]!;
        expect(bumped).toEqual({ n: 1, pid: pool });
        expect((await admin.query<{ n: number }>(sql`SELECT n FROM counters WHERE id = 1`)).rows).toEqual([{ n: 1 }]);
      } finally {
        release();
        await holder;
      }
    });
  });

  /** A note's insert, answering with where and in which transaction it ran. */
  const noteWrite = (store: Store, label: string, n = 0) =>
    store.query<{ label: string; n: number; pid: number; xid: string }>(
      sql`INSERT INTO notes (label, n) VALUES (${label}::text, ${n}::int) RETURNING label, n, pg_backend_pid() AS pid, pg_current_xact_id()::text AS xid`,
      WRITE,
    );

  /** Has the note insert prepared on the lane: the pool busy, one runs there. Returns the lane's and the pool's backends. */
  async function primeNotes(store: Store): Promise<{ lane: number; pool: number }> {
    const pool = (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
    const busy = store.query(sql`SELECT pg_sleep(0.1)`);
    const first = (await noteWrite(store, 'primed')).rows[0]!;
    await busy;
    expect(first.pid).not.toBe(pool);
    return { lane: first.pid, pool };
  }

  it('sends the writes given to a lane that has their statement prepared together, committed as one, each answered with its own row', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE notes (label text PRIMARY KEY, n int NOT NULL)`);
      const { lane } = await primeNotes(store);
      // The pool is free now, and the writes still go to the lane, given in one turn: one batch.
      const count = LANE_BATCH - 4;
      const answers = await Promise.all(Array.from({ length: count }, (_, i) => noteWrite(store, `note ${i}`, i)));
      expect(answers.map((a) => [a.rows[0]!.label, a.rows[0]!.n])).toEqual(Array.from({ length: count }, (_, i) => [`note ${i}`, i]));
      expect(new Set(answers.map((a) => a.rows[0]!.pid))).toEqual(new Set([lane]));
      expect(new Set(answers.map((a) => a.rows[0]!.xid)).size).toBe(1);
      expect(answers.every((a) => a.rowCount === 1)).toBe(true);
      // Committed, in one transaction apart from the first.
      const { rows } = await admin.query<{ rows: number; transactions: number }>(sql`SELECT count(*)::int AS rows, count(DISTINCT xmin::text)::int AS transactions FROM notes`);
      expect(rows[0]).toEqual({ rows: count + 1, transactions: 2 });
      // Writes given while a batch is out wait for it and go out together next; beyond a full
      // batch on every lane, the pool takes them.
      const more = await Promise.all(Array.from({ length: 3 * LANE_BATCH }, (_, i) => noteWrite(store, `more ${i}`)));
      expect(more.map((a) => a.rows[0]!.label)).toEqual(Array.from({ length: 3 * LANE_BATCH }, (_, i) => `more ${i}`));
      const onLane = more.filter((a) => a.rows[0]!.pid === lane);
      expect(onLane.length).toBeGreaterThan(1);
      expect(new Set(onLane.map((a) => a.rows[0]!.xid)).size).toBeLessThan(onLane.length);
    });
  });

  it('runs each write of a batch that failed again on the pool, so that only the write that fails fails and nothing of the others is lost', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE notes (label text PRIMARY KEY, n int NOT NULL)`);
      const { lane, pool } = await primeNotes(store);
      // Taken labels in the middle of one batch: the first already stored, the second by a
      // write of the same batch before it.
      const labels = ['a', 'b', 'primed', 'c', 'd', 'b', 'e'];
      const outcomes = await Promise.allSettled(labels.map((label, i) => noteWrite(store, label, i)));
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0]!.n : sqlState(o.reason)))).toEqual([0, 1, '23505', 3, 4, '23505', 6]);
      // The batch failed as a whole and each ran again, on the pool.
      for (const o of outcomes) if (o.status === 'fulfilled') expect(o.value.rows[0]!.pid).toBe(pool);
      const { rows } = await admin.query<{ label: string; n: number }>(sql`SELECT label, n FROM notes ORDER BY label`);
      expect(rows).toEqual([
        { label: 'a', n: 0 },
        { label: 'b', n: 1 },
        { label: 'c', n: 3 },
        { label: 'd', n: 4 },
        { label: 'e', n: 6 },
        { label: 'primed', n: 0 },
      ]);
      // The lane goes on batching.
      const after = await Promise.all(['f', 'g'].map((label) => noteWrite(store, label)));
      expect(after.map((a) => a.rows[0]!.pid)).toEqual([lane, lane]);
      expect(after[0]!.rows[0]!.xid).toBe(after[1]!.rows[0]!.xid);
    });
  });

  it("answers a batched write that its statement timeout cancelled with its own error, once, and runs the others again; the timeout is each write's, not the batch's", async () => {
    await withLanes({ maxConnections: 2, readLanes: 1, statementTimeoutMs: 300 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE notes (label text PRIMARY KEY, n int NOT NULL)`);
      await admin.query(sql`CREATE SEQUENCE tries`);
      // Each run takes a number before it sleeps: the numbers taken count the runs, cancelled or not.
      const write = (label: string, seconds: number) =>
        store.query<{ label: string; pid: number; xid: string }>(
          sql`INSERT INTO notes (label, n) SELECT ${label}::text, t.n FROM (SELECT nextval('tries')::int AS n, pg_sleep(${seconds}::float8) AS slept) AS t RETURNING label, pg_backend_pid() AS pid, pg_current_xact_id()::text AS xid`,
          WRITE,
        );
      const pool = (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
      const busy = store.query(sql`SELECT pg_sleep(0.1)`);
      expect((await write('primed', 0)).rows[0]!.pid).not.toBe(pool);
      await busy;
      const outcomes = await Promise.allSettled([write('a', 0), write('slow', 1), write('b', 0)]);
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0]!.label : sqlState(o.reason)))).toEqual(['a', '57014', 'b']);
      // primed; then a, slow (cancelled) in the batch; then a and b again on the pool: the slow
      // one ran once.
      expect((await admin.query<{ n: number }>(sql`SELECT last_value::int AS n FROM tries`)).rows).toEqual([{ n: 5 }]);
      expect((await admin.query<{ label: string }>(sql`SELECT label FROM notes ORDER BY label`)).rows.map((r) => r.label)).toEqual(['a', 'b', 'primed']);
      // The timeout is each write's, not the batch's: three that take 0.2 s each, 0.6 s together, all run.
      const slowish = await Promise.all(['c', 'd', 'e'].map((label) => write(label, 0.2)));
      expect(slowish.map((a) => a.rows[0]!.label)).toEqual(['c', 'd', 'e']);
      expect(new Set(slowish.map((a) => a.rows[0]!.xid)).size).toBe(1);
      expect((await admin.query<{ n: number }>(sql`SELECT last_value::int AS n FROM tries`)).rows).toEqual([{ n: 8 }]);
    });
  });

  it('does not hold the writes batched with one that waits for a row lock: the batch gives up, and each runs again on the pool', async () => {
    await withLanes({ maxConnections: 4, readLanes: 1 }, async ({ store, admin }) => {
      await admin.query(sql`CREATE TABLE notes (label text PRIMARY KEY, n int NOT NULL)`);
      await admin.query(sql`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)`);
      await admin.query(sql`INSERT INTO counters VALUES (1, 0)`);
      const bump = () => store.query<{ n: number; pid: number }>(sql`UPDATE counters SET n = n + 1 WHERE id = 1 RETURNING n, pg_backend_pid() AS pid`, WRITE);
      // Both statements prepared on the lane: the pool's three connections busy.
      const busy = Array.from({ length: 3 }, () => store.query(sql`SELECT pg_sleep(0.15)`));
      const primed = await Promise.all([noteWrite(store, 'primed'), bump()]);
      await Promise.all(busy);
      const lane = primed[0].rows[0]!.pid;
      expect(primed[1].rows[0]!.pid).toBe(lane);
      const lock = await lockCounter(admin);
      const { release, holder } = lock;
      try {
        const bumped = bump();
        const notes = await Promise.all(['x', 'y', 'z'].map((label) => noteWrite(store, label)));
        // Written while the row is still locked, on the pool.
        expect(lock.locked).toBe(true);
        expect(notes.map((a) => a.rows[0]!.label)).toEqual(['x', 'y', 'z']);
        for (const a of notes) expect(a.rows[0]!.pid).not.toBe(lane);
        release();
        await holder;
        expect((await bumped).rows[0]!).toMatchObject({ n: 2 });
        expect((await admin.query<{ n: number }>(sql`SELECT n FROM counters WHERE id = 1`)).rows).toEqual([{ n: 2 }]);
      } finally {
        release();
        await holder;
      }
    });
  });

  it("keeps reads under another statement timeout off the lanes, whose sessions keep the store's", async () => {
    await withLanes({ maxConnections: 2, readLanes: 1, statementTimeoutMs: 150 }, async ({ store }) => {
      // Under the store's timeout, on the lane: cancelled.
      const cancelled = await pidRead(store, 1, 0.4).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(sqlState((cancelled as { cause?: unknown })?.cause ?? cancelled)).toBe('57014');
      // Under an app's longer one: answered.
      const longer = await store.query<{ n: number }>(sql`SELECT 2 AS n, pg_sleep(0.4) IS NULL AS slept`, { ...READ, timeoutMs: 5_000 });
      expect(longer.rows[0]!.n).toBe(2);
    });
  });

  it('replaces a lane once it has served its uses, ending its connection', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1, connectionUses: 3 }, async ({ store, admin }) => {
      // A text of its own each time: a name new to the lane, a counted use.
      const fresh = async (i: number) => Object.values((await store.query(sql`SELECT pg_backend_pid() AS ${ident(`pid${i}`)}`, READ)).rows[0]!)[0] as number;
      const pool = (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
      // One at a time: each goes to the idle lane, a use each, until it has served three.
      const lane = await fresh(1);
      expect(lane).not.toBe(pool);
      let served = 1;
      while ((await fresh(served + 1)) === lane) served += 1;
      // The read on the lane before the warm-up's text counted may make it one fewer.
      expect(served).toBeGreaterThanOrEqual(2);
      expect(served).toBeLessThanOrEqual(3);
      await waitUntil(async () => !(await backends(admin)).includes(lane), 5_000, 'the worn-out lane ended');
      const next = await waitUntil(
        async () => {
          const pid = await fresh(3);
          return pid !== pool ? pid : undefined;
        },
        5_000,
        'a read on a new lane',
      );
      expect(next).not.toBe(lane);
    });
  });

  it('closes a lane that has been idle for its idle time, and opens one again for the reads that come', async () => {
    await withLanes({ maxConnections: 2, readLanes: 1, laneIdleMs: 200 }, async ({ store, admin }) => {
      const lane = (await pidRead(store, 1)).rows[0]!.pid;
      // Idle now: closed within about its idle time and a half.
      await waitUntil(async () => !(await backends(admin)).includes(lane), 5_000, 'the idle lane closed');
      expect(store.connections().idle + store.connections().used).toBeLessThanOrEqual(1);
      // The next reads open a lane again.
      const again = await waitUntil(
        async () => {
          const pid = (await pidRead(store, 2)).rows[0]!.pid;
          return store.connections().idle + store.connections().used === 2 && pid !== lane ? pid : undefined;
        },
        5_000,
        'a new lane',
      );
      expect(again).not.toBe(lane);
    });
  });

  it('keeps no lane when told none, or when the pool is too small for one', async () => {
    const t = await openTestStore('postgres', { catalog: false });
    try {
      for (const options of [{ maxConnections: 4, readLanes: 0 }, { maxConnections: 3 }, { maxConnections: 4, preparedStatements: false }]) {
        const store = await openStore({ databaseUrl: t.databaseUrl!, ...options });
        try {
          const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => pidRead(store, i, 0.02)));
          expect(answers.map((a) => a.rows[0]!.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
          // Every read took a pool connection of its own: at most the pool's size, one read each at a time.
          expect(new Set(answers.map((a) => a.rows[0]!.pid)).size).toBeLessThanOrEqual(options.maxConnections);
          expect(store.connections().used + store.connections().idle).toBe(new Set(answers.map((a) => a.rows[0]!.pid)).size);
        } finally {
          await store.close();
        }
      }
    } finally {
      await t.close();
    }
  });
});
