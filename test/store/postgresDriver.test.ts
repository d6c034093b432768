// What only the PostgreSQL driver has to prove: its LISTEN connection survives being cut, a
// server it cannot reach fails the open rather than the first request, and recurring statements
// are prepared once per connection, within a bound, through schema changes and failures.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { PREPARED_PER_CONNECTION } from '../../src/store/postgres.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import { sleep, waitUntil } from '../helpers/wait.js';

describe.runIf(STORES.includes('postgres'))('postgres store', () => {
  it('listens again after its LISTEN connection is cut', async () => {
    const t = await openTestStore('postgres', { catalog: false });
    try {
      const got: string[] = [];
      let resumed = 0;
      let otherResumed = 0;
      await t.store.listen('survivor', (payload) => got.push(payload), { resumed: () => (resumed += 1) });
      const unlisten = await t.store.listen('gone', () => undefined, { resumed: () => (otherResumed += 1) });
      await unlisten();
      // The first connection is no resumption.
      expect(resumed).toBe(0);
      const before = await t.store.query<{ pid: number }>(sql`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%LISTEN %'`);
      expect(before.rows).toHaveLength(1);
      await t.store.query(sql`SELECT pg_terminate_backend(${before.rows[0]!.pid})`);
      // Notifications sent while the connection is down are lost; keep sending until one arrives.
      for (let i = 0; got.length === 0 && i < 100; i++) {
        await t.store.notify('survivor', `try ${i}`);
        await sleep(50);
      }
      await waitUntil(() => got.length > 0, 5_000, 'a notification after reconnecting');
      const after = await t.store.query<{ pid: number }>(sql`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%LISTEN %'`);
      expect(after.rows).toHaveLength(1);
      expect(after.rows[0]!.pid).not.toBe(before.rows[0]!.pid);
      // Told once that notifications were missed, and only while listening.
      expect(resumed).toBe(1);
      expect(otherResumed).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('drops a pooled connection cut while checked out, running a statement or idle in a transaction, and goes on with a new one', async () => {
    const t = await openTestStore('postgres', { catalog: false });
    const store = await openStore({ databaseUrl: t.databaseUrl!, maxConnections: 1 });
    const pid = async () => (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`, { recurring: true })).rows[0]!.pid;
    const cut = (target: number) => t.store.query(sql`SELECT pg_terminate_backend(${target}::int)`);
    try {
      // Cut while a statement runs: the statement fails with it.
      const first = await pid();
      // Its failure is taken at once: it may come while the test waits on something else.
      const running = store.query(sql`SELECT pg_sleep(5)`).then(
        () => undefined,
        (err: unknown) => err,
      );
      for (let i = 0; ; i += 1) {
        const seen = await t.store.query(sql`SELECT 1 FROM pg_stat_activity WHERE pid = ${first}::int AND query LIKE '%pg_sleep%'`);
        if (seen.rows.length > 0) break;
        if (i > 500) throw new Error('the statement never ran');
        await sleep(10);
      }
      await cut(first);
      expect(await running).toBeInstanceOf(Error);
      // The pool's one connection was dropped, not given back broken.
      const second = await pid();
      expect(second).not.toBe(first);
      // Cut between two statements of a transaction: the connection reports it as an event
      // while no statement is in flight (unheard, it would end the process), and the
      // transaction fails at its next statement.
      const tx = store.transaction(async (inner) => {
        await inner.query(sql`SELECT 1`);
        await cut(second);
        await sleep(300);
        await inner.query(sql`SELECT 2`);
      });
      await expect(tx).rejects.toThrow();
      expect(await pid()).not.toBe(second);
    } finally {
      await store.close();
      await t.close();
    }
  });

  it('replaces a pooled connection after the uses it is given, and never with 0', async () => {
    const t = await openTestStore('postgres', { catalog: false });
    const pidsWith = async (connectionUses: number): Promise<Set<number>> => {
      const store = await openStore({ databaseUrl: t.databaseUrl!, maxConnections: 1, connectionUses });
      try {
        const pids = new Set<number>();
        for (let i = 0; i < 250; i++) pids.add((await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid);
        return pids;
      } finally {
        await store.close();
      }
    };
    try {
      // The store's own opening statement counts as a use.
      expect((await pidsWith(100)).size).toBeGreaterThanOrEqual(2);
      expect((await pidsWith(0)).size).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('counts as uses only what may touch tables new to a connection, not recurring statements it holds prepared', async () => {
    const t = await openTestStore('postgres', { catalog: false });
    const open = (preparedStatements = true) => openStore({ databaseUrl: t.databaseUrl!, maxConnections: 1, connectionUses: 100, preparedStatements });
    const pid = sql`SELECT pg_backend_pid() AS pid`;
    try {
      const store = await open();
      try {
        const pids = new Set<number>();
        // Prepared on the first run (a counted use), bound on every later one: never replaced.
        for (let i = 0; i < 250; i++) pids.add((await store.query<{ pid: number }>(pid, { recurring: true })).rows[0]!.pid);
        for (let i = 0; i < 150; i++) {
          await store.transaction(async (tx) => {
            pids.add((await tx.query<{ pid: number }>(pid, { recurring: true })).rows[0]!.pid);
          });
        }
        expect(pids.size).toBe(1);
        // A transaction that runs anything else counts, as does each text new to the connection.
        for (let i = 0; i < 60; i++) await store.transaction(async (tx) => void (await tx.query(sql`SELECT ${i}::int AS n`)));
        for (let i = 0; i < 60; i++) pids.add((await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS ${ident(`pid${i}`)}, pg_backend_pid() AS pid`, { recurring: true })).rows[0]!.pid);
        expect(pids.size).toBe(2);
      } finally {
        await store.close();
      }
      // Nothing is held prepared when the store prepares nothing: every use counts.
      const unprepared = await open(false);
      try {
        const pids = new Set<number>();
        for (let i = 0; i < 250; i++) pids.add((await unprepared.query<{ pid: number }>(pid, { recurring: true })).rows[0]!.pid);
        expect(pids.size).toBeGreaterThanOrEqual(2);
      } finally {
        await unprepared.close();
      }
    } finally {
      await t.close();
    }
  });

  describe('recurring statements', () => {
    /** The statements the store's one connection holds prepared (pg_prepared_statements is per session). */
    const prepared = async (store: Store): Promise<string[]> =>
      (await store.query<{ statement: string }>(sql`SELECT statement FROM pg_prepared_statements ORDER BY prepare_time`)).rows.map((r) => r.statement);
    const withStore = async (options: { preparedStatements?: boolean; connectionUses?: number }, fn: (store: Store) => Promise<void>) => {
      const t = await openTestStore('postgres', { catalog: false });
      const store = await openStore({ databaseUrl: t.databaseUrl!, maxConnections: 1, ...options });
      try {
        await fn(store);
      } finally {
        await store.close();
        await t.close();
      }
    };

    it('are parsed once per connection and bound after that, in and out of transactions; others are not kept', async () => {
      await withStore({}, async (store) => {
        for (let i = 0; i < 3; i++) {
          expect((await store.query<{ n: number }>(sql`SELECT ${i}::int + 1 AS n`, { recurring: true })).rows[0]!.n).toBe(i + 1);
          expect((await store.query<{ n: number }>(sql`SELECT ${i}::int + 2 AS n`)).rows[0]!.n).toBe(i + 2);
        }
        await store.transaction(async (tx) => {
          expect((await tx.query<{ n: number }>(sql`SELECT ${7}::int + 1 AS n`, { recurring: true })).rows[0]!.n).toBe(8);
          expect((await tx.query<{ n: number }>(sql`SELECT ${7}::int * 3 AS n`, { recurring: true })).rows[0]!.n).toBe(21);
        });
        expect(await prepared(store)).toEqual(['SELECT $1::int + 1 AS n', 'SELECT $1::int * 3 AS n']);
      });
    });

    it('are not kept when the store is told not to (a pooler in transaction mode)', async () => {
      await withStore({ preparedStatements: false }, async (store) => {
        for (let i = 0; i < 3; i++) expect((await store.query<{ n: number }>(sql`SELECT ${i}::int + 1 AS n`, { recurring: true })).rows[0]!.n).toBe(i + 1);
        expect(await prepared(store)).toEqual([]);
      });
    });

    it('are kept up to the bound per connection; beyond it they still run, unnamed', async () => {
      await withStore({ connectionUses: 0 }, async (store) => {
        const extra = 5;
        for (let i = 0; i < PREPARED_PER_CONNECTION + extra; i++) {
          const text = sql`SELECT ${i}::int AS ${ident(`n${i}`)}`;
          expect((await store.query<Record<string, number>>(text, { recurring: true })).rows[0]![`n${i}`]).toBe(i);
        }
        const held = await prepared(store);
        expect(held).toHaveLength(PREPARED_PER_CONNECTION);
        expect(held).not.toContain(`SELECT $1::int AS "n${PREPARED_PER_CONNECTION}"`);
        // One already held is still bound, not parsed again.
        expect((await store.query<{ n0: number }>(sql`SELECT ${42}::int AS ${ident('n0')}`, { recurring: true })).rows[0]!.n0).toBe(42);
        expect(await prepared(store)).toHaveLength(PREPARED_PER_CONNECTION);
      });
    });

    it('read every type as unnamed statements do, on the run that describes their columns and on the runs that do not', async () => {
      await withStore({}, async (store) => {
        const values = (i: number) => sql`SELECT ${i}::int AS i, ${String(i)}::int8 AS big, ${'x'}::text AS t, ${i % 2 === 0}::boolean AS b, NULL::text AS nothing,
          ${'2026-11-27T10:00:00.123Z'}::timestamptz AS at, ${'2026-11-27'}::date AS day, ${JSON.stringify({ n: i })}::jsonb AS doc, ${'{1,2}'}::int[] AS ints,
          ${'{9007199254740993}'}::int8[] AS bigs, ${'{"a b",NULL}'}::text[] AS texts, ${'0fe2b7b0-4a29-42a0-b2e0-27341405b6b0'}::uuid AS id, ${1.5}::float8 AS f`;
        for (let i = 0; i < 4; i++) {
          const named = await store.query(values(i), { recurring: true });
          const unnamed = await store.query(values(i));
          expect(named.rows).toEqual(unnamed.rows);
          expect(Object.keys(named.rows[0]!)).toEqual(Object.keys(unnamed.rows[0]!));
          expect(named.rows[0]!.big).toBe(i);
        }
        // A column may be named anything, __proto__ included: it stays a column.
        const odd = await store.query(sql`SELECT ${'{"polluted":true}'}::jsonb AS "__proto__", ${1}::int AS "constructor"`, { recurring: true });
        const again = await store.query(sql`SELECT ${'{"polluted":true}'}::jsonb AS "__proto__", ${2}::int AS "constructor"`, { recurring: true });
        expect(Object.getPrototypeOf(again.rows[0])).toBe(Object.prototype);
        expect(Object.keys(again.rows[0]!)).toEqual(['__proto__', 'constructor']);
        expect(Object.getOwnPropertyDescriptor(again.rows[0], '__proto__')?.value).toEqual({ polluted: true });
        expect(odd.rows[0]!.constructor).toBe(1);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        // More than one row, and none.
        const series = (n: number) => store.query<{ g: number }>(sql`SELECT g FROM generate_series(1, ${n}::int) g`, { recurring: true });
        for (const n of [3, 0, 5]) expect((await series(n)).rows.map((r) => r.g)).toEqual(Array.from({ length: n }, (_, k) => k + 1));
        expect(await prepared(store)).toHaveLength(3);
      });
    });

    it('report the rows a write changed, with and without RETURNING', async () => {
      await withStore({}, async (store) => {
        await store.query(sql`CREATE TABLE w (id int PRIMARY KEY, n int)`);
        await store.query(sql`INSERT INTO w SELECT g, 0 FROM generate_series(1, 5) g`);
        for (let i = 0; i < 3; i++) {
          const bumped = await store.query(sql`UPDATE w SET n = n + 1 WHERE id <= ${3}::int`, { recurring: true });
          expect(bumped).toMatchObject({ rows: [], rowCount: 3 });
          const returned = await store.query<{ id: number; n: number }>(sql`UPDATE w SET n = n + 1 WHERE id > ${3}::int RETURNING id, n`, { recurring: true });
          expect(returned.rowCount).toBe(2);
          expect(returned.rows.sort((a, b) => a.id - b.id)).toEqual([
            { id: 4, n: i + 1 },
            { id: 5, n: i + 1 },
          ]);
        }
      });
    });

    it('fail on a value that cannot be sent, or on a statement that does not parse, and leave the connection usable', async () => {
      await withStore({}, async (store) => {
        const circular: Record<string, unknown> = {};
        circular.self = circular;
        const echo = (v: unknown) => store.query<{ v: unknown }>(sql`SELECT ${v}::jsonb AS v`, { recurring: true });
        expect((await echo({ a: 1 })).rows[0]!.v).toEqual({ a: 1 });
        await expect(echo(circular)).rejects.toThrow(/circular/i);
        expect((await echo({ a: 2 })).rows[0]!.v).toEqual({ a: 2 });
        const broken = sql`SELECT FROM WHERE ${1}::int`;
        await expect(store.query(broken, { recurring: true })).rejects.toThrow(/syntax/);
        await expect(store.query(broken, { recurring: true })).rejects.toThrow(/syntax/);
        expect((await store.query<{ n: number }>(sql`SELECT ${5}::int AS n`, { recurring: true })).rows[0]!.n).toBe(5);
      });
    });

    it('follow the schema: a column added, a table dropped and made again; a failed run leaves the statement usable', async () => {
      await withStore({}, async (store) => {
        await store.query(sql`CREATE TABLE t (id int PRIMARY KEY, a text)`);
        await store.query(sql`INSERT INTO t VALUES (1, 'one')`);
        const read = (id: number) => store.query<{ v: string | null }>(sql`SELECT (SELECT row_to_json(t)::text FROM t WHERE id = ${id}::int) AS v`, { recurring: true });
        expect((await read(1)).rows[0]!.v).toBe('{"id":1,"a":"one"}');
        await store.query(sql`ALTER TABLE t ADD COLUMN b int DEFAULT 2`);
        expect((await read(1)).rows[0]!.v).toBe('{"id":1,"a":"one","b":2}');
        await store.query(sql`DROP TABLE t`);
        await expect(read(1)).rejects.toThrow();
        await store.query(sql`CREATE TABLE t (id int PRIMARY KEY, c boolean)`);
        await store.query(sql`INSERT INTO t VALUES (1, true)`);
        expect((await read(1)).rows[0]!.v).toBe('{"id":1,"c":true}');
        // A run that fails on its values does not spoil the prepared statement.
        const divide = (d: number) => store.query<{ q: number }>(sql`SELECT 10 / ${d}::int AS q`, { recurring: true });
        expect((await divide(2)).rows[0]!.q).toBe(5);
        await expect(divide(0)).rejects.toThrow();
        expect((await divide(5)).rows[0]!.q).toBe(2);
      });
    });
  });

  it("primes each new connection's allocator, so a statement that builds a large answer does not fault its memory in anew on every run", async () => {
    // The backend runs on this machine (as in every test run): its page faults are in /proc.
    // Unprimed, glibc hands the heap's top back after every run of this statement and faults it
    // in again on the next: about 140 faults a run. Primed, the heap stays.
    const t = await openTestStore('postgres', { catalog: false });
    const store = await openStore({ databaseUrl: t.databaseUrl!, maxConnections: 1 });
    const answer = sql`SELECT json_agg(json_build_object('n', g, 'text', md5(g::text)) ORDER BY g)::text AS v FROM generate_series(1, 2000) g`;
    try {
      const pid = (await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
      const faults = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // minflt: the 10th field, the 8th after the parenthesised command name.
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
      };
      for (let i = 0; i < 3; i++) await store.query(answer);
      const before = faults();
      for (let i = 0; i < 20; i++) expect((await store.query<{ v: string }>(answer)).rows[0]!.v.length).toBeGreaterThan(80_000);
      expect(Number.isFinite(before)).toBe(true);
      expect(faults() - before).toBeLessThan(20);
      // The same backend served them all.
      expect((await store.query<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid).toBe(pid);
    } finally {
      await store.close();
      await t.close();
    }
  });

  it('fails to open when the database cannot be reached', async () => {
    await expect(openStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' })).rejects.toThrow();
  });
});
