// Archives that must be refused, on both stores: truncated, altered, of an unknown format
// version, not an archive at all, holding values their columns refuse or references to rows
// that are not there. Each gets a coded error naming the line or byte, and leaves nothing
// behind: no app, no schema. And who may export and import: the platform key, or a signed link.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import { archiveLines, exportArchive, footprint, importArchive, pack, packWithTrailer } from './harness.js';

const SCHEMA = `
type Note @model { text: String  count: Int  kind: Kind  parent: Note @relation(name: "Thread")  replies: [Note] @relation(name: "Thread") }
enum Kind { A B }`;

/** The line of the first row of a table. */
function firstRowLine(lines: string[], table: string): number {
  return lines.findIndex((l) => l.startsWith('{"kind":"table"') && (JSON.parse(l) as Json).name === table) + 1;
}

describe.each(STORE_KINDS)('refused archives (%s)', (kind) => {
  let server: TestServer;
  let lines: string[];
  let archive: Buffer;
  let before: { apps: number; schemas: number };

  beforeAll(async () => {
    server = await startTestServer(kind);
    const app = await createTestApp(server, SCHEMA);
    const parent = (await app.data('mutation { createNote(input: { text: "root", kind: A }) { changedNote { id } } }')).createNote.changedNote.id;
    for (let i = 0; i < 10; i++) await app.data('mutation($p: ID!, $t: String) { createNote(input: { text: $t, count: 1, parentId: $p }) { changedNote { id } } }', { p: parent, t: `n${i}` });
    archive = await exportArchive(server, app.id);
    lines = archiveLines(archive);
    before = await footprint(server);
  }, 60_000);
  afterAll(() => server?.close());

  async function refused(body: Uint8Array, status = 400): Promise<Json> {
    const reply = await importArchive(server, body, `bad${Math.random().toString(36).slice(2, 8)}`);
    expect(reply.status).toBe(status);
    expect(await footprint(server)).toEqual(before);
    return reply.body.errors[0];
  }

  it('a truncated archive: the gzip stream ends early, at a compressed byte', async () => {
    const error = await refused(archive.subarray(0, Math.floor(archive.length * 0.6)));
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toMatch(/truncated/);
    expect(error.extensions.archive.compressedByte).toBeGreaterThan(0);
  });

  it('an archive cut at a line and compressed again: no end record, at the line after the last', async () => {
    const error = await refused(pack(lines.slice(0, 8)));
    expect(error.message).toMatch(/ends without its end record: it is truncated/);
    expect(error.extensions.archive).toMatchObject({ line: 9 });
  });

  it('a value changed: the checksum does not match, at the end record', async () => {
    const row = firstRowLine(lines, 'Note');
    const altered = [...lines];
    altered[row] = (altered[row] as string).replace('"root"', '"toor"').replace(/"n0"/, '"m0"');
    const error = await refused(pack(altered));
    expect(error.message).toMatch(/checksum does not match/);
    expect(error.extensions.archive.line).toBe(lines.length);
  });

  it('a row removed: the counts do not match', async () => {
    const row = firstRowLine(lines, 'Note');
    const error = await refused(pack([...lines.slice(0, row), ...lines.slice(row + 1)]));
    expect(error.message).toMatch(/counts/);
  });

  it('an unknown format version is refused, naming it', async () => {
    const header = JSON.parse(lines[0] as string) as Json;
    const error = await refused(packWithTrailer([JSON.stringify({ ...header, version: 3 }), ...lines.slice(1)]));
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', formatVersion: 3 });
    expect(error.message).toMatch(/format version 3/);
  });

  it('not an archive: plain text, gzip of something else, an empty body, a line that is not JSON', async () => {
    expect((await refused(Buffer.from('hello'))).extensions.archive).toEqual({ compressedByte: 5 });
    expect((await refused(gzipSync('{"kind":"header","format":"zip"}\n'))).message).toMatch(/not a Tessera app archive/);
    expect((await refused(gzipSync(''))).message).toMatch(/empty/);
    const broken = [...lines];
    broken[3] = '{"kind": "table", oops';
    expect((await refused(pack(broken))).extensions.archive).toMatchObject({ line: 4 });
  });

  it('values their columns refuse, with a matching checksum: the lines of the batch are named', async () => {
    const row = firstRowLine(lines, 'Note');
    const values = JSON.parse(lines[row] as string) as unknown[];
    const cases: [number, unknown][] = [
      [0, 'not-a-uuid'],
      [4, 'twelve'],
      [5, 'C'],
    ];
    for (const [index, value] of cases) {
      const bad = [...lines];
      const changed = [...values];
      changed[index] = value;
      bad[row] = JSON.stringify(changed);
      const error = await refused(packWithTrailer(bad));
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/table Note, lines \d+–\d+/);
      expect(error.message).not.toMatch(/invalid input syntax|violates|SELECT|INSERT/);
    }
  });

  it('a reference to a row that is not there, and two rows with one id', async () => {
    const row = firstRowLine(lines, 'Note');
    const table = JSON.parse(lines[row - 1] as string) as Json;
    const parentAt = (table.columns as string[]).indexOf('parentId');
    const dangling = [...lines];
    const reply = JSON.parse(lines[row + 1] as string) as unknown[];
    reply[parentAt] = '00000000-0000-4000-8000-000000000000';
    dangling[row + 1] = JSON.stringify(reply);
    expect((await refused(packWithTrailer(dangling))).message).toMatch(/reference names a row that is not there/);
    const twice = [...lines];
    twice[row + 1] = lines[row] as string;
    expect((await refused(packWithTrailer(twice), 409)).extensions.code).toBe('CONFLICT');
  });

  it('a row of a table the schema does not have, a column it does not have, a row of the wrong length', async () => {
    const row = firstRowLine(lines, 'Note');
    const table = JSON.parse(lines[row - 1] as string) as Json;
    const unknownTable = [...lines];
    unknownTable[row - 1] = JSON.stringify({ ...table, name: 'Nope' });
    expect((await refused(packWithTrailer(unknownTable))).message).toMatch(/table Nope \(line \d+\) is not a table/);
    const unknownColumn = [...lines];
    unknownColumn[row - 1] = JSON.stringify({ ...table, columns: [...(table.columns as string[]).slice(0, -1), 'secret'] });
    expect((await refused(packWithTrailer(unknownColumn))).message).toMatch(/column secret/);
    const short = [...lines];
    short[row] = JSON.stringify((JSON.parse(lines[row] as string) as unknown[]).slice(1));
    expect((await refused(packWithTrailer(short))).extensions.archive).toMatchObject({ line: row + 1 });
  });

  it('file records: malformed ones are refused by line; well-formed ones on a server that keeps no files, NOT_IMPLEMENTED', async () => {
    const id = '00000000-0000-4000-8000-000000000001';
    const file = (record: Json, chunk: Json = { kind: 'fileChunk', id, data: 'AA==' }) => packWithTrailer([...lines.slice(0, -1), JSON.stringify(record), JSON.stringify(chunk), lines.at(-1) as string]);
    const sha256 = '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d';
    const badId = await refused(file({ kind: 'file', id: 'x', size: 1, sha256 }));
    expect(badId.message).toMatch(/"id" must be a lower-case uuid/);
    expect(badId.extensions.archive.line).toBe(lines.length);
    expect((await refused(file({ kind: 'file', id, size: -1, sha256 }))).message).toMatch(/"size"/);
    expect((await refused(file({ kind: 'file', id, size: 1, sha256: 'ab' }))).message).toMatch(/"sha256"/);
    const chunkFirst = await refused(packWithTrailer([...lines.slice(0, -1), JSON.stringify({ kind: 'fileChunk', id, data: 'AA==' }), lines.at(-1) as string]));
    expect(chunkFirst.message).toMatch(/a fileChunk record cannot come here/);
    const noStore = await refused(file({ kind: 'file', id, size: 1, sha256 }), 501);
    expect(noStore.extensions.code).toBe('NOT_IMPLEMENTED');
    expect(noStore.message).toMatch(/holds files .*keeps no files/);
  });

  it('importing needs the platform key and a gzip body; exporting needs the platform key, then only the signed link', async () => {
    const noKey = await fetch(`${server.base}/admin/apps/import`, { method: 'POST', headers: { 'content-type': 'application/gzip' }, body: archive });
    expect(noKey.status).toBe(401);
    const wrongKey = await importArchive({ base: server.base, key: 'tsk_wrong' }, archive);
    expect(wrongKey.status).toBe(401);
    const json = await fetch(`${server.base}/admin/apps/import`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` }, body: '{}' });
    expect(json.status).toBe(400);
    expect(await footprint(server)).toEqual(before);

    const exportNoKey = await fetch(`${server.base}/admin/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { exportApp(input: { appId: "x" }) { url } }' }) });
    expect(exportNoKey.status).toBe(401);
    const unknown = await admin(server, 'mutation { exportApp(input: { appId: "nosuchapp" }) { url } }');
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const other = await createTestApp(server, SCHEMA);
    const header = JSON.parse(lines[0] as string) as Json;
    const link = await admin(server, 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url expiresAt } }', { i: { appId: header.app.id } });
    const url = new URL(link.body.data.exportApp.url as string);
    expect(new Date(link.body.data.exportApp.expiresAt as string).getTime()).toBeGreaterThan(Date.now());
    // The link of one app cannot be turned into another's, or altered at all.
    const [appId, expires, mac] = url.pathname.split('/').at(-1)!.split('.');
    for (const token of [`${other.id}.${expires}.${mac}`, `${appId}.${Number(expires) + 3600}.${mac}`, `${appId}.${expires}.${mac}x`, `${appId}.${expires}`, 'x', `${appId}.1.${mac}`]) {
      const response = await fetch(`${server.base}/admin/exports/${token}`);
      expect(response.status, token).toBe(403);
      expect(((await response.json()) as Json).errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(archiveLines(Buffer.from(await download.arrayBuffer())).length).toBe(lines.length);
  });
});
