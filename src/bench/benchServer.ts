// The main thread's handle on the benchmark's server worker: its base URL and platform key,
// the thread to charge its CPU time to, and shutting it down.

import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { generatePlatformKey } from '../server/index.js';
import type { LogLevel } from '../server/index.js';
import type { ServerWorkerData, ServerWorkerMessage } from './serverWorker.js';

export interface BenchServer {
  base: string;
  key: string;
  /** The server thread's /proc directory (undefined off Linux). */
  thread: string | undefined;
  close(): Promise<void>;
}

/** The worker's next message, which must be of `kind`; a worker that dies rejects instead. */
async function next<K extends ServerWorkerMessage['kind']>(worker: Worker, kind: K): Promise<Extract<ServerWorkerMessage, { kind: K }>> {
  const [message] = (await once(worker, 'message')) as [ServerWorkerMessage];
  if (message.kind !== kind) throw new Error(`server worker said ${message.kind}, expected ${kind}`);
  return message as Extract<ServerWorkerMessage, { kind: K }>;
}

export async function startBenchServer(databaseUrl: string, logLevel: LogLevel): Promise<BenchServer> {
  const key = generatePlatformKey();
  const workerData: ServerWorkerData = { databaseUrl, adminKey: key, logLevel };
  const worker = new Worker(new URL('./serverWorker.js', import.meta.url), { workerData });
  const { port, thread } = await next(worker, 'listening');
  return {
    base: `http://127.0.0.1:${port}`,
    key,
    thread,
    async close() {
      worker.postMessage('close');
      await next(worker, 'closed');
      await worker.terminate();
    },
  };
}
