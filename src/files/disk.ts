// Local disk storage under `<data dir>/files`: one file per key, written to a temporary name in
// the same directory and renamed into place once complete, so a reader never sees half a file
// and a failed upload leaves only a temporary file, removed at once.

import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Meter } from './meter.js';
import { checkKey, checkPrefix } from './storage.js';
import type { BlobStorage, ByteRange, StoredBlob } from './storage.js';

export class DiskStorage implements BlobStorage {
  readonly kind = 'disk';
  constructor(readonly root: string) {}

  #path(key: string): string {
    checkKey(key);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Readable, maxBytes: number): Promise<StoredBlob> {
    const path = this.#path(key);
    const dir = join(path, '..');
    await mkdir(dir, { recursive: true });
    const temp = join(dir, `.${randomUUID()}.part`);
    const meter = new Meter(maxBytes);
    const out = createWriteStream(temp, { flags: 'wx' });
    try {
      await pipeline(body, meter, out);
      await rename(temp, path);
    } catch (err) {
      body.destroy();
      // A body that fails early can fail the pipeline while the temporary file is still being
      // opened; the stream opens it, then closes it. Removed only after that, or it would stay.
      if (!out.closed) await once(out, 'close').catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    }
    return meter.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    const path = this.#path(key);
    try {
      await stat(path);
    } catch {
      return null;
    }
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  async size(key: string): Promise<number | null> {
    const path = this.#path(key);
    try {
      return (await stat(path)).size;
    } catch {
      return null;
    }
  }

  async copy(from: string, to: string): Promise<void> {
    const source = this.#path(from);
    const path = this.#path(to);
    const dir = join(path, '..');
    await mkdir(dir, { recursive: true });
    const temp = join(dir, `.${randomUUID()}.part`);
    try {
      await copyFile(source, temp);
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async count(prefix: string, atMost: number): Promise<number> {
    checkPrefix(prefix);
    const names = await readdir(join(this.root, ...prefix.slice(0, -1).split('/'))).catch(() => [] as string[]);
    // Temporary files of puts under way (`.<uuid>.part`) are not stored keys.
    return Math.min(atMost, names.filter((name) => !name.startsWith('.')).length);
  }

  async removePrefix(prefix: string): Promise<void> {
    checkPrefix(prefix);
    await rm(join(this.root, prefix.slice(0, -1)), { recursive: true, force: true });
  }

  async close(): Promise<void> {}
}
