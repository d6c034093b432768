// Files travel with their app: an export writes each File's bytes after the rows (`file`, then
// `fileChunk` records of 256 KiB), an import writes them under the new app's keys and checks
// each one, a fork copies them inside the store. On both stores with the disk driver, and once
// with S3. An archive whose bytes are cut short, altered, missing or left over is refused with
// the line, and leaves no app and no bytes in the store.

import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskStorage } from '../../src/files/index.js';
import { listFileRemovals } from '../../src/store/index.js';
import { STORE_KINDS, admin, startTestServer } from '../server/harness.js';
import { appAt, archiveLines, exportArchive, footprint, importArchive, pack, packWithTrailer } from '../portability/harness.js';
import { createTestApp, eventually, signUp, startFileServer, uploadFile } from './harness.js';
import type { DriverKind, FileServer, Json } from './harness.js';

const SCHEMA = 'type Note @model { text: String  attachment: File @relation(name: "NoteAttachment") }\ntype File @model { note: Note @relation(name: "NoteAttachment") }';
const FILES = '{ viewer { allFiles(orderBy: { field: name, direction: ASC }) { edges { node { id name contentType size sha256 url note { text } } } } } }';
const FORK = 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id } warnings } }';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

/** Downloads a file through its signed URL: status and the bytes' digest. */
async function download(url: string): Promise<{ status: number; sha256: string }> {
  const response = await fetch(url);
  return { status: response.status, sha256: sha256(new Uint8Array(await response.arrayBuffer())) };
}

/** The entries (app folders) in the disk store's root: a failed import leaves none of its own. */
async function diskApps(files: FileServer): Promise<string[]> {
  return (await readdir((files.storage as DiskStorage).root)).sort();
}

interface Source {
  appId: string;
  /** The files as the original app answers them, by name. */
  files: Json[];
  big: Uint8Array;
}

/** An app with three files (one empty, one of three chunks) and a note pointing at one. */
async function appWithFiles(files: FileServer, label: string): Promise<Source> {
  const app = await createTestApp(files.server, SCHEMA);
  const user = await signUp(app, unique(label));
  const big = new Uint8Array(randomBytes(700 * 1024));
  const ids: string[] = [];
  for (const file of [{ filename: 'a.txt', bytes: 'hello', type: 'text/plain' }, { filename: 'b.bin', bytes: big }, { filename: 'c.txt', bytes: '' }]) {
    const reply = await uploadFile(app, user.headers, file, { name: file.filename });
    expect(reply.body.errors).toBeUndefined();
    ids.push(reply.body.data.createFile.changedFile.id);
  }
  await app.data('mutation($f: ID!) { createNote(input: { text: "with a file", attachmentId: $f }) { changedNote { id } } }', { f: ids[0] });
  const listed = await app.data(FILES);
  return { appId: app.id, files: listed.viewer.allFiles.edges.map((e: Json) => e.node), big };
}

/** The app's files through its API, and each one downloaded through its signed URL. */
async function filesOf(files: FileServer, appId: string): Promise<{ listed: Json[]; downloads: { status: number; sha256: string }[] }> {
  const app = await appAt(files.server, appId);
  const listed = (await app.data(FILES)).viewer.allFiles.edges.map((e: Json) => e.node);
  const downloads = [];
  for (const file of listed) downloads.push(await download(file.url));
  return { listed, downloads };
}

