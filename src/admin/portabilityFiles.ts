// Files' bytes in exports, imports and forks (docs/portability.md). Export: each File row of the
// snapshot as a `file` record and its bytes, read from the store as a stream, in `fileChunk`
// records of 256 KiB. Import: the bytes streamed into the store under the new app's keys as the
// archive is read, each file checked against its record and its File row (walked alongside, in
// id order). Fork: the store copies each object. Bytes written for an app that is not created
// yet are queued for removal first and claimed by the transaction that creates it, so a failed
// import or fork leaves none behind, even if the server stops half way.

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import type { ArchiveWriter, FileChunkRecord, FileRecord } from '../archive/index.js';
import { TesseraError, badInput } from '../errors/index.js';
import type { AppModel } from '../model/index.js';
import { appFileKeyPrefix, claimUpload, expectAppFiles, fileKey, fileRowsStatement, releaseUpload, transactionCursor } from '../store/index.js';
import type { FileBytesRow, SnapshotCursor, Store, Transaction, TransactionCursor } from '../store/index.js';
import { sql } from '../sql/index.js';

/** Raw bytes per `fileChunk` record (about 350 KB of base64 on its line). */
export const FILE_CHUNK_BYTES = 256 * 1024;
/** File rows read from a cursor at a time. */
const FILE_BATCH = 500;
/**
 * How long bytes written for an app being imported or forked wait before they are removed as
 * an orphan (the server stopped half way); the creating transaction claims them long before.
 */
export const NEW_APP_FILES_GRACE_SECONDS = 24 * 3600;

/** What portability needs of the file store (the server's storage driver). */
export interface PortableStorage {
  get(key: string): Promise<Readable | null>;
  put(key: string, body: Readable, maxBytes: number): Promise<{ size: number; sha256: string }>;
  copy(from: string, to: string): Promise<void>;
  removePrefix(prefix: string): Promise<void>;
}

export interface PortableFiles {
  storage: PortableStorage;
  /** Removals were queued for now (the removal worker may look at once). */
  released?: (() => void) | undefined;
}

function noStorage(what: string): TesseraError {
  return new TesseraError('NOT_IMPLEMENTED', `${what}, and this server keeps no files (no file storage is configured)`);
}

/** Whether the app's File table holds a row. */
async function holdsFiles(tx: Transaction, appId: string, model: AppModel): Promise<boolean> {
  const statement = fileRowsStatement(appId, model);
  if (!statement) return false;
  const { rows } = await tx.query<{ held: boolean }>(sql`SELECT EXISTS (${statement}) AS held`);
  return rows[0]?.held === true;
}

/** Refuses an export or fork of an app holding files on a server that keeps none. */
export async function requireStorageFor(tx: Transaction, appId: string, model: AppModel, files: PortableFiles | undefined, what: string): Promise<void> {
  if (!files && (await holdsFiles(tx, appId, model))) throw noStorage(`This app holds files, so it cannot be ${what} here`);
}

/** A stream's bytes in pieces of `size` bytes (the last one shorter). */
async function* pieces(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let length = 0;
  for await (const chunk of source) {
    let data = chunk;
    while (length + data.length >= size) {
      const take = size - length;
      held.push(data.subarray(0, take));
      yield Buffer.concat(held);
      held = [];
      length = 0;
      data = data.subarray(take);
    }
    if (data.length > 0) {
      held.push(data);
      length += data.length;
    }
  }
  if (length > 0) yield Buffer.concat(held);
}

/** Writes the `file` and `fileChunk` records of every row of the cursor, its bytes read from the store. */
export async function writeFiles(writer: ArchiveWriter, storage: PortableStorage, appId: string, rows: SnapshotCursor<FileBytesRow>): Promise<void> {
  for (let batch = await rows.next(FILE_BATCH); batch.length > 0; batch = await rows.next(FILE_BATCH)) {
    for (const row of batch) {
      const body = await storage.get(fileKey(appId, row.id));
      // Deleted after the snapshot was taken, and its bytes removed since: the archive cannot be complete.
      if (!body) throw new Error(`the bytes of file ${row.id} are no longer in the file store (deleted while the export ran)`);
      try {
        await writer.record({ kind: 'file', id: row.id, size: row.size, sha256: row.sha256 });
        const hash = createHash('sha256');
        let size = 0;
        for await (const piece of pieces(body as AsyncIterable<Buffer>, FILE_CHUNK_BYTES)) {
          hash.update(piece);
          size += piece.length;
          await writer.record({ kind: 'fileChunk', id: row.id, data: piece.toString('base64') });
        }
        if (size !== row.size || hash.digest('hex') !== row.sha256) throw new Error(`the bytes of file ${row.id} in the file store do not match its row`);
      } finally {
        body.destroy();
      }
    }
  }
}

/**
 * Runs an import or a fork that may write bytes under the new app's prefix: an entry queued
 * beforehand removes them unless `run`'s transaction claims it (`claim(tx)`, as it creates the
 * app); when `run` fails they are removed at once (and the entry made due, should that fail).
 */
export async function withNewAppFiles<T>(store: Store, files: PortableFiles | undefined, appId: string, run: (claim: (tx: Transaction) => Promise<void>) => Promise<T>): Promise<T> {
  if (!files) return run(async () => undefined);
  const prefix = appFileKeyPrefix(appId);
  await expectAppFiles(store, appId, NEW_APP_FILES_GRACE_SECONDS);
  try {
    return await run(async (tx) => {
      if (!(await claimUpload(tx, appId, prefix))) throw new Error('the bytes written for the new app were removed before it was created (it took longer than the grace period)');
    });
  } catch (err) {
    await files.storage.removePrefix(prefix).catch(() => undefined);
    await releaseUpload(store, appId, prefix).catch(() => undefined);
    files.released?.();
    throw err;
  }
}

