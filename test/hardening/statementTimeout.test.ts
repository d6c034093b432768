// The app's statement timeout (`statementTimeoutMs`) on real slow statements, no mocks: on
// PostgreSQL a statement waiting for a lock or scanning a large table is cancelled at the app's
// timeout and answered LIMIT_EXCEEDED with the request id, a mutation leaves nothing behind,
// and the pool's connections come back with the right timeout. PGlite cannot cancel a running
// statement: the same requests run to the end there.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTesseraError } from '../../src/errors/index.js';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName, lockApp, openStore, sqlState } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { STORE_KINDS, admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';

const SCHEMA = `type Post @model { title: String word: String }`;
const TIMEOUT_MS = 100;
/** Rows for a scan that takes many times the timeout. */
const SCAN_ROWS = 300_000;

/**
 * A filter that costs a lot per row, so that the scan outlasts the timeout by far on any
 * machine. PostgreSQL lowercases an ILIKE pattern for every row it tests (in a UTF-8
 * database), so a long pattern makes each row slow: ≈ 1.5 s over these rows with two parallel
 * workers, where `like: "%zz%"` took 60 ms, under the 100 ms timeout. No row holds a "z": the
 * count is 0.
 */
const SCAN = `{ viewer { allPosts(first: 1, where: { word: { like: "%${'z'.repeat(2_000)}%" } }) { aggregations { count } } } }`;
const LIST = `{ viewer { allPosts(first: 5) { edges { node { id } } } } }`;
const CREATE = `mutation { createPost(input: { title: "late" }) { changedPost { id } } }`;

interface Reply {
  status: number;
  requestId: string | null;
  body: Json;
}

async function post(app: TestApp, query: string): Promise<Reply> {
  const response = await fetch(app.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}` },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as Json };
}

async function setTimeoutOf(server: TestServer, app: TestApp, statementTimeoutMs: number): Promise<void> {
  const reply = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: app.id, settings: { statementTimeoutMs } } });
  expect(reply.body.errors).toBeUndefined();
}

/** Fills Post with `rows` rows straight through the store (seconds, where the API would take minutes). */
async function seedPosts(store: Store, appId: string, rows: number): Promise<void> {
  const table = ident(appSchemaName(appId), 'Post');
  await store.query(sql`INSERT INTO ${table} (title, word) SELECT 'Post ' || g, 'word ' || g FROM generate_series(1, ${rows}::int) g`);
}

function expectTimedOut(reply: Reply, path: string): void {
  expect(reply.status).toBe(200);
  expect(reply.body.data).toEqual({ [path]: null });
  expect(reply.body.errors).toHaveLength(1);
  const [error] = reply.body.errors as Json[];
  expect(error.path).toEqual([path]);
  expect(error.extensions).toEqual({ code: 'LIMIT_EXCEEDED', limit: 'statementTimeoutMs', maximum: TIMEOUT_MS, requestId: reply.requestId });
  expect(error.message).toBe(`The operation ran longer than the app's statement timeout of ${TIMEOUT_MS} ms (app setting statementTimeoutMs)`);
  expect(JSON.stringify(reply.body)).not.toMatch(/cancel|statement_timeout|SELECT|INSERT|app_|57014/i);
}

describe('the store driver (postgres)', () => {
  let test: TestStore;
  beforeAll(async () => {
    test = await openTestStore('postgres');
  });
  afterAll(() => test?.close());

  it('cancels a statement at the timeout a call asks for, as LIMIT_EXCEEDED', async () => {
    const started = performance.now();
    const err = await test.store.query(sql`SELECT pg_sleep(5)`, { timeoutMs: TIMEOUT_MS }).catch((e: unknown) => e);
    // Cancelled: it ended before the 5 s the statement would take (a wide margin for a loaded machine).
    expect(performance.now() - started).toBeLessThan(4_500);
    expect(isTesseraError(err) && err.code).toBe('LIMIT_EXCEEDED');
    expect(sqlState(err)).toBe('57014');
  });

  it('bounds every other statement by the store default, as an internal error', async () => {
    const short = await openStore({ databaseUrl: test.databaseUrl as string, statementTimeoutMs: 150 });
    try {
      const err = await short.query(sql`SELECT pg_sleep(5)`).catch((e: unknown) => e);
      expect(isTesseraError(err)).toBe(false);
      expect(sqlState(err)).toBe('57014');
      // Transactions too, unless the caller asks otherwise.
      const inTx = await short.transaction((tx) => tx.query(sql`SELECT pg_sleep(5)`)).catch((e: unknown) => e);
      expect(sqlState(inTx)).toBe('57014');
    } finally {
      await short.close();
    }
  });

  it('sets a connection timeout only where it differs, and puts the default back', async () => {
    const show = async (timeoutMs?: number) =>
      (await test.store.query<{ statement_timeout: string }>(sql`SHOW statement_timeout`, timeoutMs === undefined ? {} : { timeoutMs })).rows[0]?.statement_timeout;
    expect(await show()).toBe('10s');
    // One connection busy at a time here, so the pool hands back the same one.
    expect(await show(250)).toBe('250ms');
    expect(await show()).toBe('10s');
    expect(await show(10_000)).toBe('10s');
    const inTx = await test.store.transaction((tx) => tx.query<{ statement_timeout: string }>(sql`SHOW statement_timeout`), { timeoutMs: 300 });
    expect(inTx.rows[0]?.statement_timeout).toBe('300ms');
    // SET LOCAL ended with the transaction.
    expect(await show()).toBe('10s');
  });

  it('lifts the timeout for schema changes, once they hold the app lock', async () => {
    const err = await test.store
      .transaction(async (tx) => {
        await lockApp(tx, 'abcdefabcdef');
        await tx.query(sql`SELECT pg_sleep(0.3)`);
      }, { timeoutMs: TIMEOUT_MS })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeUndefined();
  });
});

