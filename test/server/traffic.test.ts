// The traffic recorder on both stores, with two recorders standing for two instances of one
// deployment: counts per minute add up in the catalog, what an instance has not added yet is
// included when it reads, latency quantiles come from the histogram, recent operations are
// bounded per app and in apps, deleted apps are skipped and old minutes forgotten.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCatalog, deleteApp, TRAFFIC_BUCKETS_MS } from '../../src/store/index.js';
import { sql } from '../../src/sql/index.js';
import { TrafficRecorder, latencyQuantileMs } from '../../src/server/traffic.js';
import type { AnsweredOperation } from '../../src/server/traffic.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { createTestApp } from '../store/appFixtures.js';

const op = (appId: string, over: Partial<AnsweredOperation> = {}): AnsweredOperation => ({
  appId, transport: 'http', type: 'query', outcome: 'ok', seconds: 0.003, requestId: 'r', status: 200, caller: 'anonymous', ...over,
});

describe.each(STORES)('traffic (%s)', (kind) => {
  let test: TestStore;
  let errors: unknown[];
  const recorder = (options = {}) => new TrafficRecorder(test.store, { onError: (err) => errors.push(err), ...options });
  beforeAll(async () => {
    test = await openTestStore(kind);
    await ensureCatalog(test.store);
  });
  afterAll(async () => test?.close());

  it("adds every instance's counts to the same minutes, and reads what is not added yet", async () => {
    errors = [];
    const app = await createTestApp(test.store, 'type Note @model { text: String }');
    const one = recorder();
    const two = recorder();
    for (let i = 0; i < 5; i += 1) one.record(op(app.id, { seconds: 0.0015 }));
    one.record(op(app.id, { outcome: 'FORBIDDEN', seconds: 0.02 }));
    two.record(op(app.id, { outcome: 'INTERNAL', seconds: 0.3 }));
    two.record(op(app.id, { type: 'mutation', seconds: 0.004 }));
    await one.flush();
    const since = new Date(Date.now() - 120_000);
    // Instance two has not flushed: its own reading includes its counts, one's does not.
    const fromTwo = await two.minutes(app.id, since);
    expect(fromTwo.reduce((n, r) => n + r.operations, 0)).toBe(8);
    expect((await one.minutes(app.id, since)).reduce((n, r) => n + r.operations, 0)).toBe(6);
    await two.flush();
    const rows = await one.minutes(app.id, since);
    expect(rows.reduce((n, r) => n + r.operations, 0)).toBe(8);
    expect(rows.reduce((n, r) => n + r.errors, 0)).toBe(2);
    expect(rows.reduce((n, r) => n + r.failures, 0)).toBe(1);
    const latency = rows.reduce((sum, r) => sum.map((n, i) => n + (r.latency[i] ?? 0)), new Array<number>(TRAFFIC_BUCKETS_MS.length + 1).fill(0));
    expect(latency.reduce((a, b) => a + b, 0)).toBe(8);
    // 5 at 1.5 ms (≤ 2), one at 4 ms (≤ 5), one at 20 ms (≤ 25), one at 300 ms (≤ 500).
    expect(latencyQuantileMs(latency, 0.5)).toBe(2);
    expect(latencyQuantileMs(latency, 0.95)).toBe(500);
    expect(errors).toEqual([]);
  });

  it('keeps the latest operations per app, newest first, and forgets the least recently active apps', async () => {
    const r = recorder({ keepPerApp: 3, maxApps: 2 });
    for (let i = 1; i <= 5; i += 1) r.record(op('aaaaaaaaaaaa', { requestId: `a${i}` }));
    r.record(op('bbbbbbbbbbbb', { requestId: 'b1' }));
    expect(r.recent('aaaaaaaaaaaa', 10).map((l) => l.requestId)).toEqual(['a5', 'a4', 'a3']);
    expect(r.recent('aaaaaaaaaaaa', 2).map((l) => l.requestId)).toEqual(['a5', 'a4']);
    r.record(op('aaaaaaaaaaaa', { requestId: 'a6' }));
    r.record(op('cccccccccccc', { requestId: 'c1' }));
    // b was the least recently active of the three.
    expect(r.recent('bbbbbbbbbbbb', 10)).toEqual([]);
    expect(r.recent('aaaaaaaaaaaa', 1)[0]).toMatchObject({ requestId: 'a6', type: 'query', outcome: 'ok', durationMs: 3, transport: 'http', caller: 'anonymous' });
    expect(r.recent('cccccccccccc', 10)).toHaveLength(1);
  });

  it('skips apps deleted before the counts are added, and forgets minutes past the retention', async () => {
    errors = [];
    const gone = await createTestApp(test.store, 'type Note @model { text: String }');
    const kept = await createTestApp(test.store, 'type Note @model { text: String }');
    const r = recorder({ retentionMs: 60 * 60_000 });
    r.record(op(gone.id));
    r.record(op(kept.id));
    await test.store.transaction((tx) => deleteApp(tx, gone.id));
    await test.store.query(sql`INSERT INTO tessera.app_traffic (app_id, minute, operations, errors, failures, latency) VALUES (${kept.id}, now() - interval '2 hours', 1, 0, 0, '{1}')`);
    await r.flush();
    expect(errors).toEqual([]);
    const { rows } = await test.store.query<{ app_id: string; n: number }>(sql`SELECT app_id, count(*)::int AS n FROM tessera.app_traffic WHERE app_id IN (${gone.id}, ${kept.id}) GROUP BY app_id`);
    expect(rows).toEqual([{ app_id: kept.id, n: 1 }]);
  });

  it('keeps counts it could not add for the next attempt', async () => {
    errors = [];
    const app = await createTestApp(test.store, 'type Note @model { text: String }');
    const r = recorder();
    r.record(op(app.id));
    await test.store.query(sql`ALTER TABLE tessera.app_traffic RENAME TO app_traffic_away`);
    try {
      await r.flush();
    } finally {
      await test.store.query(sql`ALTER TABLE tessera.app_traffic_away RENAME TO app_traffic`);
    }
    expect(errors).toHaveLength(1);
    r.record(op(app.id));
    await r.flush();
    const { rows } = await test.store.query<{ operations: number }>(sql`SELECT sum(operations)::int AS operations FROM tessera.app_traffic WHERE app_id = ${app.id}`);
    expect(rows[0]?.operations).toBe(2);
  });
});

describe('latency quantiles', () => {
  it('are the upper bound of the bucket the share falls in, the last bound past it, null without operations', () => {
    const none = new Array<number>(TRAFFIC_BUCKETS_MS.length + 1).fill(0);
    expect(latencyQuantileMs(none, 0.5)).toBeNull();
    const slow = [...none];
    slow[TRAFFIC_BUCKETS_MS.length] = 3;
    expect(latencyQuantileMs(slow, 0.5)).toBe(TRAFFIC_BUCKETS_MS.at(-1));
  });
});