function describeWith(kind: (typeof STORE_KINDS)[number], driver: DriverKind) {
  describe(`export, import and fork of an app with files (${kind}, ${driver})`, () => {
    let files: FileServer;
    let source: Source;
    let archive: Buffer;
    let lines: string[];

    beforeAll(async () => {
      files = await startFileServer(kind, driver);
      source = await appWithFiles(files, `${kind}${driver}`);
      archive = await exportArchive(files.server, source.appId);
      lines = archiveLines(archive);
    }, 60_000);
    afterAll(() => files?.close());

    /** Everything in the store: app folders on disk, object keys on S3. */
    const everything = () => (files.s3 ? files.s3.keys('') : diskApps(files));

    /** What a refused import must leave: no app, no schema, no bytes, no queued removal once the worker ran. */
    async function refused(body: Uint8Array): Promise<Json> {
      const before = await footprint(files.server);
      const stored = await everything();
      const reply = await importArchive(files.server, body, unique('bad'));
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(await footprint(files.server)).toEqual(before);
      expect(await everything()).toEqual(stored);
      expect(await eventually(async () => (await listFileRemovals(files.server.store)).length === 0)).toBe(true);
      return reply.body.errors[0];
    }

    /** The line index of the first record of `kind` (for `id`, when given). */
    const lineOf = (kind: string, id?: string, nth = 0) => lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith(`{"kind":"${kind}"`) && (id === undefined || (JSON.parse(l) as Json).id === id))[nth]![1];
    const uuidOf = (file: Json) => lines.map((l) => JSON.parse(l) as Json).find((r) => r.kind === 'file' && r.sha256 === file.sha256).id as string;

    it('the archive holds each file after the rows: its record, then its bytes in chunks of 256 KiB', () => {
      const records = lines.map((l) => JSON.parse(l) as Json).filter((r) => r.kind === 'file' || r.kind === 'fileChunk');
      const big = source.files.find((f) => f.name === 'b.bin');
      const bigRecord = records.find((r) => r.kind === 'file' && r.sha256 === big.sha256);
      expect(bigRecord).toMatchObject({ size: 700 * 1024, sha256: sha256(source.big) });
      const chunks = records.filter((r) => r.kind === 'fileChunk' && r.id === bigRecord.id).map((r) => Buffer.from(r.data as string, 'base64'));
      expect(chunks.map((c) => c.length)).toEqual([256 * 1024, 256 * 1024, 188 * 1024]);
      expect(sha256(Buffer.concat(chunks))).toBe(big.sha256);
      expect(records.filter((r) => r.kind === 'file')).toHaveLength(3);
      // Files come last, in ascending id order, right before the trailer.
      const ids = records.filter((r) => r.kind === 'file').map((r) => r.id as string);
      expect(ids).toEqual([...ids].sort());
      expect(lineOf('file')).toBeGreaterThan(lines.findLastIndex((l) => l.startsWith('[')));
    });

    it('imported, every file has its bytes in the new app: same ids and digests, downloads through the new signed URLs', async () => {
      const reply = await importArchive(files.server, archive, unique('copy'));
      expect(reply.body.errors).toBeUndefined();
      const appId: string = reply.body.app.id;
      const { listed, downloads } = await filesOf(files, appId);
      expect(listed.map((f) => ({ ...f, url: undefined }))).toEqual(source.files.map((f) => ({ ...f, url: undefined })));
      for (const [i, file] of listed.entries()) {
        expect(file.url).toContain(`/files/${appId}/`);
        expect(downloads[i]).toEqual({ status: 200, sha256: file.sha256 });
      }
      expect((await files.stored(appId)).filter((k) => !k.includes('.part'))).toHaveLength(3);
      expect(await listFileRemovals(files.server.store, appId)).toEqual([]);
      // Same file ids, other keys: the original's bytes are untouched and still download.
      expect(await download(source.files[1].url as string)).toEqual({ status: 200, sha256: source.files[1].sha256 });
      // A URL of the original app, pointed at the new one, is refused: the signature names the app.
      const original = new URL(source.files[0].url as string);
      expect((await fetch(`${files.server.base}${original.pathname.replace(source.appId, appId)}${original.search}`)).status).toBe(403);
    });

    it('a fork has its own copy of the bytes: deleting its file leaves the original downloadable', async () => {
      const reply = await admin(files.server, FORK, { i: { appId: source.appId, name: unique('fork') } });
      expect(reply.body.errors).toBeUndefined();
      const forkId: string = reply.body.data.forkApp.app.id;
      const fork = await filesOf(files, forkId);
      expect(fork.listed.map((f) => f.sha256)).toEqual(source.files.map((f) => f.sha256));
      expect(fork.downloads.every((d, i) => d.status === 200 && d.sha256 === fork.listed[i].sha256)).toBe(true);
      const app = await appAt(files.server, forkId);
      const gone = fork.listed.find((f) => f.name === 'b.bin');
      expect((await app.gql('mutation($id: ID!) { deleteFile(input: { id: $id }) { changedFile { id } } }', { id: gone.id })).body.errors).toBeUndefined();
      expect(await eventually(async () => (await files.stored(forkId)).length === 2)).toBe(true);
      const original = source.files.find((f) => f.name === 'b.bin');
      expect(await download(original.url as string)).toEqual({ status: 200, sha256: original.sha256 });
      expect((await files.stored(source.appId)).filter((k) => !k.includes('.part'))).toHaveLength(3);
    });

    it('cut short in the middle of a file: refused at the line after the last, no app and no bytes left', async () => {
      const big = source.files.find((f) => f.name === 'b.bin');
      const second = lineOf('fileChunk', uuidOf(big), 1);
      const error = await refused(pack(lines.slice(0, second + 1)));
      expect(error.message).toMatch(/ends without its end record: it is truncated/);
      expect(error.extensions.archive.line).toBe(second + 2);
      // Cut inside the gzip stream, during the bytes: the compressed byte is named.
      const cut = await refused(archive.subarray(0, Math.floor(archive.length * 0.8)));
      expect(cut.extensions.archive.compressedByte).toBeGreaterThan(0);
    });

    it('bytes that do not match their record (checksum made to match): refused at the file record', async () => {
      const big = source.files.find((f) => f.name === 'b.bin');
      const chunkLine = lineOf('fileChunk', uuidOf(big), 1);
      const altered = [...lines];
      const chunk = JSON.parse(altered[chunkLine] as string) as Json;
      const bytes = Buffer.from(chunk.data as string, 'base64');
      bytes[100] = (bytes[100] as number) ^ 0xff;
      altered[chunkLine] = JSON.stringify({ ...chunk, data: bytes.toString('base64') });
      const error = await refused(packWithTrailer(altered));
      expect(error.message).toMatch(/do not match its file record/);
      expect(error.extensions.archive.line).toBe(lineOf('file', uuidOf(big)) + 1);
      // Longer than the record says: refused at the chunk that goes over.
      const longer = [...lines];
      const last = lineOf('fileChunk', uuidOf(big), 2);
      longer.splice(last + 1, 0, JSON.stringify({ kind: 'fileChunk', id: uuidOf(big), data: 'AAAA' }));
      const over = await refused(packWithTrailer(longer));
      expect(over.message).toMatch(/longer than its file record says/);
      expect(over.extensions.archive.line).toBe(last + 2);
    });

    it('a File row without its bytes, bytes for no row, a record that disagrees with its row: refused', async () => {
      const small = source.files.find((f) => f.name === 'a.txt');
      const at = lineOf('file', uuidOf(small));
      const withoutBytes = [...lines.slice(0, at), ...lines.slice(at + 2)];
      const missing = await refused(packWithTrailer(withoutBytes));
      expect(missing.message).toMatch(new RegExp(`File row ${uuidOf(small)} has no bytes in the archive`));

      const extra = [...lines.slice(0, -1), JSON.stringify({ kind: 'file', id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', size: 1, sha256: sha256(new Uint8Array([0])) }), JSON.stringify({ kind: 'fileChunk', id: 'ffffffff-ffff-4fff-bfff-ffffffffffff', data: 'AA==' }), lines.at(-1) as string];
      const noRow = await refused(packWithTrailer(extra));
      expect(noRow.message).toMatch(/holds the bytes of no File row/);
      expect(noRow.extensions.archive.line).toBe(lines.length);

      const disagrees = [...lines];
      disagrees[at] = JSON.stringify({ ...(JSON.parse(lines[at] as string) as Json), size: 6 });
      expect((await refused(packWithTrailer(disagrees))).message).toMatch(/its File row 5 bytes/);

      const twice = [...lines.slice(0, at + 2), ...lines.slice(at, at + 2), ...lines.slice(at + 2)];
      expect((await refused(packWithTrailer(twice))).message).toMatch(/ascending id order, each once/);

      const badChunk = [...lines];
      badChunk[at + 1] = JSON.stringify({ kind: 'fileChunk', id: uuidOf(small), data: 'not base64!' });
      expect((await refused(packWithTrailer(badChunk))).message).toMatch(/"data" must be base64/);
    });

    it('an export whose bytes are gone from the store is cut short, never complete', async () => {
      const app = await createTestApp(files.server, SCHEMA);
      const user = await signUp(app, unique('gone'));
      const uploaded = await uploadFile(app, user.headers, { filename: 'x.txt', bytes: 'x' }, { name: 'x.txt' });
      const uuid = (await files.stored(app.id))[0]!.split('/')[1]!;
      expect(uploaded.body.errors).toBeUndefined();
      await files.storage.remove(`${app.id}/${uuid}`);
      const link = await admin(files.server, 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url } }', { i: { appId: app.id } });
      const response = await fetch(link.body.data.exportApp.url as string);
      const received: Uint8Array[] = [];
      try {
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) received.push(chunk);
      } catch {
        // The download ends cut short.
      }
      const reply = await importArchive(files.server, Buffer.concat(received), unique('gone'));
      expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].message).toMatch(/The archive is not valid/);
    });
  });
}

for (const kind of STORE_KINDS) describeWith(kind, 'disk');
describeWith('embedded', 's3');

describe('an archive holding files, on a server that keeps none', () => {
  it('is not imported there (NOT_IMPLEMENTED), and nothing is left', async () => {
    const files = await startFileServer('embedded', 'disk');
    try {
      const app = await createTestApp(files.server, SCHEMA);
      const user = await signUp(app, unique('n'));
      expect((await uploadFile(app, user.headers, { filename: 'a.txt', bytes: 'abc' }, { name: 'a.txt' })).body.errors).toBeUndefined();
      const archive = await exportArchive(files.server, app.id);
      const bare = await startTestServer('embedded');
      try {
        const imported = await importArchive(bare, archive, 'nofiles');
        expect(imported.status).toBe(501);
        expect(imported.body.errors[0].extensions.code).toBe('NOT_IMPLEMENTED');
        expect(await footprint(bare)).toEqual({ apps: 0, schemas: 0 });
      } finally {
        await bare.close();
      }
    } finally {
      await files.close();
    }
  }, 60_000);
});
