// Uploads through the real server, on both stores and both storage drivers, as clients send
// them: the GraphQL multipart request specification (one file, several, a nested create), the
// original service's blobFieldName form; the size limit, an aborted upload, an anonymous one,
// and uploads that are not files — none of which leaves a row or stored bytes behind.

import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFileRemovals } from '../../src/store/index.js';
import { admin } from '../server/harness.js';
import { STORE_KINDS } from '../server/harness.js';
import { CREATE_FILE, DRIVER_KINDS, blobFieldForm, createTestApp, eventually, multipart, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer, TestApp } from './harness.js';

const SCHEMA = `
type Post @model @permission(scope: AUTHENTICATED, read: true, create: true) {
  title: String!
  attachments: [File] @relation(name: "PostAttachments")
}
type File @model {
  post: Post @relation(name: "PostAttachments")
  caption: String
}`;

const COMBOS = STORE_KINDS.flatMap((kind) => DRIVER_KINDS.map((driver) => [kind, driver] as const));
const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

describe.each(COMBOS)('uploads (%s store, %s storage)', (kind, driver) => {
  let fs: FileServer;
  let app: TestApp;
  let alice: { id: string; headers: Record<string, string> };

  /** Every trace of an upload is gone: no File row, nothing stored, nothing queued. */
  async function nothingLeft(): Promise<void> {
    const files = await app.data('{ viewer { allFiles { aggregations { count } } } }');
    expect(files.viewer.allFiles.aggregations.count).toBe(0);
    // What is left, when something is: the stored keys and the queued removals (with their errors).
    let left: { stored: string[]; removals: unknown[] } = { stored: [], removals: [] };
    await eventually(async () => {
      left = { stored: await fs.stored(app.id), removals: await listFileRemovals(fs.server.store, app.id) };
      return left.stored.length === 0 && left.removals.length === 0;
    });
    expect(left).toEqual({ stored: [], removals: [] });
  }

  beforeAll(async () => {
    fs = await startFileServer(kind, driver);
    app = await createTestApp(fs.server, SCHEMA);
    alice = await signUp(app, 'alice');
  });
  afterAll(async () => fs?.close());

  it('creates a File from one upload: its name, type, size, digest and uploader, and its bytes', async () => {
    const bytes = randomBytes(300_000);
    const reply = await uploadFile(app, alice.headers, { filename: 'photo.jpg', type: 'image/jpeg', bytes }, { caption: 'at the sea' });
    expect(reply.body.errors).toBeUndefined();
    const file = reply.body.data.createFile.changedFile;
    expect(file).toMatchObject({ name: 'photo.jpg', contentType: 'image/jpeg', size: bytes.length, sha256: sha(bytes), owner: { id: alice.id, username: 'alice' } });
    const download = await fetch(file.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const read = await app.gql('query($id: ID!) { getFile(id: $id) { caption name } }', { id: file.id }, alice.headers);
    expect(read.body.data.getFile).toEqual({ caption: 'at the sea', name: 'photo.jpg' });
    // Nothing is left queued for a File that keeps its bytes.
    expect((await listFileRemovals(fs.server.store, app.id)).length).toBe(0);
  });

  it('lets the client name the file and its type', async () => {
    const reply = await uploadFile(app, alice.headers, { filename: 'x.bin', bytes: 'a,b' }, { name: 'report.csv', contentType: 'text/csv' });
    expect(reply.body.data.createFile.changedFile).toMatchObject({ name: 'report.csv', contentType: 'text/csv', size: 3 });
  });

  it('takes several files in one request', async () => {
    const query = `mutation($a: CreateFileInput!, $b: CreateFileInput!) {
      a: createFile(input: $a) { changedFile { name size sha256 } }
      b: createFile(input: $b) { changedFile { name size sha256 } }
    }`;
    const reply = await multipart(app, { query, variables: { a: { blob: null }, b: { blob: null } } }, { one: ['variables.a.blob'], two: ['variables.b.blob'] }, [
      { name: 'one', filename: 'one.txt', bytes: 'first' },
      { name: 'two', filename: 'two.txt', bytes: 'second file' },
    ], alice.headers);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data).toEqual({
      a: { changedFile: { name: 'one.txt', size: 5, sha256: sha('first') } },
      b: { changedFile: { name: 'two.txt', size: 11, sha256: sha('second file') } },
    });
  });

  it('creates Files nested in another create, each from its upload', async () => {
    const query = `mutation($input: CreatePostInput!) {
      createPost(input: $input) { changedPost { title attachments { edges { node { name size owner { username } post { title } } } } } }
    }`;
    const variables = { input: { title: 'Holiday', attachments: [{ blob: null }, { blob: null, caption: 'second' }] } };
    const reply = await multipart(app, { query, variables }, { 0: ['variables.input.attachments.0.blob'], 1: ['variables.input.attachments.1.blob'] }, [
      { name: '0', filename: 'a.png', type: 'image/png', bytes: 'AAA' },
      { name: '1', filename: 'b.png', type: 'image/png', bytes: 'BBBB' },
    ], alice.headers);
    expect(reply.body.errors).toBeUndefined();
    const nodes = reply.body.data.createPost.changedPost.attachments.edges.map((e: { node: unknown }) => e.node);
    expect(nodes).toHaveLength(2);
    expect(nodes).toEqual(
      expect.arrayContaining([
        { name: 'a.png', size: 3, owner: { username: 'alice' }, post: { title: 'Holiday' } },
        { name: 'b.png', size: 4, owner: { username: 'alice' }, post: { title: 'Holiday' } },
      ]),
    );
  });

  it("takes the original service's form: blobFieldName names the part holding the file", async () => {
    const reply = await blobFieldForm(app, CREATE_FILE, { input: { name: 'Profile Picture', blobFieldName: 'myBlobField' } }, [
      { name: 'myBlobField', filename: 'me.gif', type: 'image/gif', bytes: 'GIF89a' },
    ], alice.headers);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.createFile.changedFile).toMatchObject({ name: 'Profile Picture', contentType: 'image/gif', size: 6, sha256: sha('GIF89a') });
  });

  describe('refusals leave nothing behind', () => {
    let empty: TestApp;
    beforeAll(async () => {
      // An app of its own, so that "nothing left" covers every row and byte of it.
      empty = await createTestApp(fs.server, '');
      await signUp(empty, 'bob');
    });
    const useEmpty = () => {
      app = empty;
    };

    it('an anonymous upload is FORBIDDEN, and its bytes are removed', async () => {
      useEmpty();
      const reply = await uploadFile(app, {}, { filename: 'a.txt', bytes: 'anonymous bytes' });
      expect(reply.body.errors[0].extensions.code).toBe('FORBIDDEN');
      await nothingLeft();
    });

    it('a refused credential is UNAUTHENTICATED (401) before any byte is stored', async () => {
      useEmpty();
      const reply = await uploadFile(app, { authorization: 'Bearer not-a-token' }, { filename: 'a.txt', bytes: randomBytes(50_000) });
      expect(reply.status).toBe(401);
      expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      // Not even queued: nothing was written.
      expect(await listFileRemovals(fs.server.store, app.id)).toEqual([]);
      expect(await fs.stored(app.id)).toEqual([]);
    });

    it('a file over maxFileSize is LIMIT_EXCEEDED (413) while it streams, and nothing is kept', async () => {
      useEmpty();
      const bob = await signUp(app, 'bob2');
      const set = await admin(fs.server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: app.id, settings: { maxFileSize: 1000 } } });
      expect(set.body.errors).toBeUndefined();
      const reply = await uploadFile(app, bob.headers, { filename: 'big.bin', bytes: randomBytes(20_000) });
      expect(reply.status).toBe(413);
      expect(reply.body.errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
      const fits = await uploadFile(app, bob.headers, { filename: 'small.bin', bytes: randomBytes(1000) });
      expect(fits.body.data.createFile.changedFile.size).toBe(1000);
      const deleted = await app.gql('mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { id } } }', { i: { id: fits.body.data.createFile.changedFile.id } }, bob.headers);
      expect(deleted.body.errors).toBeUndefined();
      await nothingLeft();
    });

    it('an upload aborted half way leaves no row, and its partial bytes are removed', async () => {
      useEmpty();
      const bob = await signUp(app, 'bob3');
      const boundary = 'tessera-test-boundary';
      const head = [
        `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query: CREATE_FILE, variables: { input: { blob: null } } })}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n${JSON.stringify({ 0: ['variables.input.blob'] })}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="half.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ].join('');
      const url = new URL(app.endpoint);
      await new Promise<void>((resolve) => {
        const req = httpRequest({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...bob.headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + 10_000_000) },
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(head);
        req.write(randomBytes(2_000_000), () => setTimeout(() => req.destroy(), 300));
      });
      // The bytes written so far were stored (or being stored) under a pending upload…
      await nothingLeft();
    });

    it('an Upload sent as JSON is refused: it is not a file', async () => {
      useEmpty();
      const bob = await signUp(app, 'bob4');
      const reply = await app.gql(CREATE_FILE, { input: { blob: 'not a file' } }, bob.headers);
      expect(reply.body.errors[0].extensions.code).toMatch(/BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED/);
      const literal = await app.gql('mutation { createFile(input: { blob: "x" }) { changedFile { id } } }', {}, bob.headers);
      expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      await nothingLeft();
    });

    it('one file given to two Files is created once; the other is BAD_USER_INPUT', async () => {
      useEmpty();
      const bob = await signUp(app, 'bob5');
      const query = `mutation($a: CreateFileInput!, $b: CreateFileInput!) { a: createFile(input: $a) { changedFile { id } } b: createFile(input: $b) { changedFile { id } } }`;
      const reply = await multipart(app, { query, variables: { a: { blob: null }, b: { blob: null } } }, { 0: ['variables.a.blob', 'variables.b.blob'] }, [{ name: '0', filename: 'once.txt', bytes: 'once' }], bob.headers);
      expect(reply.body.data.a.changedFile.id).toBeTruthy();
      expect(reply.body.data.b).toBeNull();
      expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      await app.gql('mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { id } } }', { i: { id: reply.body.data.a.changedFile.id } }, bob.headers);
      await nothingLeft();
    });

    it('malformed multipart requests get coded errors', async () => {
      useEmpty();
      const bob = await signUp(app, 'bob6');
      const missing = await multipart(app, { query: CREATE_FILE, variables: { input: { blob: null } } }, { 0: ['variables.input.blob'] }, [], bob.headers);
      expect(missing.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      const outside = await multipart(app, { query: CREATE_FILE, variables: { input: { blob: null } } }, { 0: ['query'] }, [{ name: '0', filename: 'a', bytes: 'a' }], bob.headers);
      expect(outside.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      const proto = await multipart(app, { query: CREATE_FILE, variables: { input: { blob: null } } }, { 0: ['variables.__proto__.x'] }, [{ name: '0', filename: 'a', bytes: 'a' }], bob.headers);
      expect(proto.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      const form = new FormData();
      form.append('operations', '[{"query":"{ __typename }"}]');
      form.append('map', '{}');
      const batch = await fetch(app.endpoint, { method: 'POST', body: form, headers: bob.headers });
      expect(batch.status).toBe(400);
      expect(((await batch.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
      await nothingLeft();
    });
  });
});
