// The stream every upload passes through on its way to storage: it counts and hashes the
// bytes as they go by and fails the stream as soon as there are more than the limit allows.

import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { limitExceeded } from '../errors/index.js';
import type { StoredBlob } from './storage.js';

export class Meter extends Transform {
  #hash = createHash('sha256');
  #size = 0;
  constructor(readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) {
      done(tooBig(this.maxBytes));
      return;
    }
    this.#hash.update(chunk);
    done(null, chunk);
  }

  /** Size and digest once the stream has ended. */
  result(): StoredBlob {
    return { size: this.#size, sha256: this.#hash.digest('hex') };
  }
}

export function tooBig(maxBytes: number) {
  return limitExceeded(`The file is larger than this app's maxFileSize (${maxBytes} bytes)`, 413);
}
