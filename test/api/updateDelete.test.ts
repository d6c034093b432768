// updateX and deleteX over HTTP on both stores: partial updates, clearing with null, moving and
// clearing singular relations by id, refused ids and values (nothing half-written), the
// deleted object's last copy, and references and edges cleaned up after a delete.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { WRITE_SCHEMA, countOf, errorCode, joinRows, missingId, newPost, newUser, sleep, unique } from './writes.js';

const THING = `id title label quantity ratio active at data mood code status tags address { city geo { x } } createdAt modifiedAt`;
const UPDATE_THING = `mutation($i: UpdateThingInput!) { updateThing(input: $i) { changedThing { ${THING} } } }`;
const UPDATE_POST = 'mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { title rating author { id } } } }';

describe.each(STORE_KINDS)('updateX and deleteX (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, WRITE_SCHEMA);
  });
  afterAll(async () => server?.close());

  async function newThing(extra: Json = {}): Promise<Json> {
    const input = {
      title: unique('thing'), label: 'label', quantity: 3, ratio: 2.5, active: true, at: '2017-03', data: { k: 1 },
      mood: 'SAD', code: unique('code'), tags: ['a', 'b'], address: { city: 'C', geo: { x: 1 } }, ...extra,
    };
    const data = await app.data(`mutation($i: CreateThingInput!) { createThing(input: $i) { changedThing { ${THING} } } }`, { i: input });
    return data.createThing.changedThing;
  }

  async function getThing(id: string): Promise<Json> {
    return (await app.data(`query($id: ID!) { getThing(id: $id) { ${THING} } }`, { id })).getThing;
  }

  async function authorOf(postId: string): Promise<string | null> {
    const data = await app.data('query($id: ID!) { getPost(id: $id) { author { id } } }', { id: postId });
    return data.getPost.author?.id ?? null;
  }

  describe('updateX', () => {
    it('changes only the fields given; modifiedAt moves forward and createdAt stays', async () => {
      const before = await newThing();
      await sleep(5);
      const data = await app.data(UPDATE_THING, { i: { id: before.id, quantity: 4, address: { city: 'D' } } });
      const after = data.updateThing.changedThing;
      expect(after).toEqual({ ...before, quantity: 4, address: { city: 'D', geo: null }, modifiedAt: expect.any(String) });
      expect(after.createdAt).toBe(before.createdAt);
      expect(Date.parse(after.modifiedAt)).toBeGreaterThan(Date.parse(before.modifiedAt));
      expect(await getThing(before.id)).toEqual(after);
    });

    it('leaves a field whose variable was not sent unchanged, and clears it when the variable is null', async () => {
      const thing = await newThing();
      const query = 'mutation($id: ID!, $label: String) { updateThing(input: { id: $id, label: $label }) { changedThing { label } } }';
      expect((await app.data(query, { id: thing.id })).updateThing.changedThing.label).toBe('label');
      expect((await app.data(query, { id: thing.id, label: null })).updateThing.changedThing.label).toBeNull();
    });

    it('clears nullable fields given an explicit null: scalars, JSON, lists and embedded values', async () => {
      const thing = await newThing();
      const data = await app.data(UPDATE_THING, { i: { id: thing.id, label: null, quantity: null, ratio: null, active: null, at: null, data: null, mood: null, code: null, tags: null, address: null } });
      expect(data.updateThing.changedThing).toMatchObject({
        title: thing.title, status: 'HAPPY', label: null, quantity: null, ratio: null, active: null, at: null, data: null, mood: null, code: null, tags: null, address: null,
      });
    });

    it('refuses null on a required field with BAD_USER_INPUT and changes nothing, other fields given included', async () => {
      const thing = await newThing();
      for (const input of [{ title: null, label: 'changed' }, { status: null, quantity: 99 }]) {
        const reply = await app.gql(UPDATE_THING, { i: { id: thing.id, ...input } });
        expect(errorCode(reply, 'updateThing'), JSON.stringify(input)).toBe('BAD_USER_INPUT');
      }
      expect(await getThing(thing.id)).toEqual(thing);
    });

    it('refuses a String over 10,000 characters, a NUL character and a taken unique value, changing nothing', async () => {
      const taken = await newThing();
      const thing = await newThing();
      const cases: [Json, string][] = [
        [{ label: 'x'.repeat(10_001), quantity: 1 }, 'BAD_USER_INPUT'],
        [{ label: 'nul\u0000', quantity: 1 }, 'BAD_USER_INPUT'],
        [{ code: taken.code, quantity: 1 }, 'CONFLICT'],
      ];
      for (const [input, code] of cases) {
        expect(errorCode(await app.gql(UPDATE_THING, { i: { id: thing.id, ...input } }), 'updateThing')).toBe(code);
      }
      expect(await getThing(thing.id)).toEqual(thing);
    });

    it('refuses renaming a user to a username taken in another case with CONFLICT', async () => {
      const name = unique('Bea');
      await newUser(app, name);
      const other = await newUser(app);
      const reply = await app.gql('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { username } } }', { i: { id: other, username: name.toUpperCase() } });
      expect(errorCode(reply, 'updateUser')).toBe('CONFLICT');
      const same = await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { username } } }', { i: { id: other, bio: 'kept name' } });
      expect(same.updateUser.changedUser.username).toMatch(/^user-/);
    });

    it('moves a singular relation with <relation>Id and clears it with "" (and with null)', async () => {
      const [ann, bob] = [await newUser(app), await newUser(app)];
      const post = await newPost(app, { authorId: ann });
      expect((await app.data(UPDATE_POST, { i: { id: post, authorId: bob } })).updatePost.changedPost.author).toEqual({ id: bob });
      expect(await countOf(app, 'Post', 'Posts', { authorId: { eq: ann } })).toBe(0);
      expect((await app.data(UPDATE_POST, { i: { id: post, authorId: '' } })).updatePost.changedPost.author).toBeNull();
      await app.data(UPDATE_POST, { i: { id: post, authorId: ann } });
      expect((await app.data(UPDATE_POST, { i: { id: post, authorId: null } })).updatePost.changedPost.author).toBeNull();
      // Not given: the relation stays.
      await app.data(UPDATE_POST, { i: { id: post, authorId: ann } });
      expect((await app.data(UPDATE_POST, { i: { id: post, rating: 5 } })).updatePost.changedPost).toEqual({ title: expect.any(String), rating: 5, author: { id: ann } });
    });

    it('answers NOT_FOUND for an id of nothing, BAD_USER_INPUT for an id of another type or not an id', async () => {
      const user = await newUser(app);
      const cases: [string, string][] = [
        [missingId('Post'), 'NOT_FOUND'],
        [user, 'BAD_USER_INPUT'],
        ['not-an-id', 'BAD_USER_INPUT'],
        ['', 'BAD_USER_INPUT'],
        [Buffer.from('Post:1234').toString('base64url'), 'BAD_USER_INPUT'],
      ];
      for (const [id, code] of cases) {
        expect(errorCode(await app.gql(UPDATE_POST, { i: { id, title: 'x' } }), 'updatePost'), id).toBe(code);
      }
    });

    it('refuses a relation id of nothing, of another type or malformed with BAD_USER_INPUT, rolling back the whole update', async () => {
      const ann = await newUser(app);
      const post = await newPost(app, { authorId: ann, rating: 1 });
      for (const authorId of [missingId('User'), post, 'garbage']) {
        const reply = await app.gql(UPDATE_POST, { i: { id: post, rating: 2, authorId } });
        expect(errorCode(reply, 'updatePost'), authorId).toBe('BAD_USER_INPUT');
      }
      const data = await app.data('query($id: ID!) { getPost(id: $id) { rating author { id } } }', { id: post });
      expect(data.getPost).toEqual({ rating: 1, author: { id: ann } });
    });

    it('returns clientMutationId, changedEdge and viewer in the update payload', async () => {
      const thing = await newThing();
      const data = await app.data(
        `mutation($i: UpdateThingInput!) { u: updateThing(input: $i) { __typename clientMutationId changedEdge { cursor node { label } } viewer { allThings(where: { label: { eq: "renamed" } }) { edges { node { id } } } } } }`,
        { i: { id: thing.id, label: 'renamed', clientMutationId: 'upd-1' } },
      );
      expect(data.u).toEqual({
        __typename: 'UpdateThingPayload',
        clientMutationId: 'upd-1',
        changedEdge: { cursor: expect.any(String), node: { label: 'renamed' } },
        viewer: { allThings: { edges: [{ node: { id: thing.id } }] } },
      });
    });
  });

  describe('deleteX', () => {
    it('returns a last copy of the deleted object with every selected field, relations as they were', async () => {
      const author = await newUser(app, unique('author'), { bio: 'writes' });
      const editor = await newUser(app);
      const post = await newPost(app, { authorId: author, rating: 3 });
      await app.data('mutation($u: ID!, $p: ID!) { addToUserEditsConnection(input: { userId: $u, postId: $p }) { clientMutationId } }', { u: editor, p: post });
      const before = await countOf(app, 'Post', 'Posts');
      const query = `mutation($id: ID!) { deletePost(input: { id: $id, clientMutationId: "del" }) {
        clientMutationId
        changedPost { id title rating createdAt author { id bio } editors { edges { node { id } } aggregations { count } } }
        changedEdge { cursor node { id } }
        viewer { allPosts { aggregations { count } } }
      } }`;
      const data = await app.data(query, { id: post });
      expect(data.deletePost).toEqual({
        clientMutationId: 'del',
        changedPost: {
          id: post, title: expect.any(String), rating: 3, createdAt: expect.any(String),
          author: { id: author, bio: 'writes' },
          editors: { edges: [{ node: { id: editor } }], aggregations: { count: 1 } },
        },
        changedEdge: { cursor: expect.any(String), node: { id: post } },
        viewer: { allPosts: { aggregations: { count: before - 1 } } },
      });
      expect((await app.data('query($id: ID!) { getPost(id: $id) { id } }', { id: post })).getPost).toBeNull();
      // Deleting it again: nothing has that id any more.
      const again = await app.gql(query, { id: post });
      expect(again.body).toEqual({ data: { deletePost: { clientMutationId: 'del', changedPost: null, changedEdge: null, viewer: { allPosts: { aggregations: { count: before - 1 } } } } } });
    });

    it('answers changedX null without an error for an id of nothing; BAD_USER_INPUT for another type or not an id', async () => {
      const reply = await app.gql('mutation($id: ID!) { deleteUser(input: { id: $id }) { changedUser { id } } }', { id: missingId('User') });
      expect(reply.body).toEqual({ data: { deleteUser: { changedUser: null } } });
      const post = await newPost(app);
      for (const id of [post, 'not-an-id']) {
        const bad = await app.gql('mutation($id: ID!) { deleteUser(input: { id: $id }) { changedUser { id } } }', { id });
        expect(errorCode(bad, 'deleteUser'), id).toBe('BAD_USER_INPUT');
      }
      expect((await app.data('query($id: ID!) { getPost(id: $id) { id } }', { id: post })).getPost).toEqual({ id: post });
    });

    it('clears the references other objects hold to the deleted one', async () => {
      const author = await newUser(app);
      const posts = [await newPost(app, { authorId: author }), await newPost(app, { authorId: author })];
      const data = await app.data('mutation($id: ID!) { deleteUser(input: { id: $id }) { changedUser { posts { edges { node { id } } } } } }', { id: author });
      expect(data.deleteUser.changedUser.posts.edges.map((e: Json) => e.node.id).sort()).toEqual([...posts].sort());
      for (const post of posts) expect(await authorOf(post)).toBeNull();
      expect(await countOf(app, 'Post', 'Posts', { id: { in: posts }, authorId: { isNull: true } })).toBe(2);
    });

    it('clears a one-to-one link from either side when one end is deleted', async () => {
      const country = await app.data('mutation($n: String!) { createCountry(input: { name: $n, capitalCity: { name: "Cap" } }) { changedCountry { id capitalCity { id } } } }', { n: unique('land') });
      const { id: countryId, capitalCity } = country.createCountry.changedCountry;
      await app.data('mutation($id: ID!) { deleteCity(input: { id: $id }) { changedCity { id } } }', { id: capitalCity.id });
      expect((await app.data('query($id: ID!) { getCountry(id: $id) { capitalCity { id } } }', { id: countryId })).getCountry).toEqual({ capitalCity: null });

      const city = await app.data('mutation($n: String!) { createCity(input: { name: "Town", capitalOf: { name: $n } }) { changedCity { id capitalOf { id } } } }', { n: unique('land') });
      const { id: cityId, capitalOf } = city.createCity.changedCity;
      await app.data('mutation($id: ID!) { deleteCountry(input: { id: $id }) { changedCountry { id } } }', { id: capitalOf.id });
      expect((await app.data('query($id: ID!) { getCity(id: $id) { capitalOf { id } } }', { id: cityId })).getCity).toEqual({ capitalOf: null });
    });

    it('removes the many-to-many edges of the deleted object from both sides and from the join tables', async () => {
      const [gone, friend, post] = [await newUser(app), await newUser(app), await newPost(app)];
      await app.data(
        `mutation($g: ID!, $f: ID!, $p: ID!) {
          e: addToUserEditsConnection(input: { userId: $g, postId: $p }) { clientMutationId }
          f: addToFriendshipConnection(input: { user1Id: $f, user2Id: $g, status: ACCEPTED }) { clientMutationId }
          o: addToFollowsConnection(input: { user1Id: $g, user2Id: $f }) { clientMutationId }
          r: addToFollowsConnection(input: { user1Id: $f, user2Id: $g }) { clientMutationId }
        }`,
        { g: gone, f: friend, p: post },
      );
      const rows = { edits: await joinRows(app, 'UserEdits'), friends: await joinRows(app, 'Friendship'), follows: await joinRows(app, 'Follows') };
      const deleted = await app.data('mutation($id: ID!) { deleteUser(input: { id: $id }) { changedUser { friends { edges { status node { id } } } edits { edges { node { id } } } } } }', { id: gone });
      expect(deleted.deleteUser.changedUser).toEqual({ friends: { edges: [{ status: 'ACCEPTED', node: { id: friend } }] }, edits: { edges: [{ node: { id: post } }] } });
      const after = await app.data(
        `query($f: ID!, $p: ID!) {
          p: getPost(id: $p) { editors { edges { node { id } } aggregations { count } } }
          f: getUser(id: $f) { friends { aggregations { count } } following { aggregations { count } } followers { aggregations { count } } }
        }`,
        { f: friend, p: post },
      );
      expect(after).toEqual({
        p: { editors: { edges: [], aggregations: { count: 0 } } },
        f: { friends: { aggregations: { count: 0 } }, following: { aggregations: { count: 0 } }, followers: { aggregations: { count: 0 } } },
      });
      expect({ edits: await joinRows(app, 'UserEdits'), friends: await joinRows(app, 'Friendship'), follows: await joinRows(app, 'Follows') })
        .toEqual({ edits: rows.edits - 1, friends: rows.friends - 1, follows: rows.follows - 2 });
    });
  });
});
