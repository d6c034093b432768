// A real S3-compatible server (s3rver) for the file tests: started on an ephemeral port over a
// temporary directory, with one bucket; it can be stopped and started again on the same port
// and directory, as a store that is down for a while. It runs as a child process
// (s3rverProcess.mjs) so that an error inside s3rver cannot land in the test process.

import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { S3Storage } from '../../src/files/s3.js';

export const S3_BUCKET = 'tessera-files';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const SCRIPT = join(import.meta.dirname, 's3rverProcess.mjs');

interface Running {
  child: ChildProcessWithoutNullStreams;
  port: number;
  exited: Promise<void>;
}

/** Starts s3rver on `port` (0: any) over `directory`, resolving once it prints its port. */
function launch(port: number, directory: string): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, String(port), directory, S3_BUCKET], { stdio: 'pipe' });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    // Kept for the error below; s3rver's own complaints while serving are of no interest.
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const end = stdout.indexOf('\n');
      if (end >= 0) resolve({ child, exited, port: (JSON.parse(stdout.slice(0, end)) as { port: number }).port });
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`s3rver exited (${code ?? signal}) before listening: ${stderr}`)));
  });
}

export interface TestS3 {
  endpoint: string;
  directory: string;
  /** A storage driver against this server. */
  storage(): S3Storage;
  stop(): Promise<void>;
  /** Starts it again on the same port and directory. */
  start(): Promise<void>;
  /** The object keys under a prefix. */
  keys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'tessera-s3-'));
  let port = 0;
  let running: Running | undefined;
  const start = async () => {
    running = await launch(port, directory);
    port = running.port;
  };
  try {
    await start();
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const stopping = running;
    running = undefined;
    if (!stopping) return;
    stopping.child.kill('SIGTERM');
    await stopping.exited;
  };
  return {
    endpoint,
    directory,
    storage: () => new S3Storage({ bucket: S3_BUCKET, endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS }),
    stop,
    start,
    async keys(prefix) {
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: prefix }));
        return (listed.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
      } finally {
        client.destroy();
      }
    },
    async close() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
