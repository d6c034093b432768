// Writes an app archive: lines of JSON into a gzip stream, counted and hashed as they go, and
// the `end` trailer that lets a reader detect a truncated or altered archive. Memory stays flat:
// lines are gathered into chunks of about 64 KiB and every write waits for the reader.

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import type { Gzip } from 'node:zlib';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION } from './records.js';
import type { ArchiveRecord, EndRecord, HeaderRecord } from './records.js';

const CHUNK_CHARS = 64 * 1024;

export interface ArchiveWriterOptions {
  /** zlib level, 1 (fastest) to 9 (smallest); default 3, where export runs near the database's own pace. */
  level?: number;
}

export class ArchiveWriter {
  readonly #gzip: Gzip;
  readonly #hash = createHash('sha256');
  readonly #rows: Record<string, number> = {};
  #table: string | undefined;
  #lines = 0;
  #buffer = '';
  #failure: Error | undefined;

  constructor(options: ArchiveWriterOptions = {}) {
    this.#gzip = createGzip({ level: options.level ?? 3, flush: constants.Z_NO_FLUSH });
    // A reader that goes away (a closed download) ends the writing with an error.
    this.#gzip.on('error', (err) => (this.#failure ??= err));
    this.#gzip.on('close', () => (this.#failure ??= new Error('the archive stream was closed before the archive was complete')));
  }

  /** The compressed archive, to pipe where it goes. */
  get stream(): Readable {
    return this.#gzip;
  }

  /** Rows written so far, over every table. */
  get rowCount(): number {
    return Object.values(this.#rows).reduce((a, b) => a + b, 0);
  }

  async header(fields: Omit<HeaderRecord, 'kind' | 'format' | 'version'>): Promise<void> {
    await this.record({ kind: 'header', format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, ...fields });
  }

  /** A record line; a `table` record makes the rows that follow that table's. */
  async record(record: Exclude<ArchiveRecord, EndRecord>): Promise<void> {
    if (record.kind === 'table') {
      if (record.name in this.#rows) throw new Error(`table ${record.name} is already in the archive`);
      this.#table = record.name;
      this.#rows[record.name] = 0;
    } else {
      this.#table = undefined;
    }
    await this.#line(JSON.stringify(record));
  }

  /** A row of the current table, as the text of a JSON array of its values. */
  async row(json: string): Promise<void> {
    const table = this.#table;
    if (table === undefined) throw new Error('a row must follow its table record');
    this.#rows[table] = (this.#rows[table] ?? 0) + 1;
    await this.#line(json);
  }

  /** Rows of the current table, each the text of a JSON array: one wait at most per chunk. */
  async rows(texts: readonly string[]): Promise<void> {
    const table = this.#table;
    if (table === undefined) throw new Error('a row must follow its table record');
    if (this.#failure) throw this.#failure;
    this.#rows[table] = (this.#rows[table] ?? 0) + texts.length;
    for (const text of texts) {
      this.#lines += 1;
      this.#buffer += `${text}\n`;
      if (this.#buffer.length >= CHUNK_CHARS) await this.#flush();
    }
  }

  /** Writes the trailer and ends the stream once everything is flushed; what the trailer says. */
  async end(): Promise<EndRecord> {
    await this.#flush();
    const end: EndRecord = { kind: 'end', lines: this.#lines, rows: { ...this.#rows }, sha256: this.#hash.digest('hex') };
    // 'finish': every byte is compressed and queued for the reader (which may still be reading).
    const finished = new Promise<void>((resolve, reject) => {
      this.#gzip.once('finish', resolve);
      this.#gzip.once('error', reject);
    });
    this.#gzip.end(`${JSON.stringify(end)}\n`);
    await finished;
    return end;
  }

  /** Ends the archive unfinished: a reader sees a truncated archive, never a complete one. */
  abort(err: Error): void {
    this.#failure ??= err;
    this.#gzip.destroy(err);
  }

  async #line(text: string): Promise<void> {
    if (this.#failure) throw this.#failure;
    this.#lines += 1;
    this.#buffer += `${text}\n`;
    if (this.#buffer.length >= CHUNK_CHARS) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (this.#buffer === '') return;
    const chunk = Buffer.from(this.#buffer, 'utf8');
    this.#buffer = '';
    this.#hash.update(chunk);
    if (this.#gzip.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        this.#gzip.off('drain', done);
        this.#gzip.off('close', done);
        if (this.#failure) reject(this.#failure);
        else resolve();
      };
      this.#gzip.on('drain', done);
      this.#gzip.on('close', done);
    });
  }
}
