// Reads an app archive as it streams in: gunzips, splits lines, checks each record's shape and
// place, hashes every line, and checks the trailer at the end. Whatever is wrong is a coded
// error (BAD_USER_INPUT) naming the line, and the byte where it starts, or the compressed byte
// where the gzip stream broke. Memory stays flat: one line at a time (up to MAX_LINE_BYTES).

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { TesseraError } from '../errors/index.js';
import { ARCHIVE_FORMAT, READABLE_VERSIONS, RECORD_KINDS } from './records.js';
import type { ArchiveRecord, EndRecord, FileChunkRecord, FileRecord, RecordKind, TableRecord } from './records.js';
import { shapeProblem } from './shapes.js';

/** The longest line read (a row holding a large Text value, a large schema). */
export const MAX_LINE_BYTES = 128 * 1024 * 1024;

export type ArchiveItem =
  | { kind: 'record'; record: Exclude<ArchiveRecord, EndRecord>; line: number }
  | { kind: 'row'; table: TableRecord; values: unknown[]; text: string; line: number }
  | { kind: 'end'; record: EndRecord; line: number };

/** Where an archive went wrong: 1-based line, and the uncompressed byte offset it starts at. */
export interface ArchivePosition {
  line: number;
  byte: number;
}

export function archiveError(message: string, at: ArchivePosition | { compressedByte: number }): TesseraError {
  const where = 'line' in at ? `line ${at.line} (byte ${at.byte} uncompressed)` : `compressed byte ${at.compressedByte}`;
  return new TesseraError('BAD_USER_INPUT', `The archive is not valid at ${where}: ${message}`, { archive: at });
}

/** Counts the compressed bytes taken from the source. */
async function* counted(source: AsyncIterable<Uint8Array>, count: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    count.bytes += chunk.byteLength;
    yield chunk;
  }
}

/** Complete lines of the uncompressed stream, with where each starts; a gzip failure names the compressed byte. */
async function* lines(source: AsyncIterable<Uint8Array>): AsyncGenerator<{ bytes: Buffer; at: ArchivePosition }> {
  const compressed = { bytes: 0 };
  const gunzip = Readable.from(counted(source, compressed)).pipe(createGunzip());
  let carry: Buffer[] = [];
  let carried = 0;
  let line = 0;
  let offset = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        const bytes = carried === 0 ? piece : Buffer.concat([...carry, piece]);
        carry = [];
        carried = 0;
        line += 1;
        yield { bytes, at: { line, byte: offset } };
        offset += bytes.length + 1;
        start = nl + 1;
      }
      if (start < chunk.length) {
        carry.push(chunk.subarray(start));
        carried += chunk.length - start;
        if (carried > MAX_LINE_BYTES) throw archiveError(`the line is longer than ${MAX_LINE_BYTES} bytes`, { line: line + 1, byte: offset });
      }
    }
  } catch (err) {
    if (err instanceof TesseraError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const what = code === 'Z_BUF_ERROR' || /unexpected end/i.test((err as Error).message) ? 'the gzip stream ends early: the archive is truncated' : 'the data is not gzip-compressed, or is corrupt';
    throw archiveError(what, { compressedByte: compressed.bytes });
  }
  if (carried > 0) yield { bytes: Buffer.concat(carry), at: { line: line + 1, byte: offset } };
}

function parse(bytes: Buffer, at: ArchivePosition): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw archiveError('the line is not JSON', at);
  }
}

/** The records that may follow a record of each kind (rows follow `table`, and rows). */
function allowedAfter(previous: RecordKind | 'row' | undefined): readonly RecordKind[] {
  switch (previous) {
    case undefined:
      return ['header'];
    case 'header':
      return ['schema'];
    case 'schema':
      return ['settings'];
    case 'file':
    case 'fileChunk':
      return ['fileChunk', 'file', 'end'];
    default:
      return RECORD_KINDS.filter((k) => k !== 'header' && k !== 'schema' && k !== 'settings' && k !== 'fileChunk');
  }
}

function checkHeader(record: Record<string, unknown>, at: ArchivePosition): void {
  if (record.format !== ARCHIVE_FORMAT) throw archiveError(`this is not a Tessera app archive (format "${String(record.format)}")`, at);
  if (typeof record.version !== 'number' || !READABLE_VERSIONS.includes(record.version)) {
    throw new TesseraError(
      'BAD_USER_INPUT',
      `The archive is in format version ${String(record.version)}, which this server does not know (it reads versions ${READABLE_VERSIONS.join(' and ')}); import it with the Tessera version that wrote it, or a later one`,
      { archive: at, formatVersion: record.version },
    );
  }
}

