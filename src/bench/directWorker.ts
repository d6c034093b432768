// The direct-SQL baseline as a server: what a hand-written endpoint for one query would be. A
// bare node:http server in a worker thread of its own (as the Tessera server under test is),
// a `pg` pool sized like the store's, and for each request one named prepared statement whose
// answer PostgreSQL builds (or, for a write, the returned row serialised). No framework, no
// logging, no checks: the floor a GraphQL server on the same driver could reach.
//
//   POST /statements   body: the SQL text              → {"key":"<n>"}
//   POST /run/<n>      body: JSON array of its values  → {"data":<the answer>}

import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { ownThreadPath } from './cpu.js';
import { directPool } from './database.js';

export interface DirectWorkerData {
  databaseUrl: string;
}

export type DirectWorkerMessage = { kind: 'listening'; port: number; thread: string | undefined } | { kind: 'closed' };

const port = parentPort;
if (!port) throw new Error('directWorker runs as a worker thread');
const { databaseUrl } = workerData as DirectWorkerData;
const pool = directPool(databaseUrl);
/** The registered texts; a statement's name is `direct_<key>`. */
const texts: string[] = [];

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: http.ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** A one-row answer: a read's JSON text (column `v`) as it is, a write's row serialised. */
function answer(row: Record<string, unknown>): string {
  return typeof row.v === 'string' ? row.v : JSON.stringify(row);
}

async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const body = await readBody(request);
  const url = request.url ?? '';
  if (request.method === 'POST' && url === '/statements') {
    texts.push(body);
    return reply(response, 200, JSON.stringify({ key: String(texts.length - 1) }));
  }
  const key = url.startsWith('/run/') ? Number(url.slice('/run/'.length)) : Number.NaN;
  const text = texts[key];
  if (request.method !== 'POST' || text === undefined) return reply(response, 404, '{"error":"no such statement"}');
  const result = await pool.query({ name: `direct_${key}`, text, values: JSON.parse(body) as unknown[] });
  const row = result.rows[0] as Record<string, unknown> | undefined;
  if (result.rowCount !== 1 || row === undefined) return reply(response, 500, JSON.stringify({ error: `${result.rowCount} rows` }));
  reply(response, 200, `{"data":${answer(row)}}`);
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  handle(request, response).catch((err: unknown) => reply(response, 500, JSON.stringify({ error: String(err) })));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('direct server did not listen on a TCP port');
  port.postMessage({ kind: 'listening', port: address.port, thread: ownThreadPath() } satisfies DirectWorkerMessage);
});

port.on('message', (request: { kind: 'close' }) => {
  if (request.kind !== 'close') return;
  server.closeAllConnections();
  server.close();
  void pool.end().then(() => {
    port.postMessage({ kind: 'closed' } satisfies DirectWorkerMessage);
    port.close();
  });
});
