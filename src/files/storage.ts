// The one small interface file bytes are kept behind, and the two drivers' shared rules: keys
// are `<appId>/<fileId>` (store: fileKey) and, for an image variant of that file,
// `<appId>/<fileId>.variants/<name>.<format>` (variants.ts); a put streams (never holding the
// whole body) and keeps nothing of a body that failed or went over its limit.

import type { Readable } from 'node:stream';

/** What a completed put stored. */
export interface StoredBlob {
  size: number;
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: string;
}

/** A byte range to read, both ends inclusive (HTTP's `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStorage {
  /** `disk` or `s3`, for logs and the benchmark. */
  readonly kind: 'disk' | 's3';
  /**
   * Streams `body` under `key`, hashing it as it goes. More than `maxBytes` bytes rejects with
   * LIMIT_EXCEEDED; any failure (the limit, the body erroring, the store) leaves nothing
   * stored under `key`.
   */
  put(key: string, body: Readable, maxBytes: number): Promise<StoredBlob>;
  /** The bytes under `key` (or `range` of them); null when nothing is stored there. */
  get(key: string, range?: ByteRange): Promise<Readable | null>;
  /** How many bytes are stored under `key`; null when nothing is. */
  size(key: string): Promise<number | null>;
  /** Copies the bytes under `from` to `to` inside the store (a forked app's files); rejects when `from` holds none. */
  copy(from: string, to: string): Promise<void>;
  /** Removes `key`; removing what is not there succeeds. */
  remove(key: string): Promise<void>;
  /** How many keys start with `prefix` (a file's variants' `<appId>/<fileId>.variants/`), counted up to `atMost`. */
  count(prefix: string, atMost: number): Promise<number>;
  /** Removes every key starting with `prefix` (an app's `<appId>/`, a file's variants' `<appId>/<fileId>.variants/`). */
  removePrefix(prefix: string): Promise<void>;
  /** Releases connections; pending calls may fail. */
  close(): Promise<void>;
}

const KEY = /^[a-z][a-z0-9]{11}\/[0-9a-f-]{36}(?:\.variants\/[a-z0-9-]{1,40}\.(?:jpeg|png|webp|avif|gif))?$/;
const PREFIX = /^[a-z][a-z0-9]{11}\/(?:[0-9a-f-]{36}\.variants\/)?$/;

/** Keys reach paths and object names: only the forms the catalog's fileKey and variantKey make are ever used. */
export function checkKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`not a file key: ${JSON.stringify(key)}`);
}

export function checkPrefix(prefix: string): void {
  if (!PREFIX.test(prefix)) throw new Error(`not a key prefix: ${JSON.stringify(prefix)}`);
}
