// The bench's handle on its server (serverWorker.ts, in a worker thread or a child process): its
// base URL and platform key, where its CPU time is read, its memory, and shutting it down.

import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { generatePlatformKey } from '../server/index.js';
import type { LogLevel } from '../server/index.js';
import type { ServerMemory, ServerWorkerData, ServerWorkerMessage, ServerWorkerRequest } from './serverWorker.js';

export interface BenchServer {
  base: string;
  key: string;
  /** The server's /proc directory for its CPU time: its thread, or its process (undefined off Linux). */
  thread: string | undefined;
  /** The server's memory; in a worker thread `rss` is the whole process's. */
  memory(): Promise<ServerMemory>;
  close(): Promise<void>;
}

export interface BenchServerOptions {
  /**
   * Run the server in a child process (started with --expose-gc) rather than a worker thread,
   * so that its memory is its own.
   */
  process?: boolean;
  /** The server's TESSERA_APP_CACHE_MB (default: the server's default). */
  appCacheMb?: number;
  /** The platform key (default: a new one), so that a restarted server takes the same. */
  key?: string;
}

/** The server's store: a PostgreSQL database, or the embedded store in a directory. */
export type BenchStore = string | { dataDir: string };

const SCRIPT = new URL('./serverWorker.js', import.meta.url);

/**
 * The server's environment: the bench's, in production mode as the Docker image runs it (graphql-js
 * then skips a check it makes in development on every type test, against a second copy of
 * itself), unless NODE_ENV is set.
 */
function serverEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
}

/** Either kind of server: both send messages and say when they end. */
export type Host = Worker | ChildProcess;

/**
 * A worker's or child's next message, which must be of `kind`; one that dies first rejects
 * instead. Typed by the messages `M` the host sends (also the direct-SQL server's).
 */
export function nextMessage<M extends { kind: string }>(host: Host) {
  return <K extends M['kind']>(kind: K): Promise<Extract<M, { kind: K }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: M) => {
        done();
        if (message.kind === kind) resolve(message as Extract<M, { kind: K }>);
        else reject(new Error(`bench server said ${message.kind}, expected ${kind}`));
      };
      const onError = (err: Error) => {
        done();
        reject(err);
      };
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`bench server exited (${code}) before it said ${kind}`));
      };
      const done = () => {
        host.off('message', onMessage);
        host.off('error', onError);
        host.off('exit', onExit);
      };
      host.on('message', onMessage);
      host.on('error', onError);
      host.on('exit', onExit);
    });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Extra Node.js options for a server in a child process, from TESSERA_BENCH_SERVER_NODE_ARGS
 * (space-separated): `--cpu-prof --cpu-prof-dir=/tmp/prof` profiles the server alone, which
 * NODE_OPTIONS cannot ask for.
 */
function serverNodeArgs(): string[] {
  return (process.env.TESSERA_BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
}

export async function startBenchServer(store: BenchStore, logLevel: LogLevel, options: BenchServerOptions = {}): Promise<BenchServer> {
  const key = options.key ?? generatePlatformKey();
  const data: ServerWorkerData = { ...(typeof store === 'string' ? { databaseUrl: store } : store), adminKey: key, logLevel, appCacheMb: options.appCacheMb };
  let host: Host;
  let send: (request: ServerWorkerRequest) => void;
  let stop: () => Promise<void>;
  if (options.process) {
    const child = fork(SCRIPT, [], { execArgv: ['--expose-gc', ...serverNodeArgs()], env: serverEnv(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    host = child;
    send = (request) => void child.send(request);
    stop = async () => {
      // The child exits once its server and store are closed; a stuck one is ended.
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited(child);
      clearTimeout(timer);
    };
    send({ kind: 'start', data });
  } else {
    const worker = new Worker(SCRIPT, { workerData: data, env: serverEnv() });
    host = worker;
    send = (request) => worker.postMessage(request);
    stop = async () => void (await worker.terminate());
  }
  const next = nextMessage<ServerWorkerMessage>(host);
  const { port, thread } = await next('listening');
  return {
    base: `http://127.0.0.1:${port}`,
    key,
    thread,
    async memory() {
      const reply = next('memory');
      send({ kind: 'memory' });
      return (await reply).memory;
    },
    async close() {
      const reply = next('closed');
      send({ kind: 'close' });
      await reply;
      await stop();
    },
  };
}
