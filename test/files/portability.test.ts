// An app holding files is neither exported nor forked yet (file bytes do not travel in
// archives): both are refused with a coded error and nothing is made, rather than producing an
// app whose files have no bytes. Once its files are deleted, the same app exports.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, admin } from '../server/harness.js';
import { createTestApp, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer, Json } from './harness.js';

describe.each(STORE_KINDS)('export and fork of an app with files (%s)', (kind) => {
  let files: FileServer;
  beforeAll(async () => {
    files = await startFileServer(kind, 'disk');
  });
  afterAll(() => files?.close());

  it('refuses both with BAD_USER_INPUT while the app holds a file, and exports once it holds none', async () => {
    const app = await createTestApp(files.server, 'type Note @model { text: String }');
    const user = await signUp(app, `f${kind}`);
    const uploaded = await uploadFile(app, user.headers, { filename: 'a.txt', bytes: 'abc' }, { name: 'a.txt' });
    expect(uploaded.body.errors).toBeUndefined();
    const exported = await admin(files.server, 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url } }', { i: { appId: app.id } });
    const url: string = exported.body.data.exportApp.url;
    const download = await fetch(url, { headers: { authorization: `Bearer ${files.server.key}` } });
    const body = (await download.json()) as Json;
    expect(download.status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toMatch(/holds files/);

    const forked = await admin(files.server, 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id } } }', { i: { appId: app.id, name: `fork${kind}` } });
    expect(forked.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const apps = await admin(files.server, '{ apps { name } }');
    expect(apps.body.data.apps.map((a: Json) => a.name)).not.toContain(`fork${kind}`);

    const id = uploaded.body.data.createFile.changedFile.id;
    expect((await app.gql('mutation($id: ID!) { deleteFile(input: { id: $id }) { changedFile { id } } }', { id })).body.errors).toBeUndefined();
    const again = await fetch((await admin(files.server, 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url } }', { i: { appId: app.id } })).body.data.exportApp.url, { headers: { authorization: `Bearer ${files.server.key}` } });
    expect(again.status).toBe(200);
    expect((await again.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});