describe('the data API on PostgreSQL', () => {
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    server = await startTestServer('postgres');
    app = await createTestApp(server, SCHEMA);
    other = await createTestApp(server, SCHEMA);
    await seedPosts(server.store, app.id, SCAN_ROWS);
    await server.store.query(sql`ANALYZE ${ident(appSchemaName(app.id), 'Post')}`);
    await setTimeoutOf(server, app, TIMEOUT_MS);
  });
  afterAll(() => server?.close());

  it('cancels a large filtered scan at the app timeout: LIMIT_EXCEEDED with the request id', async () => {
    const reply = await post(app, SCAN);
    expectTimedOut(reply, 'viewer');
  });

  it('logs the database error under the request id', async () => {
    const reply = await post(app, SCAN);
    const lines = server.logs.filter((l) => l.requestId === reply.requestId && l.level === 50);
    expect(lines).toHaveLength(1);
    const err = lines[0]?.err as { sqlState?: string; stack?: string };
    expect(err.sqlState).toBe('57014');
    expect(err.stack).toContain('canceling statement due to statement timeout');
  });

  it('cancels a read waiting for a lock', async () => {
    const table = ident(appSchemaName(app.id), 'Post');
    const reply = await server.store.transaction(async (tx) => {
      await tx.query(sql`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      return post(app, LIST);
    });
    expectTimedOut(reply, 'viewer');
  });

  it('cancels a mutation waiting for a lock, and nothing of it is written', async () => {
    const table = ident(appSchemaName(app.id), 'Post');
    const reply = await server.store.transaction(async (tx) => {
      await tx.query(sql`LOCK TABLE ${table} IN EXCLUSIVE MODE`);
      return post(app, CREATE);
    });
    expectTimedOut(reply, 'createPost');
    const { rows } = await server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${table} WHERE title = 'late'`);
    expect(rows[0]?.n).toBe(0);
  });

  it('keeps serving the app and the others on the same connections', async () => {
    for (let i = 0; i < 12; i++) {
      const [mine, theirs] = await Promise.all([post(app, LIST), post(other, SCAN)]);
      expect(mine.body.errors).toBeUndefined();
      expect(theirs.body.errors).toBeUndefined();
    }
  });

  it('lets the scan finish once the timeout is raised', async () => {
    await setTimeoutOf(server, app, 60_000);
    const reply = await post(app, SCAN);
    expect(reply.body).toEqual({ data: { viewer: { allPosts: { aggregations: { count: 0 } } } } });
    await setTimeoutOf(server, app, TIMEOUT_MS);
  });
});

describe.skipIf(!STORE_KINDS.includes('embedded'))('the embedded store (PGlite)', () => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startTestServer('embedded');
    app = await createTestApp(server, SCHEMA);
    await seedPosts(server.store, app.id, 50_000);
    await setTimeoutOf(server, app, TIMEOUT_MS);
  });
  afterAll(() => server?.close());

  it('cannot cancel a running statement: it runs to the end', async () => {
    const started = performance.now();
    const { rows } = await server.store.query<{ done: boolean }>(sql`SELECT true AS done FROM pg_sleep(0.4)`, { timeoutMs: TIMEOUT_MS });
    expect(rows).toEqual([{ done: true }]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('answers an app with a tiny timeout as if it had none', async () => {
    const reply = await post(app, SCAN);
    expect(reply.body).toEqual({ data: { viewer: { allPosts: { aggregations: { count: 0 } } } } });
  });
});