/**
 * The items of an archive in order: records, rows (the JSON text kept, for bulk inserts) and
 * the checked trailer, last. Throws a coded error at the first problem; an archive that stops
 * before its trailer is truncated.
 */
export async function* readArchive(source: AsyncIterable<Uint8Array>): AsyncGenerator<ArchiveItem> {
  const hash = createHash('sha256');
  const rows = new Map<string, number>();
  let previous: RecordKind | 'row' | undefined;
  let table: TableRecord | undefined;
  let file: string | undefined;
  let ended: { at: ArchivePosition } | undefined;
  let next: ArchivePosition = { line: 1, byte: 0 };
  for await (const { bytes, at } of lines(source)) {
    next = { line: at.line + 1, byte: at.byte + bytes.length + 1 };
    if (ended) {
      if (bytes.length === 0) continue;
      throw archiveError('there is more after the end record: the archive was altered', at);
    }
    const value = parse(bytes, at);
    if (Array.isArray(value)) {
      if (!table || (previous !== 'table' && previous !== 'row')) throw archiveError('a row must follow its table record', at);
      if (value.length !== table.columns.length) throw archiveError(`a row of ${table.name} has ${value.length} values, not ${table.columns.length}`, at);
      hash.update(bytes).update('\n');
      rows.set(table.name, (rows.get(table.name) ?? 0) + 1);
      previous = 'row';
      yield { kind: 'row', table, values: value, text: bytes.toString('utf8'), line: at.line };
      continue;
    }
    if (value === null || typeof value !== 'object') throw archiveError('a line must hold an object (a record) or an array (a row)', at);
    const record = value as Record<string, unknown>;
    const kind = record.kind;
    if (typeof kind !== 'string' || !(RECORD_KINDS as readonly string[]).includes(kind)) throw archiveError(`unknown record kind ${JSON.stringify(kind)}`, at);
    if (previous === undefined && kind === 'header') checkHeader(record, at);
    const allowed = allowedAfter(previous);
    if (!allowed.includes(kind as RecordKind)) {
      throw archiveError(previous === undefined ? 'the archive must start with its header record' : `a ${kind} record cannot come here (after ${previous === 'row' ? 'a row' : `the ${previous} record`})`, at);
    }
    const problem = shapeProblem(record);
    if (problem) throw archiveError(`the ${kind} record is malformed: ${problem}`, at);
    if (kind === 'end') {
      const end = record as unknown as EndRecord;
      const expected = { lines: at.line - 1, sha256: hash.digest('hex') };
      if (end.lines !== expected.lines) throw archiveError(`the end record counts ${end.lines} lines before it, but there are ${expected.lines}`, at);
      for (const [name, count] of rows) {
        if (end.rows[name] !== count) throw archiveError(`the end record counts ${String(end.rows[name])} rows of ${name}, but there are ${count}`, at);
      }
      for (const name of Object.keys(end.rows)) if (!rows.has(name) && end.rows[name] !== 0) throw archiveError(`the end record counts rows of ${name}, which has none`, at);
      if (end.sha256 !== expected.sha256) throw archiveError('the checksum does not match: the archive was altered', at);
      ended = { at };
      yield { kind: 'end', record: end, line: at.line };
      continue;
    }
    hash.update(bytes).update('\n');
    if (kind === 'table') {
      const t = record as unknown as TableRecord;
      if (rows.has(t.name)) throw archiveError(`table ${t.name} appears twice`, at);
      rows.set(t.name, 0);
      table = t;
    } else {
      table = undefined;
    }
    if (kind === 'file') {
      // Ascending ids: each file once, and an importer can walk the File rows alongside.
      const id = (record as unknown as FileRecord).id;
      if (file !== undefined && id <= file) throw archiveError(`file ${id} comes after file ${file}: files must be in ascending id order, each once`, at);
      file = id;
    }
    if (kind === 'fileChunk' && (record as unknown as FileChunkRecord).id !== file) {
      throw archiveError(`a fileChunk of ${(record as unknown as FileChunkRecord).id} follows the file record of ${String(file)}`, at);
    }
    previous = kind as RecordKind;
    yield { kind: 'record', record: record as unknown as Exclude<ArchiveRecord, EndRecord>, line: at.line };
  }
  if (!ended) {
    throw archiveError(previous === undefined ? 'the archive is empty' : 'the archive ends without its end record: it is truncated', next);
  }
}
