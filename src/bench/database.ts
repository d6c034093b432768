// A throwaway PostgreSQL database for the data API benchmark, on the server DATABASE_URL names
// (default: the local test server), dropped again when the benchmark ends, however it ends.

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { compile, ident, sql } from '../sql/index.js';
import { primeAllocator } from '../store/index.js';
import type { SqlFragment } from '../sql/index.js';

const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function onServer(serverUrl: string, statement: SqlFragment): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(compile(statement).text);
  } finally {
    await client.end();
  }
}

export async function createBenchDatabase(serverUrl = process.env.DATABASE_URL ?? DEFAULT_SERVER_URL): Promise<BenchDatabase> {
  const name = `tessera_bench_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, sql`CREATE DATABASE ${ident(name)}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(serverUrl, sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`),
  };
}

/**
 * A pool like the PostgreSQL store's: same size, same session time zone, each connection's
 * allocator primed as the store primes it, so the baselines' backends spend per statement what
 * the server's do (without it, a backend's cost per page depended on what it had run before).
 */
export function directPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, options: '-c TimeZone=UTC', onConnect: primeAllocator });
  // An idle client whose connection dies is dropped by the pool; the next checkout gets a new one.
  pool.on('error', () => undefined);
  return pool;
}
