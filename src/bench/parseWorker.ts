// Parse Server as a peer in the `peers` benchmark: its REST API and its GraphQL API on the
// Express app it is built on, on a node:http server in a worker thread of its own (as the
// other servers measured are), over a database of its own. Loaded from the directory the
// benchmark installed it into (peerParse.ts), not from the project's dependencies. No Cloud Code,
// no live queries, no file-based logs.

import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { ownThreadPath } from './cpu.js';
import type { PeerWorkerMessage } from './peers.js';

export interface ParseWorkerData {
  databaseUrl: string;
  /** Where `parse-server` is installed. */
  modules: string;
  appId: string;
  masterKey: string;
}

type Handler = ((request: http.IncomingMessage, response: http.ServerResponse) => void) & { use(path: string, handler: unknown): void };

interface ParseServerInstance {
  start(): Promise<unknown>;
  app: unknown;
}

interface ParseModule {
  ParseServer: new (options: Record<string, unknown>) => ParseServerInstance;
  ParseGraphQLServer: new (server: ParseServerInstance, options: Record<string, unknown>) => { applyGraphQL(app: unknown): void };
}

const port = parentPort;
if (!port) throw new Error('parseWorker runs as a worker thread');
const { databaseUrl, modules, appId, masterKey } = workerData as ParseWorkerData;
const load = createRequire(join(modules, 'package.json'));
const { ParseServer, ParseGraphQLServer } = load('parse-server') as ParseModule;
// Parse Server is built on Express and brings its own.
const express = createRequire(load.resolve('parse-server'))('express') as () => Handler;

const app = express();
const server = http.createServer({ keepAliveTimeout: 60_000 }, app);
let parse: ParseServerInstance | undefined;

async function start(): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('Parse Server did not listen on a TCP port');
  parse = new ParseServer({
    databaseURI: databaseUrl,
    appId,
    masterKey,
    serverURL: `http://127.0.0.1:${address.port}/parse`,
    logLevel: 'error',
    allowClientClassCreation: false,
  });
  await parse.start();
  app.use('/parse', parse.app);
  new ParseGraphQLServer(parse, { graphQLPath: '/graphql' }).applyGraphQL(app);
  port?.postMessage({ kind: 'listening', port: address.port, thread: ownThreadPath() } satisfies PeerWorkerMessage);
}

// A failure to start rejects unhandled, which ends the worker with an error the benchmark reports.
void start();

port.on('message', (request: { kind: 'close' }) => {
  if (request.kind !== 'close') return;
  // Parse's own shutdown closes the HTTP server it starts itself, which this one is not; its
  // database connections end with the worker, and the database is dropped after it.
  server.closeAllConnections();
  server.close(() => {
    port.postMessage({ kind: 'closed' } satisfies PeerWorkerMessage);
    port.close();
  });
});
