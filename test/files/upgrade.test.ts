// Apps made before the built-in File get it when they are next loaded: their File table and
// the FileOwner relation are added, their data kept, and uploads work from then on.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import { STORE_KINDS } from '../server/harness.js';
import type { Json } from '../server/harness.js';
import { createTestApp, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer } from './harness.js';

describe.each(STORE_KINDS)('apps made before File (%s)', (kind) => {
  let fs: FileServer;
  beforeAll(async () => {
    fs = await startFileServer(kind, 'disk');
  });
  afterAll(async () => fs?.close());

  it('gain File on their next request, keeping their data', async () => {
    const app = await createTestApp(fs.server, 'type Note @model @permission(scope: EVERYONE, read: true) { text: String }');
    await app.data('mutation { createNote(input: { text: "kept" }) { changedNote { id } } }');
    const store = fs.server.store;
    await store.query(sql`DROP TABLE ${ident(appSchemaName(app.id), 'File')}`);
    const { rows } = await store.query<{ model: Json; version: number }>(sql`SELECT model, version FROM tessera.schema_versions WHERE app_id = ${app.id} ORDER BY version DESC LIMIT 1`);
    const model = rows[0]?.model;
    model.types = model.types.filter((t: Json) => t.name !== 'File');
    model.relations = model.relations.filter((r: Json) => r.name !== 'FileOwner');
    await store.query(sql`UPDATE tessera.schema_versions SET model = ${JSON.stringify(model)}::jsonb WHERE app_id = ${app.id} AND version = ${rows[0]?.version}`);
    await store.notify('tessera_catalog', app.id);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const notes = await app.data('{ viewer { allNotes { edges { node { text } } } } }');
    expect(notes.viewer.allNotes.edges).toEqual([{ node: { text: 'kept' } }]);
    const alice = await signUp(app, 'alice');
    const reply = await uploadFile(app, alice.headers, { filename: 'new.txt', bytes: 'new' });
    expect(reply.body.errors).toBeUndefined();
    expect(await (await fetch(reply.body.data.createFile.changedFile.url)).text()).toBe('new');
  });
});
