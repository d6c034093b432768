// A Tessera server for the benchmarks, apart from the load generator that measures it: in a
// worker thread (an event loop of its own) or in a child process (memory of its own, too).

import { parentPort, workerData } from 'node:worker_threads';
import { createAdminService } from '../admin/index.js';
import { createServer, loadConfig } from '../server/index.js';
import type { LogLevel } from '../server/index.js';
import { ensureCatalog, openStore } from '../store/index.js';
import { ownThreadPath } from './cpu.js';

export interface ServerWorkerData {
  /** The server's PostgreSQL database; without it, the embedded store in `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  adminKey: string;
  logLevel: LogLevel;
  /** TESSERA_APP_CACHE_MB (default: the server's). */
  appCacheMb?: number | undefined;
}

/** The server's memory as `process.memoryUsage()` reports it, in bytes. */
export interface ServerMemory {
  rss: number;
  heapUsed: number;
  external: number;
  /** Whether a full garbage collection ran just before (the process runs with --expose-gc). */
  collected: boolean;
}

/** From the bench to the server; a child process gets its data in the first message. */
export type ServerWorkerRequest = { kind: 'start'; data: ServerWorkerData } | { kind: 'memory' } | { kind: 'close' };

/** `thread`: the /proc directory whose CPU time is the server's (its thread, or its whole process). */
export type ServerWorkerMessage =
  | { kind: 'listening'; port: number; thread: string | undefined }
  | { kind: 'memory'; memory: ServerMemory }
  | { kind: 'closed' };

interface Parent {
  post(message: ServerWorkerMessage): void;
  on(handler: (request: ServerWorkerRequest) => void): void;
  close(): void;
}

async function connect(): Promise<{ parent: Parent; data: ServerWorkerData; thread: string | undefined }> {
  const port = parentPort;
  if (port) {
    return {
      parent: { post: (m) => port.postMessage(m), on: (h) => port.on('message', h), close: () => port.close() },
      data: workerData as ServerWorkerData,
      thread: ownThreadPath(),
    };
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('serverWorker runs as a worker thread or a forked child process');
  const data = await new Promise<ServerWorkerData>((resolve) => {
    process.once('message', (m: ServerWorkerRequest) => {
      if (m.kind === 'start') resolve(m.data);
    });
  });
  return {
    parent: { post: (m) => send(m), on: (h) => process.on('message', h), close: () => process.disconnect() },
    data,
    thread: `/proc/${process.pid}`,
  };
}

/** Memory after a full collection when the process allows one, after a short settle otherwise. */
async function memory(): Promise<ServerMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
  } else {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external, collected: gc !== undefined };
}

const { parent, data, thread } = await connect();
// TESSERA_DB_PREPARED_STATEMENTS=off measures the server without prepared statements,
// TESSERA_DB_READ_LANES=0 without read lanes.
const { dbPreparedStatements: preparedStatements, dbReadLanes: readLanes } = loadConfig({}, process.env);
const store = await openStore(data.databaseUrl !== undefined ? { databaseUrl: data.databaseUrl, preparedStatements, readLanes } : { dataDir: data.dataDir });
await ensureCatalog(store);
const app = createServer({
  store,
  admin: createAdminService(store),
  adminKey: data.adminKey,
  logLevel: data.logLevel,
  appCacheBytes: data.appCacheMb === undefined ? undefined : data.appCacheMb * 1024 * 1024,
  // Lines are formatted as in production, then dropped: the figures include logging, not a terminal.
  logDestination: { write: () => undefined },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('server did not listen on a TCP port');
parent.post({ kind: 'listening', port: address.port, thread });

parent.on((request) => {
  switch (request.kind) {
    case 'start':
      return;
    case 'memory':
      void memory().then((m) => parent.post({ kind: 'memory', memory: m }));
      return;
    case 'close':
      void (async () => {
        await app.close();
        await store.close();
        parent.post({ kind: 'closed' });
        parent.close();
      })();
      return;
    default: {
      const never: never = request;
      throw new Error(`unknown request ${JSON.stringify(never)}`);
    }
  }
});
