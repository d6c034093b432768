// The permission matrix over HTTP on both stores: schema rules × caller (anonymous, user A,
// user B, a role member, an admin token, another app's user token) × path (getX, node,
// viewer, allXs, nested connection, singular relation, where on a protected field or through a
// relation, orderBy on a protected field, aggregations, every mutation and edge mutation) →
// the data expected or the error code. docs/permissions.md describes the model.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { GraphQLResult, Json, TestApp } from './harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true)
  @permission(scope: AUTHENTICATED, read: true, fields: ["username"]) {
  notes: [Note] @relation(name: "NoteOwner")
  likes: [Note] @relation(name: "NoteLikes")
}
type Note @model
  @permission(scope: RELATION, userFields: ["owner"], read: true, update: true, delete: true)
  @permission(scope: ROLE, roles: ["Auditors"], read: true)
  @permission(scope: AUTHENTICATED, create: true) {
  text: String!
  private: String @permission(scope: RELATION, userFields: ["owner"], read: true, update: true)
  owner: User @relation(name: "NoteOwner")
  likedBy: [User] @relation(name: "NoteLikes")
}
`;

const CALLERS = ['anonymous', 'A', 'B', 'R', 'admin', 'foreign'] as const;
type Caller = (typeof CALLERS)[number];

/** What a case expects: a value read from `data`, or an error code (401s are `UNAUTHENTICATED`). */
type Outcome = { value: Json } | { code: string };
const v = (value: Json): Outcome => ({ value });
const c = (code: string): Outcome => ({ code });

interface Path {
  name: string;
  /** Sends the operation as `caller`; `fresh` gives a new name or object for cases that consume one. */
  send: (as: (query: string, variables?: Record<string, unknown>) => Promise<GraphQLResult>, caller: Caller) => Promise<GraphQLResult>;
  /** The value compared when no error is expected. */
  read: (data: Json) => Json;
  expect: Partial<Record<Caller, Outcome>>;
}

describe.each(STORE_KINDS)('permission matrix (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let fresh = 0;

  const adminData = (query: string, variables: Record<string, unknown> = {}) => app.data(query, variables);
  async function noteOf(owner: string, text: string): Promise<string> {
    const data = await adminData('mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id } } }', { i: { text, private: `p-${text}`, ownerId: ids[owner] } });
    return data.createNote.changedNote.id;
  }

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    other = await createTestApp(server, SCHEMA);
    for (const name of ['A', 'B', 'R']) {
      const data = await adminData('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: `user-${name}`, password: 'pw-123456' } });
      ids[name] = data.createUser.changedUser.id;
      tokens[name] = data.createUser.token;
    }
    const foreign = await other.data('mutation { createUser(input: { username: "user-A", password: "pw-123456" }) { token } }');
    tokens.foreign = foreign.createUser.token;
    const role = await adminData('mutation { createRole(input: { name: "Auditors" }) { changedRole { id } } }');
    ids.auditors = role.createRole.changedRole.id;
    await adminData('mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }', { i: { userId: ids.R, roleId: ids.auditors, accessLevel: 'readonly' } });
    ids.note = await noteOf('A', 'a');
  });
  afterAll(async () => server?.close());

  const paths = (): Path[] => [
    { name: 'getNote', send: (as) => as(`{ getNote(id: "${ids.note}") { text } }`), read: (d) => d.getNote, expect: { anonymous: v(null), A: v({ text: 'a' }), B: v(null), R: v({ text: 'a' }), admin: v({ text: 'a' }) } },
    { name: 'node', send: (as) => as(`{ node(id: "${ids.note}") { ... on Note { text } } }`), read: (d) => d.node, expect: { anonymous: v(null), A: v({ text: 'a' }), B: v(null), R: v({ text: 'a' }), admin: v({ text: 'a' }) } },
    { name: 'viewer.user', send: (as) => as('{ viewer { user { id } } }'), read: (d) => d.viewer.user?.id ?? null, expect: { anonymous: v(null), A: v(ids.A), B: v(ids.B), R: v(ids.R), admin: v(null) } },
    { name: 'allNotes count', send: (as) => as('{ viewer { allNotes(where: { text: { eq: "a" } }) { aggregations { count } } } }'), read: (d) => d.viewer.allNotes.aggregations.count, expect: { anonymous: v(0), A: v(1), B: v(0), R: v(1), admin: v(1) } },
    { name: 'allNotes edges', send: (as) => as('{ viewer { allNotes(where: { text: { eq: "a" } }) { edges { node { text } } } } }'), read: (d) => d.viewer.allNotes.edges.length, expect: { anonymous: v(0), A: v(1), B: v(0), R: v(1), admin: v(1) } },
    { name: 'nested connection', send: (as) => as(`{ getUser(id: "${ids.A}") { notes(where: { text: { eq: "a" } }) { aggregations { count } } } }`), read: (d) => d.getUser?.notes.aggregations.count ?? null, expect: { anonymous: v(null), A: v(1), B: v(null), R: v(null), admin: v(1) } },
    { name: 'singular relation', send: (as) => as(`{ getNote(id: "${ids.note}") { owner { id } } }`), read: (d) => d.getNote?.owner?.id ?? null, expect: { anonymous: v(null), A: v(ids.A), B: v(null), R: v(null), admin: v(ids.A) } },
    { name: 'protected field read', send: (as) => as(`{ getNote(id: "${ids.note}") { private } }`), read: (d) => d.getNote, expect: { anonymous: v(null), A: v({ private: 'p-a' }), B: v(null), R: c('FORBIDDEN'), admin: v({ private: 'p-a' }) } },
    { name: 'where on a protected field', send: (as) => as('{ viewer { allNotes(where: { private: { eq: "p-a" } }) { aggregations { count } } } }'), read: (d) => d.viewer.allNotes.aggregations.count, expect: { anonymous: v(0), A: v(1), B: v(0), R: v(0), admin: v(1) } },
    { name: 'where through a relation', send: (as) => as(`{ viewer { allNotes(where: { text: { eq: "a" }, owner: { id: { eq: "${ids.A}" } } }) { aggregations { count } } } }`), read: (d) => d.viewer.allNotes.aggregations.count, expect: { anonymous: v(0), A: v(1), B: v(0), R: v(0), admin: v(1) } },
    { name: 'where on a relation id', send: (as) => as(`{ viewer { allNotes(where: { text: { eq: "a" }, ownerId: { eq: "${ids.A}" } }) { aggregations { count } } } }`), read: (d) => d.viewer.allNotes.aggregations.count, expect: { anonymous: v(0), A: v(1), B: v(0), R: v(1), admin: v(1) } },
    { name: 'orderBy a protected field', send: (as) => as('{ viewer { allNotes(orderBy: { field: private }) { aggregations { count } } } }'), read: (d) => d.viewer.allNotes.aggregations.count >= 1, expect: { anonymous: c('FORBIDDEN'), A: c('FORBIDDEN'), B: c('FORBIDDEN'), R: c('FORBIDDEN'), admin: v(true) } },
    { name: 'users visible', send: (as) => as('{ viewer { allUsers { aggregations { count } } } }'), read: (d) => d.viewer.allUsers.aggregations.count, expect: { anonymous: v(0), A: v(1), B: v(1), R: v(1), admin: v(3) } },
    { name: 'roles visible (built-in defaults)', send: (as) => as('{ viewer { allRoles { aggregations { count } } } }'), read: (d) => d.viewer.allRoles.aggregations.count, expect: { anonymous: v(0), A: v(2), B: v(2), R: v(2), admin: v(2) } },
    {
      name: 'createNote',
      send: (as) => as('mutation { createNote(input: { text: "new" }) { changedNote { text } } }'),
      read: (d) => d.createNote.changedNote !== undefined,
      expect: { anonymous: c('FORBIDDEN'), A: v(true), B: v(true), R: v(true), admin: v(true) },
    },
    {
      // The field's own rules grant read and update only: for create it follows its type.
      name: 'createNote setting a protected field',
      send: (as) => as('mutation { createNote(input: { text: "new", private: "x" }) { clientMutationId } }'),
      read: () => true,
      expect: { anonymous: c('FORBIDDEN'), A: v(true), B: v(true), R: v(true), admin: v(true) },
    },
    {
      name: 'updateNote',
      send: (as) => as('mutation($i: UpdateNoteInput!) { updateNote(input: $i) { changedNote { text } } }', { i: { id: ids.note, text: 'a' } }),
      read: (d) => d.updateNote.changedNote.text,
      expect: { anonymous: c('NOT_FOUND'), A: v('a'), B: c('NOT_FOUND'), R: c('FORBIDDEN'), admin: v('a') },
    },
    {
      name: 'updateNote of a protected field',
      send: (as) => as('mutation($i: UpdateNoteInput!) { updateNote(input: $i) { clientMutationId } }', { i: { id: ids.note, private: 'p-a' } }),
      read: () => true,
      expect: { anonymous: c('NOT_FOUND'), A: v(true), B: c('NOT_FOUND'), R: c('FORBIDDEN'), admin: v(true) },
    },
    {
      // B's user is not readable by A: its id answers as the id of nothing.
      name: 'updateNote moving it to another owner',
      send: (as) => as('mutation($i: UpdateNoteInput!) { updateNote(input: $i) { clientMutationId } }', { i: { id: ids.note, ownerId: ids.B } }),
      read: () => true,
      expect: { anonymous: c('NOT_FOUND'), A: c('BAD_USER_INPUT'), B: c('NOT_FOUND'), R: c('FORBIDDEN') },
    },
    {
      name: 'updateNote dropping its owner (out of the writer\'s reach)',
      send: (as) => as('mutation($i: UpdateNoteInput!) { updateNote(input: $i) { clientMutationId } }', { i: { id: ids.note, ownerId: '' } }),
      read: () => true,
      expect: { anonymous: c('NOT_FOUND'), A: c('FORBIDDEN'), B: c('NOT_FOUND'), R: c('FORBIDDEN') },
    },
    {
      name: 'deleteNote',
      send: async (as) => as('mutation($i: DeleteNoteInput!) { deleteNote(input: $i) { changedNote { text } } }', { i: { id: await noteOf('A', `doomed-${fresh++}`) } }),
      read: (d) => d.deleteNote.changedNote !== null,
      expect: { anonymous: v(false), A: v(true), B: v(false), R: c('FORBIDDEN'), admin: v(true) },
    },
    {
      name: 'addToNoteLikesConnection (liking as oneself)',
      send: (as, caller) => as('mutation($i: AddToNoteLikesConnectionInput!) { addToNoteLikesConnection(input: $i) { clientMutationId } }', { i: { noteId: ids.note, userId: ids[caller === 'admin' || caller === 'anonymous' || caller === 'foreign' ? 'A' : caller] } }),
      read: () => true,
      expect: { anonymous: c('BAD_USER_INPUT'), A: v(true), B: c('BAD_USER_INPUT'), R: c('FORBIDDEN'), admin: c('CONFLICT') },
    },
    {
      name: 'removeFromNoteLikesConnection',
      send: (as) => as('mutation($i: RemoveFromNoteLikesConnectionInput!) { removeFromNoteLikesConnection(input: $i) { changedNoteLikes { note { text } } } }', { i: { noteId: ids.note, userId: ids.B } }),
      read: (d) => d.removeFromNoteLikesConnection.changedNoteLikes,
      expect: { anonymous: c('BAD_USER_INPUT'), A: c('BAD_USER_INPUT'), B: c('BAD_USER_INPUT'), R: c('BAD_USER_INPUT'), admin: v(null) },
    },
    {
      name: 'createUser (sign-up)',
      send: (as) => as('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { username } } }', { i: { username: `signup-${fresh++}`, password: 'pw-123456' } }),
      read: (d) => typeof d.createUser.changedUser.username,
      expect: { anonymous: v('string'), A: v('string'), B: v('string'), R: v('string'), admin: v('string') },
    },
    {
      name: 'updateUser of user A',
      send: (as) => as('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { username } } }', { i: { id: ids.A, username: 'user-A' } }),
      read: (d) => d.updateUser.changedUser.username,
      expect: { anonymous: c('NOT_FOUND'), A: v('user-A'), B: c('NOT_FOUND'), R: c('NOT_FOUND'), admin: v('user-A') },
    },
    {
      name: 'deleteUser of oneself',
      send: (as, caller) => as('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: ids[caller === 'admin' || caller === 'anonymous' || caller === 'foreign' ? 'B' : caller] } }),
      read: (d) => d.deleteUser.changedUser !== null,
      expect: { anonymous: v(false), A: c('FORBIDDEN'), B: c('FORBIDDEN'), R: c('FORBIDDEN') },
    },
    {
      name: 'addToUserRolesConnection (enrolling B in Auditors)',
      send: (as) => as('mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }', { i: { userId: ids.B, roleId: ids.auditors, accessLevel: 'readonly' } }),
      read: () => true,
      expect: { anonymous: c('FORBIDDEN'), A: c('FORBIDDEN'), B: c('FORBIDDEN'), R: c('FORBIDDEN') },
    },
  ];

  it('answers every case of the matrix', async () => {
    const headers = (caller: Caller): Record<string, string> => (caller === 'anonymous' ? {} : { authorization: `Bearer ${caller === 'admin' ? app.token : tokens[caller]}` });
    let cases = 0;
    for (const path of paths()) {
      for (const caller of CALLERS) {
        const expected: Outcome | undefined = caller === 'foreign' ? c('UNAUTHENTICATED') : path.expect[caller];
        if (!expected) continue;
        const reply = await path.send((query, variables = {}) => app.gql(query, variables, headers(caller)), caller);
        const label = `${path.name} as ${caller}`;
        if ('code' in expected) {
          expect(reply.body.errors?.map((e: Json) => e.extensions.code), label).toContain(expected.code);
          if (expected.code === 'UNAUTHENTICATED') expect(reply.status, label).toBe(401);
        } else {
          expect(reply.body.errors, label).toBeUndefined();
          expect(path.read(reply.body.data), label).toEqual(expected.value);
        }
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThanOrEqual(150);
  });
});
