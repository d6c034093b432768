// What the fuzzer found, kept as plain cases on both stores: connection objects that hold no
// aggregate (`pageInfo { __typename }`, `hasPreviousPage` alone going forward, `aggregations {
// __typename }`) answered one row per item and failed; a NUL or a very long username in
// `loginUser` reached the database through the login throttle and failed there; an unpaired
// UTF-16 surrogate in a JSON value reached PostgreSQL, which refuses it as JSON.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { STORE_KINDS, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';

const SCHEMA = `type Note @model @permission(scope: EVERYONE, read: true, create: true) { n: Int data: JSON text: String }`;

describe.each(STORE_KINDS)('fuzz findings (%s store)', (kind) => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, SCHEMA);
    for (const n of [1, 2, 3]) await app.data('mutation($n: Int) { createNote(input: { n: $n }) { changedNote { id } } }', { n });
  });
  afterAll(() => server?.close());

  it.each([
    ['pageInfo { __typename }', { pageInfo: { __typename: 'PageInfo' } }],
    ['pageInfo { hasPreviousPage }', { pageInfo: { hasPreviousPage: false } }],
    ['aggregations { __typename }', { aggregations: { __typename: 'NoteAggregations' } }],
    ['__typename pageInfo { __typename } aggregations { __typename }', { __typename: 'NoteConnection', pageInfo: { __typename: 'PageInfo' }, aggregations: { __typename: 'NoteAggregations' } }],
  ])('answers a connection selecting only %s, in a query and in a mutation payload', async (selection, expected) => {
    expect(await app.data(`{ viewer { allNotes(first: 2) { ${selection} } } }`)).toEqual({ viewer: { allNotes: expected } });
    const created = await app.data(`mutation { createNote(input: { n: 9 }) { viewer { allNotes(first: 2) { ${selection} } } } }`);
    expect(created).toEqual({ createNote: { viewer: { allNotes: expected } } });
  });

  it('refuses a NUL in loginUser as BAD_USER_INPUT', async () => {
    for (const input of [{ username: 'a\u0000b', password: 'secret-pass' }, { username: 'someone', password: 'x\u0000' }]) {
      const reply = await app.gql('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: input });
      expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('refuses text with an unpaired surrogate as BAD_USER_INPUT, in JSON keys and values and in strings', async () => {
    for (const input of [{ data: { k: '\udfff' } }, { data: { ['\ud800x']: 1 } }, { data: ['ok', '\ud83d'] }, { text: 'a\udc00b' }]) {
      const reply = await app.gql('mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id } } }', { i: input });
      expect(reply.body.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
    }
    const fine = await app.data('mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { data text } } }', { i: { data: { emoji: '😀' }, text: '𝄞 ok' } });
    expect(fine.createNote.changedNote).toEqual({ data: { emoji: '😀' }, text: '𝄞 ok' });
  });

  it('logs in with a long username, and refuses a long unknown one like any other', async () => {
    const username = 'u'.repeat(5000);
    await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { i: { username, password: 'secret-pass' } });
    const login = await app.data('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username, password: 'secret-pass' } });
    expect(typeof login.loginUser.token).toBe('string');
    const unknown = await app.gql('mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }', { i: { username: 'v'.repeat(9000), password: 'secret-pass' } });
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
