// A Tessera server in a worker thread, for the data API benchmark: the server gets an event
// loop of its own, as in its own process, apart from the load generator that measures it.

import { parentPort, workerData } from 'node:worker_threads';
import { createAdminService } from '../admin/index.js';
import { createServer } from '../server/index.js';
import type { LogLevel } from '../server/index.js';
import { ensureCatalog, openStore } from '../store/index.js';
import { ownThreadPath } from './cpu.js';

export interface ServerWorkerData {
  databaseUrl: string;
  adminKey: string;
  logLevel: LogLevel;
}

/** `thread`: the worker's /proc directory, for its CPU time. */
export type ServerWorkerMessage = { kind: 'listening'; port: number; thread: string | undefined } | { kind: 'closed' };

const port = parentPort;
if (!port) throw new Error('serverWorker runs as a worker thread');
const data = workerData as ServerWorkerData;

const store = await openStore({ databaseUrl: data.databaseUrl });
await ensureCatalog(store);
const app = createServer({
  store,
  admin: createAdminService(store),
  adminKey: data.adminKey,
  logLevel: data.logLevel,
  // Lines are formatted as in production, then dropped: the figures include logging, not a terminal.
  logDestination: { write: () => undefined },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('server did not listen on a TCP port');
port.postMessage({ kind: 'listening', port: address.port, thread: ownThreadPath() } satisfies ServerWorkerMessage);

port.once('message', () => {
  void (async () => {
    await app.close();
    await store.close();
    port.postMessage({ kind: 'closed' } satisfies ServerWorkerMessage);
    port.close();
  })();
});
