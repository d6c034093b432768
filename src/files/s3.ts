// S3-compatible object storage through the AWS SDK: uploads stream as a multipart upload
// (@aws-sdk/lib-storage, a few parts in memory at a time), reads are ranged GETs, and an app's
// objects go with one listing and batched deletes. Credentials come from the SDK's usual chain
// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles) unless given.

import { CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { Meter } from './meter.js';
import { checkKey, checkPrefix } from './storage.js';
import type { BlobStorage, ByteRange, StoredBlob } from './storage.js';

export interface S3Options {
  bucket: string;
  /** An S3-compatible endpoint (`http://minio:9000`); absent: AWS itself. */
  endpoint?: string | undefined;
  region?: string | undefined;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible stores want. */
  forcePathStyle?: boolean | undefined;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** Bytes per part of a multipart upload: S3's smallest, so an upload holds little in memory. */
const PART_SIZE = 5 * 1024 * 1024;

export class S3Storage implements BlobStorage {
  readonly kind = 's3';
  readonly #client: S3Client;
  readonly #bucket: string;

  constructor(options: S3Options) {
    const config: S3ClientConfig = {
      region: options.region ?? 'us-east-1',
      forcePathStyle: options.forcePathStyle ?? false,
      // A store that is down answers within seconds; the removal worker retries later.
      maxAttempts: 2,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    };
    this.#client = new S3Client(config);
    this.#bucket = options.bucket;
  }

  async put(key: string, body: Readable, maxBytes: number): Promise<StoredBlob> {
    checkKey(key);
    const meter = new Meter(maxBytes);
    body.on('error', (err) => meter.destroy(err));
    body.pipe(meter);
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: key, Body: meter },
      partSize: PART_SIZE,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      body.destroy();
      meter.destroy();
      // A multipart upload is aborted by the SDK; a single-part one may have landed whole.
      await this.remove(key).catch(() => undefined);
      throw meter.errored ?? err;
    }
    return meter.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    checkKey(key);
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return (answer.Body as Readable | undefined) ?? null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    checkKey(key);
    try {
      const answer = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return answer.ContentLength ?? null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async copy(from: string, to: string): Promise<void> {
    checkKey(from);
    checkKey(to);
    // Keys hold only [a-z0-9/-]: the copy source needs no escaping.
    await this.#client.send(new CopyObjectCommand({ Bucket: this.#bucket, Key: to, CopySource: `${this.#bucket}/${from}` }));
  }

  async remove(key: string): Promise<void> {
    checkKey(key);
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  async count(prefix: string, atMost: number): Promise<number> {
    checkPrefix(prefix);
    const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, MaxKeys: atMost }));
    return Math.min(atMost, listed.KeyCount ?? listed.Contents?.length ?? 0);
  }

  async removePrefix(prefix: string): Promise<void> {
    checkPrefix(prefix);
    for (;;) {
      const listed = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, MaxKeys: 1000 }));
      const keys = (listed.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length === 0) return;
      await this.#client.send(new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: keys, Quiet: true } }));
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}
