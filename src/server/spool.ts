// A request body kept in a private temporary file while the server works on it: an uploaded
// archive is read at the network's pace into the file, then imported from it at the store's.

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

export interface Spool {
  /** The file `fill` writes. */
  readonly path: string;
  /** Streams a body into the file: a new file, readable by this process's user only. */
  fill(body: NodeJS.ReadableStream): Promise<void>;
  /** Removes the file and its directory; more calls do nothing. */
  remove(): Promise<void>;
}

/** A spool in a directory of its own under the system's temporary one, named `<prefix>XXXXXX`. */
export async function createSpool(prefix: string): Promise<Spool> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const path = join(dir, 'body');
  return {
    path,
    fill: (body) => pipeline(body, createWriteStream(path, { flags: 'wx', mode: 0o600 })),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
