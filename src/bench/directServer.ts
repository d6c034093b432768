// The bench's handle on the direct-SQL server (directWorker.ts): where to send a statement's
// values, where its CPU time is read, and shutting it down.

import { Worker } from 'node:worker_threads';
import { nextMessage } from './benchServer.js';
import { post } from './client.js';
import type { Statement } from './dataShapes.js';
import type { DirectWorkerData, DirectWorkerMessage } from './directWorker.js';

export interface DirectServer {
  /** The server thread's /proc directory (undefined off Linux). */
  thread: string | undefined;
  /** Runs one statement through the server; the text is registered on first use. */
  run(statement: Statement): Promise<string>;
  close(): Promise<void>;
}

const SCRIPT = new URL('./directWorker.js', import.meta.url);

export async function startDirectServer(databaseUrl: string): Promise<DirectServer> {
  const worker = new Worker(SCRIPT, { workerData: { databaseUrl } satisfies DirectWorkerData });
  const next = nextMessage<DirectWorkerMessage>(worker);
  const listening = await next('listening');
  const base = `http://127.0.0.1:${listening.port}`;
  const keys = new Map<string, Promise<string>>();
  const register = async (text: string): Promise<string> => {
    const reply = await post(`${base}/statements`, '', text);
    if (reply.status !== 200) throw new Error(`direct server: HTTP ${reply.status} ${reply.text}`);
    return (JSON.parse(reply.text) as { key: string }).key;
  };
  return {
    thread: listening.thread,
    async run(statement) {
      let key = keys.get(statement.text);
      if (key === undefined) {
        key = register(statement.text);
        keys.set(statement.text, key);
      }
      const reply = await post(`${base}/run/${await key}`, '', JSON.stringify(statement.values));
      if (reply.status !== 200) throw new Error(`direct server: HTTP ${reply.status} ${reply.text.slice(0, 500)}`);
      return reply.text;
    },
    async close() {
      const closed = next('closed');
      worker.postMessage({ kind: 'close' });
      await closed;
      await worker.terminate();
    },
  };
}
