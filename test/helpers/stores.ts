// Test stores of either kind, for every test that touches storage (run each suite over STORES):
// `embedded` opens a copy of a template data directory; `postgres` creates a fresh database on
// the test server (TESSERA_TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
//
//   for (const kind of STORES) describe(kind, () => {
//     let t: TestStore;
//     beforeAll(async () => { t = await openTestStore(kind); });
//     afterAll(() => t.close());
//     it('…', async () => { await t.store.query(sql`SELECT 1`); });
//   });
//
// The store comes with the catalog in place (`{ catalog: false }` for a bare database).
// TESSERA_TEST_STORES=embedded (comma-separated kinds) narrows STORES, e.g. without a server.

import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { compile, ident, sql } from '../../src/sql/index.js';
import { ensureCatalog, openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { ensureTemplate } from './template.js';

export type StoreKind = 'embedded' | 'postgres';

const ALL_KINDS: readonly StoreKind[] = ['embedded', 'postgres'];
const only = process.env.TESSERA_TEST_STORES?.split(',').map((s) => s.trim());

/** The store kinds every storage test runs against. */
export const STORES: readonly StoreKind[] = only ? ALL_KINDS.filter((k) => only.includes(k)) : ALL_KINDS;

export interface TestStore {
  kind: StoreKind;
  store: Store;
  /** Embedded: the data directory (open it again with `openStore({ dataDir })`). */
  dataDir?: string;
  /** Postgres: the URL of the test's own database. */
  databaseUrl?: string;
  /** Closes the store and removes its data directory or database. Idempotent. */
  close(): Promise<void>;
}

export interface TestStoreOptions {
  /** Create the `tessera` catalog (default true). */
  catalog?: boolean;
}

/** The server the postgres test databases are created on. */
export function testServerUrl(): string {
  return process.env.TESSERA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** The same server URL with another database name. */
function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function onServer(statement: ReturnType<typeof sql>): Promise<void> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    await client.query(compile(statement).text);
  } finally {
    await client.end();
  }
}

async function openEmbedded(): Promise<Omit<TestStore, 'close'> & { cleanup(): Promise<void> }> {
  const template = await ensureTemplate();
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-store-'));
  cpSync(template, dataDir, { recursive: true });
  const store = await openStore({ dataDir });
  return { kind: 'embedded', store, dataDir, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

async function openPostgres(): Promise<Omit<TestStore, 'close'> & { cleanup(): Promise<void> }> {
  const database = `tessera_test_${randomBytes(6).toString('hex')}`;
  await onServer(sql`CREATE DATABASE ${ident(database)}`);
  const databaseUrl = withDatabase(testServerUrl(), database);
  const cleanup = () => onServer(sql`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
  try {
    return { kind: 'postgres', store: await openStore({ databaseUrl }), databaseUrl, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

export async function openTestStore(kind: StoreKind, options: TestStoreOptions = {}): Promise<TestStore> {
  const opened = kind === 'embedded' ? await openEmbedded() : await openPostgres();
  const { cleanup, ...rest } = opened;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= opened.store.close().finally(cleanup);
    return closing;
  };
  if (options.catalog !== false) {
    try {
      await ensureCatalog(opened.store);
    } catch (err) {
      await close();
      throw err;
    }
  }
  return { ...rest, close };
}
