// A plain create, update or delete runs as one statement (the write and its payload together,
// no transaction around them), and everything a write promises still holds on that path: the
// payload under the caller's read rules, rules that depend on the row or on linked objects,
// foreign keys, unique values, NOT_FOUND, realtime events. A write the one statement cannot
// answer alike (nested creates, a payload that reads the written type again, row-dependent
// rules, EVENT functions) runs in a transaction as before; each case here checks which path
// ran and what it answered.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCountingServer } from '../server/harness.js';
import type { Counted, TestServer } from '../server/harness.js';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { STORE_KINDS, createTestApp } from './harness.js';
import type { Json, TestApp } from './harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true) {
  notes: [Note] @relation(name: "NoteOwner")
  tickets: [Ticket] @relation(name: "TicketOwner")
}
type Author @model @permission(scope: EVERYONE, read: true) {
  name: String!
  posts: [Post] @relation(name: "AuthorPosts")
  profile: Profile @relation(name: "AuthorProfile")
}
type Profile @model @permission(scope: EVERYONE, read: true) { bio: String author: Author @relation(name: "AuthorProfile") }
type Post @model
  @permission(scope: EVERYONE, read: true, create: true)
  @permission(scope: AUTHENTICATED, update: true, delete: true) {
  title: String!
  slug: String @unique
  score: Int
  author: Author @relation(name: "AuthorPosts")
  tags: [Tag] @relation(name: "PostTags")
}
type Tag @model @permission(scope: EVERYONE, read: true) { label: String posts: [Post] @relation(name: "PostTags") }
type Note @model
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["owner"], read: true) {
  text: String
  owner: User @relation(name: "NoteOwner")
}
type Ticket @model
  @permission(scope: RELATION, userFields: ["owner"], create: true, read: true, update: true) {
  text: String
  owner: User @relation(name: "TicketOwner")
}
`;

describe.each(STORE_KINDS)('writes in one statement (%s)', (kind) => {
  let server: TestServer & Counted;
  let app: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const asUser = (name: string, query: string, variables: Record<string, unknown> = {}) => app.gql(query, variables, { authorization: `Bearer ${tokens[name]}` });
  const code = (reply: { body: Json }) => reply.body.errors?.[0]?.extensions?.code as string | undefined;

  /** Runs `request` and tells how many statements and transactions the server sent for it. */
  async function counted<T>(request: () => Promise<T>): Promise<{ result: T; statements: number; transactions: number }> {
    const [s0, t0] = [server.statements(), server.transactions()];
    const result = await request();
    return { result, statements: server.statements() - s0, transactions: server.transactions() - t0 };
  }

  beforeAll(async () => {
    server = await startCountingServer(kind);
    app = await createTestApp(server, SCHEMA);
    for (const name of ['ann', 'bob']) {
      const reply = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: name, password: 'pw-123456' } }, {});
      expect(reply.body.errors).toBeUndefined();
      ids[name] = reply.body.data.createUser.changedUser.id;
      tokens[name] = reply.body.data.createUser.token;
    }
    const author = await app.data('mutation { createAuthor(input: { name: "Ada" }) { changedAuthor { id } } }');
    ids.author = author.createAuthor.changedAuthor.id;
    // Warm: the app is loaded and each caller's token is known before anything is counted.
    await asUser('ann', '{ viewer { user { id } } }');
    await asUser('bob', '{ viewer { user { id } } }');
  });
  afterAll(async () => server?.close());

  it('answers a plain create with one statement and no transaction, payload and edge included', async () => {
    const { result, statements, transactions } = await counted(() =>
      app.data(
        'mutation($i: CreatePostInput!) { createPost(input: $i) { clientMutationId __typename changedPost { id title score author { name } } changedEdge { cursor node { title } } } }',
        { i: { title: 'One', score: 3, authorId: ids.author, clientMutationId: 'c1' } },
      ),
    );
    expect(transactions).toBe(0);
    expect(statements).toBe(1);
    const payload = result.createPost;
    expect(payload).toMatchObject({ clientMutationId: 'c1', __typename: 'CreatePostPayload', changedPost: { title: 'One', score: 3, author: { name: 'Ada' } }, changedEdge: { node: { title: 'One' } } });
    // The row is there, as the payload says, and its edge's cursor pages from it.
    const read = await app.data('query($id: ID!) { getPost(id: $id) { title score author { name } } }', { id: payload.changedPost.id });
    expect(read.getPost).toEqual({ title: 'One', score: 3, author: { name: 'Ada' } });
    const after = await app.data('query($c: String) { viewer { allPosts(after: $c) { edges { node { title } } } } }', { c: payload.changedEdge.cursor });
    expect(after.viewer.allPosts.edges).toEqual([]);
  });

  it('sends reads and one-statement writes as recurring statements, one text whatever the values (PostgreSQL keeps it prepared); the writes as committed on their own, the reads as reads', async () => {
    const from = server.recurring().length;
    const made: string[] = [];
    for (const [title, score] of [['R1', 1], ['R2', 2]] as const) {
      const reply = await app.data('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id title } } }', { i: { title, score, authorId: ids.author } });
      made.push(reply.createPost.changedPost.id);
    }
    for (const [i, id] of made.entries()) {
      const reply = await app.data('mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { score } } }', { i: { id, score: 10 + i } });
      expect(reply.updatePost.changedPost.score).toBe(10 + i);
    }
    for (const [i, id] of made.entries()) {
      expect((await app.data('query($id: ID!) { getPost(id: $id) { title score } }', { id })).getPost).toEqual({ title: `R${i + 1}`, score: 10 + i });
    }
    const sent = server.recurring().slice(from);
    expect(sent).toHaveLength(6);
    // Values are bound, never written into the text: each shape is one text, prepared once per connection.
    expect(sent.join('\n')).not.toMatch(/R1|R2/);
    expect([sent[0] === sent[1], sent[2] === sent[3], sent[4] === sent[5]]).toEqual([true, true, true]);
    // What lets the PostgreSQL store pipeline them on its lanes (writes only when its pool is full).
    expect(server.recurringAs().slice(from)).toEqual(['standalone', 'standalone', 'standalone', 'standalone', 'readOnly', 'readOnly']);
    expect(new Set(sent).size).toBe(3);
  });

  it('sends the statements of a transaction-path write as recurring ones too, the same texts whatever the values', async () => {
    // A create under a RELATION rule takes the transaction (its check depends on the row).
    const create = (text: string) => counted(() => asUser('bob', 'mutation($i: CreateTicketInput!) { createTicket(input: $i) { changedTicket { id text } } }', { i: { text, ownerId: ids.bob } }));
    const texts: string[][] = [];
    const made: string[] = [];
    for (const text of ['first ticket', 'second ticket']) {
      const from = server.recurring().length;
      const { result, transactions } = await create(text);
      expect(transactions).toBe(1);
      expect(result.body.data.createTicket.changedTicket.text).toBe(text);
      made.push(result.body.data.createTicket.changedTicket.id);
      texts.push(server.recurring().slice(from));
      // Inside the transaction: none is a standalone write, which a lane could take.
      expect(server.recurringAs().slice(from)).not.toContain('standalone');
    }
    // The check, the write and the payload at least; the same sequence of texts, no value in them.
    expect(texts[0]!.length).toBeGreaterThanOrEqual(2);
    expect(texts[1]).toEqual(texts[0]);
    expect(texts.flat().join('\n')).not.toMatch(/ticket/);
    // The other cases count bob's tickets: these go again.
    for (const id of made) await app.data('mutation($i: DeleteTicketInput!) { deleteTicket(input: $i) { changedTicket { id } } }', { i: { id } });
  });

  it('takes the transaction when the payload reads the created type again, and then sees the new row', async () => {
    const { result, transactions } = await counted(() =>
      app.data('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { title author { posts { edges { node { title } } } } } } }', { i: { title: 'Two', authorId: ids.author } }),
    );
    expect(transactions).toBe(1);
    const titles = result.createPost.changedPost.author.posts.edges.map((e: Json) => e.node.title);
    expect(titles).toContain('Two');
    // The viewer can reach every type: a payload asking for it takes the transaction too.
    const viewer = await counted(() => app.data('mutation { createPost(input: { title: "Three" }) { viewer { allPosts { edges { node { title } } } } } }'));
    expect(viewer.transactions).toBe(1);
    expect(viewer.result.createPost.viewer.allPosts.edges.map((e: Json) => e.node.title)).toContain('Three');
  });

  it('takes the transaction for nested creates and links that move, and writes them all', async () => {
    const nested = await counted(() => app.data('mutation { createAuthor(input: { name: "Bo", posts: [{ title: "Nested" }] }) { changedAuthor { id posts { edges { node { title } } } } } }'));
    expect(nested.transactions).toBe(1);
    expect(nested.result.createAuthor.changedAuthor.posts.edges).toEqual([{ node: { title: 'Nested' } }]);
    // A one-to-one link is taken from whoever held it: more than one INSERT.
    const profile = await counted(() => app.data('mutation($a: ID!) { createProfile(input: { bio: "x", authorId: $a }) { changedProfile { author { name } } } }', { a: ids.author }));
    expect(profile.transactions).toBe(1);
    expect(profile.result.createProfile.changedProfile.author.name).toBe('Ada');
  });

  it('turns a taken unique value and an id of nothing into coded errors, writing nothing', async () => {
    await app.data('mutation { createPost(input: { title: "Slugged", slug: "same" }) { changedPost { id } } }');
    const taken = await counted(() => app.gql('mutation { createPost(input: { title: "Again", slug: "same" }) { changedPost { id } } }'));
    expect(taken.transactions).toBe(0);
    expect(code(taken.result)).toBe('CONFLICT');
    expect(taken.result.body.errors[0].extensions).toMatchObject({ type: 'Post', field: 'slug' });
    const nobody = Buffer.from('Author:00000000-0000-4000-8000-000000000000').toString('base64url');
    const gone = await counted(() => app.gql('mutation($a: ID!) { createPost(input: { title: "Ghost", authorId: $a }) { changedPost { id } } }', { a: nobody }));
    expect(gone.transactions).toBe(0);
    expect(code(gone.result)).toBe('BAD_USER_INPUT');
    expect(gone.result.body.errors[0].extensions.field).toBe('authorId');
    const all = await app.data('{ viewer { allPosts { edges { node { title } } } } }');
    const titles = all.viewer.allPosts.edges.map((e: Json) => e.node.title);
    expect(titles).not.toContain('Again');
    expect(titles).not.toContain('Ghost');
  });

  it("runs a user's create under an AUTHENTICATED rule as one statement, reading the payload under the user's rules", async () => {
    const own = await counted(() => asUser('ann', 'mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id text owner { id } } } }', { i: { text: 'mine', ownerId: ids.ann } }));
    // Linking to a user needs reading them (SELF): that check takes the transaction.
    expect(own.transactions).toBe(1);
    expect(own.result.body.data.createNote.changedNote.text).toBe('mine');
    const plain = await counted(() => asUser('ann', 'mutation { createNote(input: { text: "nobody owns it" }) { changedNote { id text } } }'));
    expect(plain.transactions).toBe(0);
    expect(plain.statements).toBe(1);
    // Written, but not the user's to read (the read rule needs them as owner): the payload says null.
    expect(plain.result.body.data.createNote.changedNote).toBeNull();
    const notes = await app.data('{ viewer { allNotes { edges { node { text } } } } }');
    expect(notes.viewer.allNotes.edges.map((e: Json) => e.node.text).sort()).toEqual(['mine', 'nobody owns it']);
    // Nobody logged in: the rule refuses, and nothing is written.
    const anonymous = await app.gql('mutation { createNote(input: { text: "anon" }) { changedNote { id } } }', {}, {});
    expect(['FORBIDDEN', 'UNAUTHENTICATED']).toContain(code(anonymous));
    const after = await app.data('{ viewer { allNotes { edges { node { text } } } } }');
    expect(after.viewer.allNotes.edges).toHaveLength(2);
  });

  it('checks a row-dependent create rule in a transaction: nobody creates for someone else', async () => {
    const forBob = await counted(() => asUser('ann', 'mutation($i: CreateTicketInput!) { createTicket(input: $i) { changedTicket { id } } }', { i: { text: 'forged', ownerId: ids.bob } }));
    expect(forBob.transactions).toBe(1);
    expect(['FORBIDDEN', 'BAD_USER_INPUT']).toContain(code(forBob.result));
    const own = await asUser('bob', 'mutation($i: CreateTicketInput!) { createTicket(input: $i) { changedTicket { text } } }', { i: { text: 'real', ownerId: ids.bob } });
    expect(own.body.data.createTicket.changedTicket.text).toBe('real');
    const tickets = await app.data('{ viewer { allTickets { edges { node { text } } } } }');
    expect(tickets.viewer.allTickets.edges.map((e: Json) => e.node.text)).toEqual(['real']);
  });

  it('publishes the created row to subscribers, as the transaction path does', async () => {
    const c = client(app.endpoint, app.token);
    try {
      const sub = subscribe(c, 'subscription { subscribeToPost(mutations: [createPost]) { mutation value { title score author { name } } } }');
      await waitForSubscriptions(server.base, 1);
      const { transactions } = await counted(() => app.data('mutation($a: ID!) { createPost(input: { title: "Heard", score: 7, authorId: $a }) { changedPost { id } } }', { a: ids.author }));
      expect(transactions).toBe(0);
      const [event] = await sub.take(1);
      expect(event).toMatchObject({ data: { subscribeToPost: { mutation: 'createPost', value: { title: 'Heard', score: 7, author: { name: 'Ada' } } } } });
      await sub.close();
    } finally {
      await c.dispose();
    }
  });
  // One-statement writes are compiled once per root field, kind of caller and input shape, and
  // bound per request: what must not leak from one request's plan into another's.
  const CREATE = 'mutation($i: CreatePostInput!) { createPost(input: $i) { clientMutationId changedPost { id title score author { name } } } }';
  const UPDATE = 'mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { title score author { name } } } }';

  it('binds each request’s own values into a kept write, and keeps one per input shape', async () => {
    const other = await app.data('mutation { createAuthor(input: { name: "Grace" }) { changedAuthor { id } } }');
    const grace = other.createAuthor.changedAuthor.id;
    const made: Json[] = [];
    for (const [i, input] of [
      { title: 'K1', score: 1, authorId: ids.author, clientMutationId: 'first' },
      { title: 'K2', score: 2, authorId: grace, clientMutationId: 'second' },
      { title: 'K3', authorId: null },
      { title: 'K4' },
    ].entries()) {
      const { result, transactions } = await counted(() => app.data(CREATE, { i: input }));
      expect(transactions, `create ${i}`).toBe(0);
      made.push(result.createPost);
    }
    expect(made.map((p) => [p.clientMutationId, p.changedPost.title, p.changedPost.score, p.changedPost.author?.name ?? null])).toEqual([
      ['first', 'K1', 1, 'Ada'],
      ['second', 'K2', 2, 'Grace'],
      [null, 'K3', null, null],
      [null, 'K4', null, null],
    ]);
    // An update giving other fields than the one before changes only those: a kept plan of
    // another shape would set the fields it does not give to null.
    const id = made[1].changedPost.id;
    const scored = await app.data(UPDATE, { i: { id, score: 20 } });
    expect(scored.updatePost.changedPost).toEqual({ title: 'K2', score: 20, author: { name: 'Grace' } });
    const renamed = await app.data(UPDATE, { i: { id, title: 'K2 renamed' } });
    expect(renamed.updatePost.changedPost).toEqual({ title: 'K2 renamed', score: 20, author: { name: 'Grace' } });
    const unlinked = await app.data(UPDATE, { i: { id, authorId: null } });
    expect(unlinked.updatePost.changedPost).toEqual({ title: 'K2 renamed', score: 20, author: null });
    const relinked = await app.data(UPDATE, { i: { id, authorId: ids.author } });
    expect(relinked.updatePost.changedPost).toEqual({ title: 'K2 renamed', score: 20, author: { name: 'Ada' } });
    const read = await app.data('query($id: ID!) { getPost(id: $id) { title score author { name } } }', { id });
    expect(read.getPost).toEqual({ title: 'K2 renamed', score: 20, author: { name: 'Ada' } });
  });

  it('checks every request’s values against a kept write: bad values are coded errors and write nothing', async () => {
    await app.data(CREATE, { i: { title: 'Fine', score: 1, authorId: ids.author } });
    const tag = await app.data('mutation { createTag(input: { label: "t" }) { changedTag { id } } }');
    const refused = [
      await app.gql(CREATE, { i: { title: 'x'.repeat(10_001), score: 1, authorId: ids.author } }),
      await app.gql(CREATE, { i: { title: 'Wrong link', score: 1, authorId: tag.createTag.changedTag.id } }),
      await app.gql(CREATE, { i: { title: 'Bad id', score: 1, authorId: 'not an id' } }),
    ];
    expect(refused.map((r) => r.body.errors?.length)).toEqual([1, 1, 1]);
    expect(refused.map(code)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT', 'BAD_USER_INPUT']);
    for (const r of refused) expect(JSON.stringify(r.body)).not.toMatch(/INSERT|tessera\$changed/);
    const all = await app.data('{ viewer { allPosts { edges { node { title } } } } }');
    const titles = all.viewer.allPosts.edges.map((e: Json) => e.node.title);
    expect(titles).toContain('Fine');
    expect(titles.filter((t: string) => t.startsWith('x') || t === 'Wrong link' || t === 'Bad id')).toEqual([]);
  });

  it('keeps writes apart per kind of caller: an admin’s plan never serves a user or an anonymous caller', async () => {
    const NOTE = 'mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { text } } }';
    // First by the admin token: no rules, the payload reads the note.
    const byAdmin = await app.data(NOTE, { i: { text: 'admin note' } });
    expect(byAdmin.createNote.changedNote).toEqual({ text: 'admin note' });
    // The same document by a user: the user's rules, under which the note (no owner) is not theirs to read.
    const byUser = await counted(() => asUser('ann', NOTE, { i: { text: 'user note' } }));
    expect(byUser.transactions).toBe(0);
    expect(byUser.result.body.data.createNote.changedNote).toBeNull();
    // And anonymously, after both kept a plan: refused, nothing written.
    const anonymous = await app.gql(NOTE, { i: { text: 'anonymous note' } }, {});
    expect(['FORBIDDEN', 'UNAUTHENTICATED']).toContain(code(anonymous));
    const notes = await app.data('{ viewer { allNotes { edges { node { text } } } } }');
    const texts = notes.viewer.allNotes.edges.map((e: Json) => e.node.text);
    expect(texts).toEqual(expect.arrayContaining(['admin note', 'user note']));
    expect(texts).not.toContain('anonymous note');
    // An update a user may make on any Post, first by a user, then anonymously with the same document.
    const id = (await app.data(CREATE, { i: { title: 'Guarded' } })).createPost.changedPost.id;
    const updated = await asUser('ann', UPDATE, { i: { id, score: 5 } });
    expect(updated.body.data.updatePost.changedPost.score).toBe(5);
    const forged = await app.gql(UPDATE, { i: { id, score: 6 } }, {});
    expect(['FORBIDDEN', 'UNAUTHENTICATED', 'NOT_FOUND']).toContain(code(forged));
    expect((await app.data('query($id: ID!) { getPost(id: $id) { score } }', { id })).getPost.score).toBe(5);
  });

  it('follows the variables a kept write’s payload depends on, and subscribers who arrive after it was kept', async () => {
    const withAuthor = 'mutation($i: CreatePostInput!, $a: Boolean!) { createPost(input: $i) { changedPost { title author @include(if: $a) { name } } } }';
    const shown = await app.data(withAuthor, { i: { title: 'Shown', authorId: ids.author }, a: true });
    const hidden = await app.data(withAuthor, { i: { title: 'Hidden', authorId: ids.author }, a: false });
    expect(shown.createPost.changedPost).toEqual({ title: 'Shown', author: { name: 'Ada' } });
    expect(hidden.createPost.changedPost).toEqual({ title: 'Hidden' });
    // Kept while nobody listened; a subscriber arriving later hears the next write of it.
    const heard = 'mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }';
    await app.data(heard, { i: { title: 'Unheard' } });
    const c = client(app.endpoint, app.token);
    try {
      const sub = subscribe(c, 'subscription { subscribeToPost(mutations: [createPost]) { value { title } } }');
      await waitForSubscriptions(server.base, 1);
      const { transactions } = await counted(() => app.data(heard, { i: { title: 'Heard later' } }));
      expect(transactions).toBe(0);
      const [event] = await sub.take(1);
      expect(event).toMatchObject({ data: { subscribeToPost: { value: { title: 'Heard later' } } } });
      await sub.close();
    } finally {
      await c.dispose();
    }
  });

  const POST = 'changedPost { title score author { name } }';
  async function newPost(title: string): Promise<string> {
    const made = await app.data('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: { title, authorId: ids.author } });
    return made.createPost.changedPost.id;
  }

  it('updates as one statement, answers NOT_FOUND for an id of nothing, and takes the transaction for a payload that reads the type again', async () => {
    const id = await newPost('Before');
    const plain = await counted(() => app.data(`mutation($id: ID!) { updatePost(input: { id: $id, title: "After", score: 9 }) { ${POST} } }`, { id }));
    expect(plain.transactions).toBe(0);
    expect(plain.statements).toBe(1);
    expect(plain.result.updatePost.changedPost).toEqual({ title: 'After', score: 9, author: { name: 'Ada' } });
    const unlinked = await counted(() => app.data('mutation($id: ID!) { updatePost(input: { id: $id, authorId: null }) { changedPost { title author { name } } } }', { id }));
    expect(unlinked.transactions).toBe(0);
    expect(unlinked.result.updatePost.changedPost).toEqual({ title: 'After', author: null });
    const nobody = Buffer.from('Post:00000000-0000-4000-8000-000000000000').toString('base64url');
    const missing = await counted(() => app.gql('mutation($id: ID!) { updatePost(input: { id: $id, title: "x" }) { changedPost { id } } }', { id: nobody }));
    expect(missing.transactions).toBe(0);
    expect(code(missing.result)).toBe('NOT_FOUND');
    const relinked = await counted(() => app.data(`mutation($id: ID!, $a: ID!) { updatePost(input: { id: $id, title: "Again", authorId: $a }) { changedPost { author { posts { edges { node { title } } } } } } }`, { id, a: ids.author }));
    expect(relinked.transactions).toBe(1);
    expect(relinked.result.updatePost.changedPost.author.posts.edges.map((e: Json) => e.node.title)).toContain('Again');
    const read = await app.data('query($id: ID!) { getPost(id: $id) { title author { name } } }', { id });
    expect(read.getPost).toEqual({ title: 'Again', author: { name: 'Ada' } });
  });

  it('deletes as one statement, answering the last copy, and null for an id of nothing', async () => {
    const id = await newPost('Doomed');
    const gone = await counted(() => app.data(`mutation($id: ID!) { deletePost(input: { id: $id }) { ${POST} } }`, { id }));
    expect(gone.transactions).toBe(0);
    expect(gone.statements).toBe(1);
    expect(gone.result.deletePost.changedPost).toEqual({ title: 'Doomed', score: null, author: { name: 'Ada' } });
    expect((await app.data('query($id: ID!) { getPost(id: $id) { id } }', { id })).getPost).toBeNull();
    const again = await counted(() => app.gql(`mutation($id: ID!) { deletePost(input: { id: $id }) { ${POST} } }`, { id }));
    expect(again.result.body.errors).toBeUndefined();
    expect(again.result.body.data.deletePost.changedPost).toBeNull();
  });

  it("updates and deletes for a user whose rules grant any row in one statement, and checks row-dependent rules in a transaction", async () => {
    const id = await newPost('Shared');
    const anonymous = await app.gql('mutation($id: ID!) { updatePost(input: { id: $id, title: "anon" }) { changedPost { title } } }', { id }, {});
    expect(['FORBIDDEN', 'UNAUTHENTICATED']).toContain(code(anonymous));
    const byUser = await counted(() => asUser('ann', 'mutation($id: ID!) { updatePost(input: { id: $id, title: "By ann" }) { changedPost { title } } }', { id }));
    expect(byUser.transactions).toBe(0);
    expect(byUser.result.body.data.updatePost.changedPost.title).toBe('By ann');
    const ticket = await asUser('bob', 'mutation($i: CreateTicketInput!) { createTicket(input: $i) { changedTicket { id } } }', { i: { text: 'bob\'s', ownerId: ids.bob } });
    const ticketId = ticket.body.data.createTicket.changedTicket.id;
    const forged = await counted(() => asUser('ann', 'mutation($id: ID!) { updateTicket(input: { id: $id, text: "taken" }) { changedTicket { text } } }', { id: ticketId }));
    expect(forged.transactions).toBe(1);
    expect(['NOT_FOUND', 'FORBIDDEN']).toContain(code(forged.result));
    const stillBobs = await asUser('bob', 'mutation($id: ID!) { updateTicket(input: { id: $id, text: "kept" }) { changedTicket { text } } }', { id: ticketId });
    expect(stillBobs.body.data.updateTicket.changedTicket.text).toBe('kept');
    const deleted = await counted(() => asUser('bob', 'mutation($id: ID!) { deletePost(input: { id: $id }) { changedPost { title } } }', { id }));
    expect(deleted.transactions).toBe(0);
    expect(deleted.result.body.data.deletePost.changedPost.title).toBe('By ann');
  });

  it('publishes updates and deletes made in one statement, a deleted row with its last state', async () => {
    const id = await newPost('Watched');
    const c = client(app.endpoint, app.token);
    try {
      const sub = subscribe(c, 'subscription { subscribeToPost(mutations: [updatePost, deletePost]) { mutation value { title } } }');
      await waitForSubscriptions(server.base, 1);
      const updated = await counted(() => app.data('mutation($id: ID!) { updatePost(input: { id: $id, title: "Seen" }) { changedPost { id } } }', { id }));
      const deleted = await counted(() => app.data('mutation($id: ID!) { deletePost(input: { id: $id }) { changedPost { id } } }', { id }));
      expect(updated.transactions + deleted.transactions).toBe(0);
      const events = await sub.take(2);
      expect(events[0]).toMatchObject({ data: { subscribeToPost: { mutation: 'updatePost', value: { title: 'Seen' } } } });
      expect(events[1]).toMatchObject({ data: { subscribeToPost: { mutation: 'deletePost', value: { title: 'Seen' } } } });
      await sub.close();
    } finally {
      await c.dispose();
    }
  });
});
