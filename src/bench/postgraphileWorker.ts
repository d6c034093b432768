// PostGraphile v4 as a peer in the `peers` benchmark: its HTTP handler on a bare node:http
// server in a worker thread of its own (as the Tessera server under test and the direct-SQL
// server are), over the benchmark app's PostgreSQL schema, with a pool like theirs. It is loaded
// from the directory the benchmark installed it into (peerPostGraphile.ts), not from the project's
// dependencies, and runs with the options PostGraphile's documentation recommends for
// production, plus the connection-filter plugin for the filtered read.

import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { ownThreadPath } from './cpu.js';
import { directPool } from './database.js';
import type { PeerWorkerMessage } from './peers.js';

export interface PostGraphileWorkerData {
  databaseUrl: string;
  /** The app's PostgreSQL schema. */
  schema: string;
  /** Where `postgraphile` and its filter plugin are installed. */
  modules: string;
}


type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

interface PostGraphileModule {
  postgraphile(pool: unknown, schema: string, options: Record<string, unknown>): Handler;
}

const port = parentPort;
if (!port) throw new Error('postgraphileWorker runs as a worker thread');
const { databaseUrl, schema, modules } = workerData as PostGraphileWorkerData;
const load = createRequire(join(modules, 'package.json'));
const { postgraphile } = load('postgraphile') as PostGraphileModule;
const filterPlugin = load('postgraphile-plugin-connection-filter') as unknown;
const pool = directPool(databaseUrl);

const handler = postgraphile(pool, schema, {
  appendPlugins: [filterPlugin],
  dynamicJson: true,
  setofFunctionsContainNulls: false,
  ignoreRBAC: false,
  extendedErrors: ['errcode'],
  graphiql: false,
  enableQueryBatching: true,
  disableQueryLog: true,
  legacyRelations: 'omit',
  watchPg: false,
  retryOnInitFail: false,
});

const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('PostGraphile did not listen on a TCP port');
  port.postMessage({ kind: 'listening', port: address.port, thread: ownThreadPath() } satisfies PeerWorkerMessage);
});

port.on('message', (request: { kind: 'close' }) => {
  if (request.kind !== 'close') return;
  server.closeAllConnections();
  server.close();
  void pool.end().then(() => {
    port.postMessage({ kind: 'closed' } satisfies PeerWorkerMessage);
    port.close();
  });
});
