// The PostgreSQL driver's lanes: one app's statements go to the same few connections (where its
// catalog entries are cached), and spill over to another lane when theirs are all busy.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';

async function waitUntilAsync(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the sleepers never ran');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(STORES.includes('postgres'))('postgres store lanes', () => {
  let database: TestStore;
  let store: Store;

  const backend = async (affinity?: string, sleepSeconds = 0): Promise<number> => {
    const statement = sleepSeconds > 0 ? sql`SELECT pg_backend_pid() AS pid, pg_sleep(${sleepSeconds})` : sql`SELECT pg_backend_pid() AS pid`;
    const { rows } = await store.query<{ pid: number }>(statement, affinity === undefined ? {} : { affinity });
    return rows[0]!.pid;
  };

  beforeAll(async () => {
    database = await openTestStore('postgres', { catalog: false });
    // Ten connections in five lanes: two each.
    store = await openStore({ databaseUrl: database.databaseUrl!, maxConnections: 10 });
  });

  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  it("runs one app's statements on its lane's connections", async () => {
    const pids = new Set<number>();
    // Two at a time, so that both of the lane's connections are opened.
    for (let i = 0; i < 10; i++) for (const pid of await Promise.all([backend('app-one'), backend('app-one')])) pids.add(pid);
    expect(pids.size).toBeLessThanOrEqual(2);
    const others = new Set<number>();
    for (let i = 0; i < 40; i++) others.add(await backend(`app-${i}`));
    // Forty apps spread over the lanes reach more connections than one app does.
    expect(others.size).toBeGreaterThan(2);
  });

  it("takes another lane's connection when its own are all busy", async () => {
    const lane = new Set<number>();
    for (let i = 0; i < 5; i++) for (const pid of await Promise.all([backend('busy-app'), backend('busy-app')])) lane.add(pid);
    expect(lane.size).toBe(2);
    const sleepers = [backend('busy-app', 1), backend('busy-app', 1)];
    // Both of the lane's connections are taken once the sleepers run.
    const watcher = new pg.Client(database.databaseUrl);
    await watcher.connect();
    try {
      await waitUntilAsync(async () => {
        const { rows } = await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()");
        return rows[0]!.n === 2;
      });
    } finally {
      await watcher.end();
    }
    const spilled = await backend('busy-app');
    expect(lane.has(spilled)).toBe(false);
    const slept = await Promise.all(sleepers);
    expect(new Set(slept)).toEqual(lane);
  });

  it('reports the connections of every lane', async () => {
    const counts = store.connections();
    expect(counts.used).toBe(0);
    expect(counts.waiting).toBe(0);
    expect(counts.idle).toBeGreaterThanOrEqual(3);
  });
});
