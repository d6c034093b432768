// Nested creates over HTTP on both stores: a related object created with its parent through a
// singular, one-to-one, one-to-many or many-to-many relation field, the id-wins rule, deeper
// nesting, and a failure anywhere in the tree rolling back the whole mutation.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { WRITE_SCHEMA, countOf, errorCode, joinRows, newUser, unique } from './writes.js';

const ids = (connection: Json): string[] => connection.edges.map((e: Json) => e.node.id).sort();

describe.each(STORE_KINDS)('nested create (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, WRITE_SCHEMA);
  });
  afterAll(async () => server?.close());

  /** Counts of every type and join table, to see that a failed mutation left nothing. */
  async function totals(): Promise<Json> {
    const data = await app.data('{ viewer { u: allUsers { aggregations { count } } p: allPosts { aggregations { count } } c: allCountries { aggregations { count } } t: allCities { aggregations { count } } } }');
    return {
      users: data.viewer.u.aggregations.count,
      posts: data.viewer.p.aggregations.count,
      countries: data.viewer.c.aggregations.count,
      cities: data.viewer.t.aggregations.count,
      edits: await joinRows(app, 'UserEdits'),
      friendships: await joinRows(app, 'Friendship'),
      follows: await joinRows(app, 'Follows'),
    };
  }

  it('creates the related object of a singular relation and links the two', async () => {
    const username = unique('nested-author');
    const users = await countOf(app, 'User', 'Users');
    const data = await app.data(
      'mutation($u: String!) { createPost(input: { title: "with author", author: { username: $u, password: "pw-123456", bio: "new" } }) { changedPost { id author { id username bio posts { edges { node { id } } } } } } }',
      { u: username },
    );
    const post = data.createPost.changedPost;
    expect(post.author).toEqual({ id: expect.any(String), username, bio: 'new', posts: { edges: [{ node: { id: post.id } }] } });
    expect(await countOf(app, 'User', 'Users')).toBe(users + 1);
    expect(await countOf(app, 'Post', 'Posts', { author: { username: { eq: username } } })).toBe(1);
  });

  it('links to the existing object when both <relation>Id and the nested object are given: the nested one is not created', async () => {
    const existing = await newUser(app);
    const nestedName = unique('never-created');
    const users = await countOf(app, 'User', 'Users');
    const data = await app.data(
      'mutation($a: ID, $u: String!) { createPost(input: { title: "id wins", authorId: $a, author: { username: $u, password: "pw-123456" } }) { changedPost { author { id } } } }',
      { a: existing, u: nestedName },
    );
    expect(data.createPost.changedPost.author).toEqual({ id: existing });
    expect(await countOf(app, 'User', 'Users')).toBe(users);
    expect(await countOf(app, 'User', 'Users', { username: { eq: nestedName } })).toBe(0);
  });

  it('creates either side of a one-to-one relation nested in the other, visible from both sides', async () => {
    const [land, other] = [unique('land'), unique('land')];
    const fromCountry = await app.data('mutation($n: String!) { createCountry(input: { name: $n, capitalCity: { name: "Capital A" } }) { changedCountry { id name capitalCity { id name capitalOf { name } } } } }', { n: land });
    const country = fromCountry.createCountry.changedCountry;
    expect(country.capitalCity).toEqual({ id: expect.any(String), name: 'Capital A', capitalOf: { name: land } });
    const city = await app.data('query($id: ID!) { getCity(id: $id) { capitalOf { id } } }', { id: country.capitalCity.id });
    expect(city.getCity.capitalOf).toEqual({ id: country.id });

    const fromCity = await app.data('mutation($n: String!) { createCity(input: { name: "Capital B", capitalOf: { name: $n } }) { changedCity { id capitalOf { id name capitalCity { name } } } } }', { n: other });
    const capital = fromCity.createCity.changedCity;
    expect(capital.capitalOf).toEqual({ id: expect.any(String), name: other, capitalCity: { name: 'Capital B' } });
    const back = await app.data('query($id: ID!) { getCountry(id: $id) { capitalCity { id } } }', { id: capital.capitalOf.id });
    expect(back.getCountry.capitalCity).toEqual({ id: capital.id });
  });

  it('creates a list of related objects through a one-to-many relation, each linked to the new parent', async () => {
    const data = await app.data(`mutation($u: String!) { createUser(input: { username: $u, password: "pw-123456", posts: [{ title: "one", rating: 1 }, { title: "two", rating: 2 }] }) {
      changedUser { id posts(orderBy: { field: rating }) { edges { node { id title rating author { username } } } aggregations { count } } }
    } }`, { u: unique('prolific') });
    const user = data.createUser.changedUser;
    expect(user.posts.aggregations.count).toBe(2);
    expect(user.posts.edges.map((e: Json) => e.node)).toEqual([
      { id: expect.any(String), title: 'one', rating: 1, author: expect.any(Object) },
      { id: expect.any(String), title: 'two', rating: 2, author: expect.any(Object) },
    ]);
    expect(await countOf(app, 'Post', 'Posts', { authorId: { eq: user.id } })).toBe(2);
  });

  it('links a nested list item to its new parent even when the item names another parent', async () => {
    const elsewhere = await newUser(app);
    const data = await app.data(
      'mutation($u: String!, $e: ID) { createUser(input: { username: $u, password: "pw-123456", posts: [{ title: "mine", authorId: $e }] }) { changedUser { id posts { edges { node { author { id } } } } } } }',
      { u: unique('parent'), e: elsewhere },
    );
    const user = data.createUser.changedUser;
    expect(user.posts.edges).toEqual([{ node: { author: { id: user.id } } }]);
    expect(await countOf(app, 'Post', 'Posts', { authorId: { eq: elsewhere } })).toBe(0);
  });

  it('creates many-to-many items through the join table, from either end', async () => {
    const rows = await joinRows(app, 'UserEdits');
    const made = await app.data(`mutation($a: String!, $b: String!) { createPost(input: { title: "edited", editors: [{ username: $a, password: "pw-123456" }, { username: $b, password: "pw-123456" }] }) {
      changedPost { id editors { edges { node { id edits { edges { node { title } } } } } } }
    } }`, { a: unique('ed'), b: unique('ed') });
    const post = made.createPost.changedPost;
    expect(post.editors.edges).toHaveLength(2);
    for (const edge of post.editors.edges) expect(edge.node.edits.edges).toEqual([{ node: { title: 'edited' } }]);
    expect(await joinRows(app, 'UserEdits')).toBe(rows + 2);

    const user = await app.data('mutation($u: String!) { createUser(input: { username: $u, password: "pw-123456", edits: [{ title: "e1" }, { title: "e2" }] }) { changedUser { id edits { edges { node { id editors { edges { node { id } } } } } } } } }', { u: unique('writer') });
    const writer = user.createUser.changedUser;
    expect(writer.edits.edges.map((e: Json) => e.node.editors)).toEqual([{ edges: [{ node: { id: writer.id } }] }, { edges: [{ node: { id: writer.id } }] }]);
    expect(await joinRows(app, 'UserEdits')).toBe(rows + 4);
  });

  it('creates self many-to-many items seen from both sides, their join fields at their defaults', async () => {
    const data = await app.data(`mutation($u: String!, $f: String!) { createUser(input: { username: $u, password: "pw-123456", friends: [{ username: $f, password: "pw-123456" }] }) {
      changedUser { id friends { edges { status since node { id username friends { edges { status node { id } } } } } } }
    } }`, { u: unique('host'), f: unique('guest') });
    const host = data.createUser.changedUser;
    expect(host.friends.edges).toEqual([
      { status: 'REQUESTED', since: null, node: { id: expect.any(String), username: expect.stringMatching(/^guest-/), friends: { edges: [{ status: 'REQUESTED', node: { id: host.id } }] } } },
    ]);
  });

  it('creates items of one of two fields between the same type on the right end', async () => {
    const data = await app.data(`mutation($u: String!, $f: String!) { createUser(input: { username: $u, password: "pw-123456", followers: [{ username: $f, password: "pw-123456" }] }) {
      changedUser { id following { aggregations { count } } followers { edges { node { id following { edges { node { id } } } followers { aggregations { count } } } } } }
    } }`, { u: unique('star'), f: unique('fan') });
    const star = data.createUser.changedUser;
    expect(star.following.aggregations.count).toBe(0);
    expect(star.followers.edges).toEqual([{ node: { id: expect.any(String), following: { edges: [{ node: { id: star.id } }] }, followers: { aggregations: { count: 0 } } } }]);
  });

  it('nests as deep as the schema allows, all in one mutation', async () => {
    const data = await app.data(`mutation($u: String!, $e: String!) { createCountry(input: { name: $u, capitalCity: { name: "Deep" } }) { changedCountry { name } }
      createUser(input: { username: $e, password: "pw-123456", posts: [{ title: "deep", editors: [{ username: "${unique('deep-editor')}", password: "pw-123456", friends: [{ username: "${unique('deep-friend')}", password: "pw-123456" }] }] }] }) {
        changedUser { posts(first: 5) { edges { node { title editors(first: 5) { edges { node { friends { aggregations { count } } edits(first: 5) { edges { node { title } } } } } } } } } }
      }
    }`, { u: unique('deep-land'), e: unique('deep-author') });
    expect(data.createUser.changedUser.posts.edges).toEqual([
      { node: { title: 'deep', editors: { edges: [{ node: { friends: { aggregations: { count: 1 } }, edits: { edges: [{ node: { title: 'deep' } }] } } }] } } },
    ]);
  });

  it('rolls back the parent and every sibling when a nested create fails', async () => {
    const taken = unique('taken');
    await newUser(app, taken);
    const slug = unique('slug');
    const before = await totals();
    const cases: [string, Json, string][] = [
      // A unique value taken inside the nested object of a singular relation.
      ['mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { title: 'orphan', author: { username: taken.toUpperCase(), password: 'pw-123456' } }, 'CONFLICT'],
      // Two items of a one-to-many list with the same unique value: the first was written already.
      ['mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { username: unique('rollback'), password: 'pw-123456', posts: [{ title: 'a', slug }, { title: 'b', slug }] }, 'CONFLICT'],
      // A many-to-many item refused after its sibling and the join row were written.
      ['mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { title: 'x', editors: [{ username: unique('fine'), password: 'pw-123456' }, { username: taken, password: 'pw-123456' }] }, 'CONFLICT'],
      // A bad value deep down.
      ['mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { username: unique('deep'), password: 'pw-123456', posts: [{ title: 'ok', editors: [{ username: unique('e'), password: 'pw-123456', bio: 'x'.repeat(10_001) }] }] }, 'BAD_USER_INPUT'],
      ['mutation($i: CreateCountryInput!) { createCountry(input: $i) { changedCountry { id } } }', { name: unique('land'), capitalCity: { name: 'nul\u0000' } }, 'BAD_USER_INPUT'],
      // A nested object naming an object that does not exist.
      ['mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { username: unique('ghost'), password: 'pw-123456', posts: [{ title: 'p', editors: [] }], friends: [{ username: unique('f'), password: 'pw-123456', posts: [{ title: 'q', slug: unique('s') }] }], edits: [{ title: 'r', authorId: 'VXNlcjowMDAwMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDA' }] }, 'BAD_USER_INPUT'],
    ];
    for (const [query, input, code] of cases) {
      const reply = await app.gql(query, { i: input });
      expect(errorCode(reply), JSON.stringify(input).slice(0, 120)).toBe(code);
      expect(reply.body.data).toEqual({ [Object.keys(reply.body.data)[0] as string]: null });
    }
    expect(await totals()).toEqual(before);
  });
});
