// importApp in the management API, on both stores: the archive sent as a GraphQL multipart
// request (what Apollo Upload Client and `fetch` with FormData send) becomes a new app equal row
// for row; the platform key is checked before the upload is read; a file that is not an archive,
// an Upload sent as JSON, two files or no operations are coded errors leaving nothing behind;
// the spooled upload is removed once answered.

import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import { archiveLines, exportArchive, footprint, importAppMutation, tableRows } from './harness.js';

const SCHEMA = 'type Note @model { text: String  parent: Note @relation(name: "Thread")  replies: [Note] @relation(name: "Thread") }';
const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;
const spools = async () => (await readdir(tmpdir())).filter((n) => n.startsWith('tessera-upload-'));

describe.each(STORE_KINDS)('importApp (%s)', (kind) => {
  let server: TestServer;
  let sourceId: string;
  let archive: Buffer;

  beforeAll(async () => {
    server = await startTestServer(kind);
    const app = await createTestApp(server, SCHEMA);
    sourceId = app.id;
    const root = (await app.data('mutation { createNote(input: { text: "root" }) { changedNote { id } } }')).createNote.changedNote.id;
    for (let i = 0; i < 5; i++) await app.data('mutation($p: ID!) { createNote(input: { text: "reply", parentId: $p }) { changedNote { id } } }', { p: root });
    archive = await exportArchive(server, app.id);
  }, 60_000);
  afterAll(() => server?.close());

  it('makes a new app of the uploaded archive, row for row, and removes the spooled upload', async () => {
    const name = unique('uploaded');
    const reply = await importAppMutation(server, archive, name);
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    const result = reply.body.data.importApp;
    const rows = Object.values(JSON.parse(archiveLines(archive).at(-1) as string).rows as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(result).toMatchObject({ app: { name, schemaVersion: 1, endpoint: `${server.base}/graphql/${result.app.id}` }, rows, warnings: [] });
    expect(await tableRows(server, result.app.id as string)).toEqual(await tableRows(server, sourceId));
    expect(await spools()).toEqual([]);
    // Without a name, the exported app's name is taken.
    const taken = await importAppMutation(server, archive);
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('without the platform key (or with another one) the upload is refused before it is read: 401, nothing made', async () => {
    const before = await footprint(server);
    const none = await importAppMutation(server, archive, unique('nokey'), {});
    expect(none.status).toBe(401);
    expect(none.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const wrong = await importAppMutation({ base: server.base, key: 'tsk_wrong' }, archive, unique('badkey'), { authorization: 'Bearer tsk_wrong' });
    expect(wrong.status).toBe(401);
    expect(await footprint(server)).toEqual(before);
    expect(await spools()).toEqual([]);
  });

  it('a file that is not an archive, or an archive cut short: BAD_USER_INPUT as on the import route, nothing made', async () => {
    const before = await footprint(server);
    const text = await importAppMutation(server, new TextEncoder().encode('not an archive'), unique('text'));
    expect(text.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(text.body.errors[0].extensions.archive.compressedByte).toEqual(expect.any(Number));
    const cut = await importAppMutation(server, archive.subarray(0, Math.floor(archive.length / 2)), unique('cut'));
    expect(cut.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(cut.body.errors[0].message).toMatch(/truncated/);
    expect(await footprint(server)).toEqual(before);
    expect(await spools()).toEqual([]);
  });

  it('an Upload given as JSON, two files, or a multipart body without operations: coded errors', async () => {
    const before = await footprint(server);
    const json = await admin(server, 'mutation($i: ImportAppInput!) { importApp(input: $i) { app { id } } }', { i: { file: 'H4sIAAAA', name: unique('json') } });
    expect(json.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(json.body.errors[0].message).toMatch(/multipart request/);

    const two = new FormData();
    two.append('operations', JSON.stringify({ query: 'mutation($i: ImportAppInput!) { importApp(input: $i) { app { id } } }', variables: { i: { file: null } } }));
    two.append('map', JSON.stringify({ 0: ['variables.i.file'], 1: ['variables.i.file'] }));
    two.append('0', new Blob([archive]), 'a.gz');
    two.append('1', new Blob([archive]), 'b.gz');
    const twoReply = await fetch(`${server.base}/admin/graphql`, { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: two });
    expect(twoReply.status).toBe(413);
    expect(((await twoReply.json()) as Json).errors[0].extensions.code).toBe('LIMIT_EXCEEDED');

    const bare = new FormData();
    bare.append('0', new Blob([archive]), 'a.gz');
    const bareReply = await fetch(`${server.base}/admin/graphql`, { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: bare });
    expect(bareReply.status).toBe(400);
    expect(((await bareReply.json()) as Json).errors[0].message).toMatch(/carries "operations", "map" and the file/);
    expect(await footprint(server)).toEqual(before);
    expect(await spools()).toEqual([]);
  });
});
