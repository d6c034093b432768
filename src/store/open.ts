// Picks and opens a store: PostgreSQL when a database URL is given, else the embedded store
// persisted under the data directory (or in memory, for tests and throwaway runs). Each driver's
// module (pg, PGlite) loads only when that driver is chosen: a server loads one of them.

import { join } from 'node:path';
import { sql } from '../sql/index.js';
import type { Store } from './types.js';

export interface OpenStoreOptions {
  /** PostgreSQL connection string (`DATABASE_URL`); selects the PostgreSQL driver. */
  databaseUrl?: string;
  /** Directory of the embedded store; its database lives in `<dataDir>/pgdata`. */
  dataDir?: string;
  /** An in-memory embedded store, gone when closed. */
  memory?: boolean;
  /**
   * PostgreSQL: the statement timeout of calls that ask for none, in ms (default 10 s, an app's
   * default `statementTimeoutMs`; 0 for none). The embedded store cannot cancel statements.
   */
  statementTimeoutMs?: number;
  /** PostgreSQL: connections in the pool (default 10). */
  maxConnections?: number;
  /** PostgreSQL: statements a pooled connection serves before it is replaced (default CONNECTION_USES; 0: never). */
  connectionUses?: number;
  /** PostgreSQL: keep recurring statements prepared on each connection (default true). */
  preparedStatements?: boolean;
  /** PostgreSQL: connections of the pool kept as read lanes (default: the store's; see PostgresOptions.readLanes). */
  readLanes?: number | undefined;
  /** PostgreSQL: the cluster the database is, named in errors when it cannot be reached (default `main`). */
  cluster?: string;
  /** PostgreSQL: fail at once when the database cannot be reached (default true; false: connect on first use). */
  probe?: boolean;
}

/** Where the embedded store keeps its database inside a data directory. */
export function embeddedDatabaseDir(dataDir: string): string {
  return join(dataDir, 'pgdata');
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    const { PostgresStore } = await import('./postgres.js');
    const store = new PostgresStore({
      databaseUrl: options.databaseUrl,
      cluster: options.cluster ?? 'main',
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      ...(options.connectionUses === undefined ? {} : { connectionUses: options.connectionUses }),
      ...(options.preparedStatements === undefined ? {} : { preparedStatements: options.preparedStatements }),
      ...(options.readLanes === undefined ? {} : { readLanes: options.readLanes }),
    });
    // Fail at start-up, not on the first request, when the database cannot be reached.
    if (options.probe === false) return store;
    try {
      await store.query(sql`SELECT 1`);
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
  const { EmbeddedStore } = await import('./embedded.js');
  if (options.memory) return EmbeddedStore.open();
  if (!options.dataDir) throw new Error('openStore needs a databaseUrl, a dataDir or memory: true');
  return EmbeddedStore.open(embeddedDatabaseDir(options.dataDir));
}
