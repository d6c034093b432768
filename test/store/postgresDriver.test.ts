// What only the PostgreSQL driver has to prove: its LISTEN connection survives being cut, and
// a server it cannot reach fails the open rather than the first request.

import { describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { openStore } from '../../src/store/index.js';
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

  it('fails to open when the database cannot be reached', async () => {
    await expect(openStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' })).rejects.toThrow();
  });
});
