// A real S3-compatible server (s3rver) for the file tests: started on an ephemeral port over a
// temporary directory, with one bucket; it can be stopped and started again on the same port
// and directory, as a store that is down for a while.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver ships no types; its constructor options and run/close are all the tests use.
// @ts-expect-error -- untyped package
import S3rver from 's3rver';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { S3Storage } from '../../src/files/s3.js';

export const S3_BUCKET = 'tessera-files';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
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
  let server: S3rverInstance | undefined;
  const start = async () => {
    const created: S3rverInstance = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: S3_BUCKET }] });
    const address = await created.run();
    port = address.port;
    server = created;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await server?.close();
    server = undefined;
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
