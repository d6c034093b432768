// How a loaded app stays in step with the catalog when no notification says it changed: an app
// in use is read again in the background after APP_REFRESH_MS, answering from what it has
// meanwhile and keeping its compiled statements when nothing changed; an app deleted behind its
// back goes. On PostgreSQL, a LISTEN connection that was cut (notifications missed) lets every
// app go at once, so a change made while it was down is seen at the next request.

import { parse } from 'graphql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { cachedPlans, planQuery } from '../../src/compile/index.js';
import { AppRegistry, APP_REFRESH_MS } from '../../src/server/appRegistry.js';
import type { LiveApp } from '../../src/server/appRegistry.js';
import { sql } from '../../src/sql/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { sleep } from '../helpers/wait.js';

const NOTES = 'type Note @model { text: String! }';
const ALL_NOTES = '{ viewer { allNotes(first: 5) { edges { node { text } } } } }';

/** Resolves once `check` holds, trying every 20 ms for `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Makes the app look read from the catalog longer ago than the refresh period. */
function age(app: LiveApp): void {
  app.loadedAt = Date.now() - APP_REFRESH_MS - 1;
}

/** Changes the app's settings in the catalog without telling anyone (as a change by hand would). */
async function setQuietly(t: TestStore, appId: string, settings: Record<string, unknown>): Promise<void> {
  await t.store.query(sql`UPDATE tessera.apps SET settings = ${JSON.stringify(settings)}::jsonb WHERE id = ${appId}`);
}

describe.each(STORES)('app refresh (%s)', (kind) => {
  let t: TestStore;
  let registry: AppRegistry;
  let appId: string;

  beforeEach(async () => {
    t = await openTestStore(kind);
    appId = (await createAdminService(t.store).createApp({ name: 'notes', schema: NOTES })).id;
    registry = new AppRegistry(t.store);
    await registry.start();
  });
  afterEach(async () => {
    await registry?.stop();
    await t?.close();
  });

  /** The next app the registry hands out that is not `than`. */
  async function newer(than: LiveApp): Promise<LiveApp> {
    let found: LiveApp | null = null;
    await eventually(
      async () => {
        found = await registry.get(appId);
        return found !== null && found !== than;
      },
      5_000,
      'the app read again',
    );
    return found as unknown as LiveApp;
  }

  it('answers from the cached app while reading it again, and keeps its compiled statements when nothing changed', async () => {
    const first = (await registry.get(appId)) as LiveApp;
    planQuery({ app: first.context, document: parse(ALL_NOTES), query: ALL_NOTES, admin: true });
    age(first);
    // The request that finds it old is answered at once with what is cached.
    expect(await registry.get(appId)).toBe(first);
    const second = await newer(first);
    expect(second.loadedAt).toBeGreaterThan(first.loadedAt);
    expect(second.context).toBe(first.context);
    expect(cachedPlans(second.context)).toBe(1);

    // A change no one was told of is picked up by the next refresh, with statements compiled afresh.
    await setQuietly(t, appId, { maxPageSize: 3 });
    expect((await registry.get(appId))?.context.app.settings.maxPageSize).toBe(1000);
    age(second);
    expect(await registry.get(appId)).toBe(second);
    const third = await newer(second);
    expect(third.context).not.toBe(second.context);
    expect(third.context.app.settings.maxPageSize).toBe(3);
  });

  it('lets an app deleted behind its back go at its refresh', async () => {
    const first = (await registry.get(appId)) as LiveApp;
    await t.store.query(sql`DELETE FROM tessera.apps WHERE id = ${appId}`);
    expect(await registry.get(appId)).toBe(first);
    age(first);
    await registry.get(appId);
    await eventually(async () => (await registry.get(appId)) === null, 5_000, 'the deleted app let go');
  });
});

describe.runIf(STORES.includes('postgres'))('app registry on PostgreSQL', () => {
  it('lets every app go when its LISTEN connection was cut, so changes missed meanwhile are seen', async () => {
    const t = await openTestStore('postgres');
    const registry = new AppRegistry(t.store);
    try {
      const appId = (await createAdminService(t.store).createApp({ name: 'notes', schema: NOTES })).id;
      await registry.start();
      const first = (await registry.get(appId)) as LiveApp;
      expect(first.context.app.settings.maxPageSize).toBe(1000);
      const listener = await t.store.query<{ pid: number }>(sql`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%LISTEN %'`);
      expect(listener.rows).toHaveLength(1);
      // The change comes while no one listens: its notification would be lost.
      await t.store.query(sql`SELECT pg_terminate_backend(${listener.rows[0]!.pid})`);
      await setQuietly(t, appId, { maxPageSize: 3 });
      await eventually(async () => (await registry.get(appId))?.context.app.settings.maxPageSize === 3, 10_000, 'the change made while not listening');
    } finally {
      await registry.stop();
      await t.close();
    }
  });
});
