// Who may do what with Files, through the real server on both stores and both storage drivers:
// the default rules (authenticated users create; the owner reads, updates and deletes; app
// admins do anything) as a table of caller × path, an app's own rules replacing them, fields
// only the upload decides, and tenant isolation between two apps.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../server/harness.js';
import type { Json } from '../server/harness.js';
import { CREATE_FILE, DRIVER_KINDS, createTestApp, multipart, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer, TestApp } from './harness.js';

const COMBOS = STORE_KINDS.flatMap((kind) => DRIVER_KINDS.map((driver) => [kind, driver] as const));

const CALLERS = ['anonymous', 'owner', 'other', 'appAdmin', 'adminToken'] as const;
type Caller = (typeof CALLERS)[number];
type Outcome = { value: Json } | { code: string };
const v = (value: Json): Outcome => ({ value });
const c = (code: string): Outcome => ({ code });

describe.each(COMBOS)('file rules (%s store, %s storage)', (kind, driver) => {
  let fs: FileServer;
  let app: TestApp;
  const who: Partial<Record<Caller, Record<string, string>>> = {};
  let ownerId: string;
  /** A fresh file of the owner's for each case that changes or deletes one. */
  const ownersFile = async (): Promise<{ id: string; url: string }> => (await uploadFile(app, who.owner as Record<string, string>, { filename: 'mine.txt', bytes: 'mine' })).body.data.createFile.changedFile;

  beforeAll(async () => {
    fs = await startFileServer(kind, driver);
    app = await createTestApp(fs.server, '');
    const owner = await signUp(app, 'owner');
    ownerId = owner.id;
    who.owner = owner.headers;
    who.other = (await signUp(app, 'other')).headers;
    const appAdmin = await signUp(app, 'appadmin');
    who.appAdmin = appAdmin.headers;
    who.anonymous = {};
    who.adminToken = { authorization: `Bearer ${app.token}` };
    const roles = await app.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { edges { node { id } } } } }');
    await app.data('mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }', {
      i: { userId: appAdmin.id, roleId: roles.viewer.allRoles.edges[0].node.id, accessLevel: 'readwrite' },
    });
  });
  afterAll(async () => fs?.close());

  const cases: { name: string; run: (as: Record<string, string>) => Promise<{ body: Json }>; read: (data: Json) => Json; expect: Record<Caller, Outcome> }[] = [
    {
      name: 'getFile (name, url)',
      run: async (as) => app.gql('query($id: ID!) { getFile(id: $id) { name url } }', { id: (await ownersFile()).id }, as),
      read: (d) => (d.getFile ? { name: d.getFile.name, signed: /[?&]signature=[0-9a-f]{64}$/.test(d.getFile.url) } : null),
      expect: { anonymous: v(null), owner: v({ name: 'mine.txt', signed: true }), other: v(null), appAdmin: v({ name: 'mine.txt', signed: true }), adminToken: v({ name: 'mine.txt', signed: true }) },
    },
    {
      name: 'node(id) as File',
      run: async (as) => app.gql('query($id: ID!) { node(id: $id) { ... on File { size } } }', { id: (await ownersFile()).id }, as),
      read: (d) => d.node,
      expect: { anonymous: v(null), owner: v({ size: 4 }), other: v(null), appAdmin: v({ size: 4 }), adminToken: v({ size: 4 }) },
    },
    {
      name: 'allFiles filtered on the owner',
      run: async (as) => {
        await ownersFile();
        return app.gql('query($o: ID!) { viewer { allFiles(where: { owner: { id: { eq: $o } } }) { aggregations { count } } } }', { o: ownerId }, as);
      },
      read: (d) => d.viewer.allFiles.aggregations.count > 0,
      expect: { anonymous: v(false), owner: v(true), other: v(false), appAdmin: v(true), adminToken: v(true) },
    },
    {
      name: 'updateFile',
      run: async (as) => app.gql('mutation($i: UpdateFileInput!) { updateFile(input: $i) { changedFile { name } } }', { i: { id: (await ownersFile()).id, name: 'renamed.txt' } }, as),
      read: (d) => d.updateFile.changedFile.name,
      expect: { anonymous: c('NOT_FOUND'), owner: v('renamed.txt'), other: c('NOT_FOUND'), appAdmin: v('renamed.txt'), adminToken: v('renamed.txt') },
    },
    {
      name: 'deleteFile',
      run: async (as) => app.gql('mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { name } } }', { i: { id: (await ownersFile()).id } }, as),
      read: (d) => d.deleteFile.changedFile,
      expect: { anonymous: v(null), owner: v({ name: 'mine.txt' }), other: v(null), appAdmin: v({ name: 'mine.txt' }), adminToken: v({ name: 'mine.txt' }) },
    },
    {
      name: 'createFile (owner set to the uploader)',
      run: async (as) => uploadFile(app, as, { filename: 'new.txt', bytes: 'new' }),
      read: (d) => ({ owner: d.createFile.changedFile.owner?.username ?? null }),
      expect: { anonymous: c('FORBIDDEN'), owner: v({ owner: 'owner' }), other: v({ owner: 'other' }), appAdmin: v({ owner: 'appadmin' }), adminToken: v({ owner: null }) },
    },
  ];

  for (const path of cases) {
    it.each(CALLERS)(`${path.name} as %s`, async (caller) => {
      const reply = await path.run(who[caller] as Record<string, string>);
      const expected = path.expect[caller];
      if ('code' in expected) {
        expect(reply.body.errors?.[0]?.extensions?.code, JSON.stringify(reply.body)).toBe(expected.code);
      } else {
        expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
        expect(path.read(reply.body.data)).toEqual(expected.value);
      }
    });
  }

  it('lets no input set what the upload decides: owner, size, digest', async () => {
    const file = await ownersFile();
    for (const [field, value] of [['ownerId', ownerId], ['size', 1], ['sha256', '0'.repeat(64)]] as const) {
      const update = await app.gql(`mutation($i: UpdateFileInput!) { updateFile(input: $i) { changedFile { id } } }`, { i: { id: file.id, [field]: value } }, who.owner);
      expect(update.body.errors[0].extensions.code, field).toBe('BAD_USER_INPUT');
      const create = await multipart(app, { query: CREATE_FILE, variables: { input: { blob: null, [field]: value } } }, { 0: ['variables.input.blob'] }, [{ name: '0', filename: 'x', bytes: 'x' }], who.other);
      expect(create.body.errors[0].extensions.code, field).toBe('BAD_USER_INPUT');
    }
  });

  it("answers an app's own File rules in place of the defaults", async () => {
    const open = await createTestApp(fs.server, `type File @model @permission(scope: EVERYONE, read: true) @permission(scope: AUTHENTICATED, create: true) { caption: String }`);
    const writer = await signUp(open, 'writer');
    const reader = await signUp(open, 'reader');
    const file = (await uploadFile(open, writer.headers, { filename: 'public.txt', bytes: 'public' })).body.data.createFile.changedFile;
    for (const as of [{}, reader.headers]) {
      const read = await open.gql('query($id: ID!) { getFile(id: $id) { name url } }', { id: file.id }, as);
      expect(read.body.data.getFile.name).toBe('public.txt');
      expect(await (await fetch(read.body.data.getFile.url)).text()).toBe('public');
    }
    // No update rule: nobody but the app's admins, the owner included.
    const update = await open.gql('mutation($i: UpdateFileInput!) { updateFile(input: $i) { changedFile { id } } }', { i: { id: file.id, caption: 'x' } }, writer.headers);
    expect(update.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('keeps apps apart: ids, tokens and uploads of one app mean nothing at another', async () => {
    const file = await ownersFile();
    const other = await createTestApp(fs.server, '');
    const stranger = await signUp(other, 'owner');
    for (const as of [stranger.headers, { authorization: `Bearer ${other.token}` }]) {
      const read = await other.gql('query($id: ID!) { getFile(id: $id) { name } node(id: $id) { id } }', { id: file.id }, as);
      expect(read.body.data).toEqual({ getFile: null, node: null });
      const del = await other.gql('mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { id } } }', { i: { id: file.id } }, as);
      expect(del.body.data.deleteFile.changedFile).toBeNull();
    }
    // A user token of one app uploads nothing at another.
    const foreign = await uploadFile(other, who.owner as Record<string, string>, { filename: 'x.txt', bytes: 'x' });
    expect(foreign.status).toBe(401);
    expect(foreign.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // The file is still there, for its owner.
    expect((await app.gql('query($id: ID!) { getFile(id: $id) { id } }', { id: file.id }, who.owner)).body.data.getFile.id).toBe(file.id);
  });
});