/** Copies the bytes of every File row of `toApp` (rows just copied from `fromApp`) inside the store. */
export async function copyFiles(tx: Transaction, storage: PortableStorage, fromApp: string, toApp: string, model: AppModel): Promise<void> {
  const statement = fileRowsStatement(toApp, model);
  if (!statement) return;
  const rows = await transactionCursor<FileBytesRow>(tx, statement);
  for (let batch = await rows.next(FILE_BATCH); batch.length > 0; batch = await rows.next(FILE_BATCH)) {
    for (const row of batch) await storage.copy(fileKey(fromApp, row.id), fileKey(toApp, row.id));
  }
  await rows.close();
}

function atLine(message: string, line: number): TesseraError {
  return badInput(`The archive is not valid at line ${line}: ${message}`, { archive: { line } });
}

interface Incoming {
  record: FileRecord;
  line: number;
  body: PassThrough;
  put: Promise<{ size: number; sha256: string }>;
  written: number;
}

/**
 * The `file` and `fileChunk` records of an archive being imported: each file's bytes streamed
 * into the store under the new app's key, checked against its record (size, SHA-256) and its
 * File row, which is walked alongside (both in ascending id order), so that every row has its
 * bytes and every file its row. Created once the rows are loaded.
 */
export class ArchiveFiles {
  readonly #tx: Transaction;
  readonly #appId: string;
  readonly #model: AppModel;
  readonly #storage: PortableStorage | undefined;
  #rows: TransactionCursor<FileBytesRow> | undefined;
  #batch: FileBytesRow[] = [];
  #opened = false;
  #current: Incoming | undefined;

  constructor(tx: Transaction, appId: string, model: AppModel, storage: PortableStorage | undefined) {
    this.#tx = tx;
    this.#appId = appId;
    this.#model = model;
    this.#storage = storage;
  }

  async file(record: FileRecord, line: number): Promise<void> {
    await this.#finish();
    if (!this.#storage) throw noStorage(`The archive holds files (line ${line})`);
    const row = await this.#peek();
    if (row && row.id < record.id) throw atLine(`the File row ${row.id} has no bytes in the archive (its file record would come before this one)`, line);
    if (!row || row.id > record.id) throw atLine(`file ${record.id} holds the bytes of no File row of the archive`, line);
    this.#batch.shift();
    if (row.size !== record.size || row.sha256 !== record.sha256) {
      throw atLine(`the file record of ${record.id} says ${record.size} bytes with sha256 ${record.sha256}, its File row ${row.size} bytes with sha256 ${row.sha256}`, line);
    }
    const body = new PassThrough();
    // Given up before the store reads it (abort): the put fails; the error is not unhandled.
    body.on('error', () => undefined);
    const put = this.#storage.put(fileKey(this.#appId, record.id), body, record.size);
    // Awaited once the file ends (or the import fails); a store failure also ends a write's wait.
    put.catch(() => undefined);
    this.#current = { record, line, body, put, written: 0 };
  }

  async chunk(record: FileChunkRecord, line: number): Promise<void> {
    const current = this.#current;
    // The reader lets a fileChunk follow its own file's record only.
    if (!current) throw new Error('the archive reader gave a fileChunk without its file');
    const bytes = Buffer.from(record.data, 'base64');
    current.written += bytes.length;
    if (current.written > current.record.size) throw atLine(`the bytes of file ${record.id} are longer than its file record says (${current.record.size} bytes)`, line);
    if (!current.body.write(bytes)) await Promise.race([once(current.body, 'drain'), current.put]);
  }

  /** The archive's end: the last file complete, and no File row left without its bytes. */
  async end(line: number): Promise<void> {
    await this.#finish();
    const row = await this.#peek();
    if (row) throw atLine(`the File row ${row.id} has no bytes in the archive`, line);
    // Foreign keys are altered next, which an open cursor on the table would stop.
    await this.#rows?.close();
    this.#rows = undefined;
  }

  /** The import failed: the file being written is given up (nothing of it kept). */
  async abort(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (!current) return;
    current.body.destroy(new Error('the import failed'));
    await current.put.catch(() => undefined);
  }

  async #finish(): Promise<void> {
    const current = this.#current;
    if (!current) return;
    this.#current = undefined;
    current.body.end();
    const stored = await current.put;
    const { record } = current;
    if (stored.size !== record.size || stored.sha256 !== record.sha256) {
      throw atLine(`the bytes of file ${record.id} do not match its file record: ${stored.size} bytes with sha256 ${stored.sha256}, not ${record.size} bytes with sha256 ${record.sha256}`, current.line);
    }
  }

  /** The next File row not yet matched with a file record. */
  async #peek(): Promise<FileBytesRow | undefined> {
    if (!this.#opened) {
      this.#opened = true;
      const statement = fileRowsStatement(this.#appId, this.#model);
      this.#rows = statement && (await transactionCursor<FileBytesRow>(this.#tx, statement));
    }
    if (this.#batch.length === 0 && this.#rows) this.#batch = await this.#rows.next(FILE_BATCH);
    return this.#batch[0];
  }
}
