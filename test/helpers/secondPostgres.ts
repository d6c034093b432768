// A PostgreSQL server of the test's own (initdb + pg_ctl from the PostgreSQL 15 binaries, as
// user postgres, in a temporary directory, on a free port), which can be stopped and started
// again like a cluster going down; `close` stops it and removes everything.

import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = process.env.TESSERA_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface SecondPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary as user postgres (root may not run the server). */
async function asPostgres(binary: string, args: string[]): Promise<void> {
  const root = process.getuid?.() === 0;
  const [command, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(BIN, binary), ...args]] : [join(BIN, binary), args];
  await run(command, argv, { timeout: 60_000 });
}

export async function startSecondPostgres(): Promise<SecondPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=16MB`;
  const start = () => asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const stop = () => asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (!running) return;
      await stop();
      running = false;
    },
    async start() {
      if (running) return;
      await start();
      running = true;
    },
    async close() {
      if (running) await stop().catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
