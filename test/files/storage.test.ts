// Both storage drivers against the real thing — a directory on disk and an S3-compatible
// server (s3rver) — through the one interface: streamed puts with size and SHA-256, ranged
// reads, the size limit enforced while streaming with nothing kept, a failing body leaving
// nothing, removal of one key and of an app's prefix.

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskStorage } from '../../src/files/index.js';
import type { BlobStorage } from '../../src/files/index.js';
import { startS3 } from './s3.js';
import type { TestS3 } from './s3.js';

const APP = 'a' + 'b'.repeat(11);
const key = () => `${APP}/${randomUUID()}`;

async function bytesOf(stream: Readable | null): Promise<Buffer | null> {
  if (!stream) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A body that yields `chunks` then fails. */
function failing(chunks: Buffer[]): Readable {
  return Readable.from(
    (async function* () {
      for (const c of chunks) yield c;
      throw new Error('client went away');
    })(),
  );
}

let s3: TestS3;
let dir: string;
beforeAll(async () => {
  s3 = await startS3();
  dir = await mkdtemp(join(tmpdir(), 'tessera-disk-'));
});
afterAll(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const DRIVERS: [string, () => BlobStorage][] = [
  ['disk', () => new DiskStorage(dir)],
  ['s3', () => s3.storage()],
];

describe.each(DRIVERS)('%s storage', (_name, make) => {
  it('stores a streamed body and reports its size and SHA-256', async () => {
    const storage = make();
    const body = randomBytes(7 * 1024 * 1024 + 13);
    const k = key();
    const stored = await storage.put(k, Readable.from([body.subarray(0, 1000), body.subarray(1000)]), 10 * 1024 * 1024);
    expect(stored).toEqual({ size: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    expect((await bytesOf(await storage.get(k)))?.equals(body)).toBe(true);
    expect((await bytesOf(await storage.get(k, { start: 10, end: 19 })))?.equals(body.subarray(10, 20))).toBe(true);
    await storage.close();
  });

  it('answers null for a key with nothing stored', async () => {
    const storage = make();
    expect(await storage.get(key())).toBeNull();
    await storage.close();
  });

  it('refuses a body over the limit with LIMIT_EXCEEDED and keeps nothing', async () => {
    const storage = make();
    const k = key();
    await expect(storage.put(k, Readable.from([randomBytes(600), randomBytes(600)]), 1000)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(await storage.get(k)).toBeNull();
    await storage.close();
  });

  it('keeps nothing of a body that fails half way', async () => {
    const storage = make();
    const k = key();
    await expect(storage.put(k, failing([randomBytes(6 * 1024 * 1024)]), 100 * 1024 * 1024)).rejects.toThrow();
    expect(await storage.get(k)).toBeNull();
    await storage.close();
  });

  it('removes one key, and every key of an app', async () => {
    const storage = make();
    const [a, b] = [key(), key()];
    await storage.put(a, Readable.from([Buffer.from('a')]), 10);
    await storage.put(b, Readable.from([Buffer.from('b')]), 10);
    await storage.remove(a);
    await storage.remove(a); // removing what is gone succeeds
    expect(await storage.get(a)).toBeNull();
    expect(await text((await storage.get(b)) as Readable)).toBe('b');
    const other = `${'c'.repeat(12)}/${randomUUID()}`;
    await storage.put(other, Readable.from([Buffer.from('c')]), 10);
    await storage.removePrefix(`${APP}/`);
    expect(await storage.get(b)).toBeNull();
    expect(await text((await storage.get(other)) as Readable)).toBe('c');
    await storage.close();
  });

  it('refuses keys that are not <appId>/<uuid>', async () => {
    const storage = make();
    await expect(storage.get('../etc/passwd')).rejects.toThrow(/not a file key/);
    await expect(storage.put(`${APP}/../x`, Readable.from([]), 10)).rejects.toThrow(/not a file key/);
    await expect(storage.removePrefix('')).rejects.toThrow(/not a key prefix/);
    await storage.close();
  });
});

describe('disk storage', () => {
  it('leaves no temporary file behind after a refused upload', async () => {
    const storage = new DiskStorage(dir);
    const k = key();
    await expect(storage.put(k, Readable.from([randomBytes(2000)]), 1000)).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((await readdir(join(dir, APP))).filter((n) => n.endsWith('.part'))).toEqual([]);
  });
});
