// Many-to-many relations over HTTP on both stores: edge mutations (add, update, remove) between
// two types (UserEdits), of a self relation with join fields (Friendship), between two fields
// of one type (Follows) and on the built-in UserRoles; one edge seen from both sides; refusals;
// join fields on connection edges; filters on many-to-many connections.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { WRITE_SCHEMA, errorCode, joinRows, missingId, newPost, newUser, unique } from './writes.js';

const ADD_EDIT = `mutation($u: ID!, $p: ID!) { addToUserEditsConnection(input: { userId: $u, postId: $p, clientMutationId: "add" }) {
  __typename clientMutationId changedUserEdits { __typename user { id } post { id } } user { id edits { edges { node { id } } } } post { id editors { edges { node { id } } } }
} }`;
const UPDATE_EDIT = 'mutation($u: ID!, $p: ID!) { updateUserEditsConnection(input: { userId: $u, postId: $p }) { changedUserEdits { user { id } } } }';
const REMOVE_EDIT = 'mutation($u: ID!, $p: ID!) { removeFromUserEditsConnection(input: { userId: $u, postId: $p }) { changedUserEdits { user { id } post { id } } user { edits { aggregations { count } } } post { editors { aggregations { count } } } } }';

const ADD_FRIEND = 'mutation($i: AddToFriendshipConnectionInput!) { addToFriendshipConnection(input: $i) { changedFriendship { status since user1 { id } user2 { id } } } }';
const UPDATE_FRIEND = 'mutation($i: UpdateFriendshipConnectionInput!) { updateFriendshipConnection(input: $i) { changedFriendship { status since user1 { id } user2 { id } } } }';
const REMOVE_FRIEND = 'mutation($i: RemoveFromFriendshipConnectionInput!) { removeFromFriendshipConnection(input: $i) { changedFriendship { status since user1 { id } user2 { id } } user1 { id } user2 { id } } }';
const FRIENDS = 'query($id: ID!) { getUser(id: $id) { friends { edges { status since node { id } } } } }';

describe.each(STORE_KINDS)('many-to-many (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, WRITE_SCHEMA);
  });
  afterAll(async () => server?.close());

  const friendsOf = async (id: string): Promise<Json[]> => (await app.data(FRIENDS, { id })).getUser.friends.edges;

  describe('between two types (UserEdits)', () => {
    it('adds an edge seen from both sides, returning the join object and both ends', async () => {
      const [user, post] = [await newUser(app), await newPost(app)];
      const rows = await joinRows(app, 'UserEdits');
      const data = await app.data(ADD_EDIT, { u: user, p: post });
      expect(data.addToUserEditsConnection).toEqual({
        __typename: 'AddToUserEditsConnectionPayload',
        clientMutationId: 'add',
        changedUserEdits: { __typename: 'UserEdits', user: { id: user }, post: { id: post } },
        user: { id: user, edits: { edges: [{ node: { id: post } }] } },
        post: { id: post, editors: { edges: [{ node: { id: user } }] } },
      });
      expect(await joinRows(app, 'UserEdits')).toBe(rows + 1);
    });

    it('refuses the same edge twice with CONFLICT', async () => {
      const [user, post] = [await newUser(app), await newPost(app)];
      await app.data(ADD_EDIT, { u: user, p: post });
      const rows = await joinRows(app, 'UserEdits');
      expect(errorCode(await app.gql(ADD_EDIT, { u: user, p: post }), 'addToUserEditsConnection')).toBe('CONFLICT');
      expect(await joinRows(app, 'UserEdits')).toBe(rows);
    });

    it('refuses ids of the wrong type, of nothing or malformed with BAD_USER_INPUT, in every edge mutation', async () => {
      const [user, post] = [await newUser(app), await newPost(app)];
      const rows = await joinRows(app, 'UserEdits');
      const pairs: [string, string][] = [[post, user], [user, user], [missingId('User'), post], [user, missingId('Post')], ['junk', post], [user, '']];
      for (const [u, p] of pairs) {
        expect(errorCode(await app.gql(ADD_EDIT, { u, p }), 'addToUserEditsConnection'), `add ${u} ${p}`).toBe('BAD_USER_INPUT');
      }
      for (const [u, p] of [[post, user], ['junk', post]] as const) {
        expect(errorCode(await app.gql(UPDATE_EDIT, { u, p })), `update ${u}`).toBe('BAD_USER_INPUT');
        expect(errorCode(await app.gql(REMOVE_EDIT, { u, p })), `remove ${u}`).toBe('BAD_USER_INPUT');
      }
      expect(await joinRows(app, 'UserEdits')).toBe(rows);
    });

    it('answers NOT_FOUND when updating a missing edge and changedX null when removing one', async () => {
      const [user, post] = [await newUser(app), await newPost(app)];
      expect(errorCode(await app.gql(UPDATE_EDIT, { u: user, p: post }), 'updateUserEditsConnection')).toBe('NOT_FOUND');
      const removed = await app.gql(REMOVE_EDIT, { u: user, p: post });
      expect(removed.body).toEqual({ data: { removeFromUserEditsConnection: { changedUserEdits: null, user: { edits: { aggregations: { count: 0 } } }, post: { editors: { aggregations: { count: 0 } } } } } });
    });

    it('removes an edge from both sides and the join table, returning it as it was', async () => {
      const [user, other, post] = [await newUser(app), await newUser(app), await newPost(app)];
      await app.data(ADD_EDIT, { u: user, p: post });
      await app.data(ADD_EDIT, { u: other, p: post });
      const rows = await joinRows(app, 'UserEdits');
      const data = await app.data(REMOVE_EDIT, { u: user, p: post });
      expect(data.removeFromUserEditsConnection).toEqual({
        changedUserEdits: { user: { id: user }, post: { id: post } },
        user: { edits: { aggregations: { count: 0 } } },
        post: { editors: { aggregations: { count: 1 } } },
      });
      expect(await joinRows(app, 'UserEdits')).toBe(rows - 1);
      const left = await app.data('query($p: ID!) { getPost(id: $p) { editors { edges { node { id } } } } }', { p: post });
      expect(left.getPost.editors.edges).toEqual([{ node: { id: other } }]);
    });
  });

  describe('self relation with join fields (Friendship)', () => {
    it('adds (A, B) once: B among A\'s friends and A among B\'s, join fields on both sides\' edges', async () => {
      const [a, b] = [await newUser(app), await newUser(app)];
      const data = await app.data(ADD_FRIEND, { i: { user1Id: a, user2Id: b, since: '2017-03' } });
      expect(data.addToFriendshipConnection.changedFriendship).toEqual({ status: 'REQUESTED', since: '2017-03-01T00:00:00.000Z', user1: { id: a }, user2: { id: b } });
      expect(await friendsOf(a)).toEqual([{ status: 'REQUESTED', since: '2017-03-01T00:00:00.000Z', node: { id: b } }]);
      expect(await friendsOf(b)).toEqual([{ status: 'REQUESTED', since: '2017-03-01T00:00:00.000Z', node: { id: a } }]);
    });

    it('refuses the same pair again, either way round, with CONFLICT', async () => {
      const [a, b] = [await newUser(app), await newUser(app)];
      await app.data(ADD_FRIEND, { i: { user1Id: a, user2Id: b } });
      const rows = await joinRows(app, 'Friendship');
      for (const [x, y] of [[a, b], [b, a]]) {
        expect(errorCode(await app.gql(ADD_FRIEND, { i: { user1Id: x, user2Id: y, status: 'ACCEPTED' } }), 'addToFriendshipConnection')).toBe('CONFLICT');
      }
      expect(await joinRows(app, 'Friendship')).toBe(rows);
      expect(await friendsOf(a)).toEqual([{ status: 'REQUESTED', since: null, node: { id: b } }]);
    });

    it('updates only the join fields given, finding the edge either way round; null on a required join field is refused', async () => {
      const [a, b] = [await newUser(app), await newUser(app)];
      await app.data(ADD_FRIEND, { i: { user1Id: a, user2Id: b, since: '2016-12-08T12:33:56Z' } });
      const updated = await app.data(UPDATE_FRIEND, { i: { user1Id: b, user2Id: a, status: 'ACCEPTED' } });
      expect(updated.updateFriendshipConnection.changedFriendship).toEqual({ status: 'ACCEPTED', since: '2016-12-08T12:33:56.000Z', user1: { id: a }, user2: { id: b } });
      expect(await friendsOf(b)).toEqual([{ status: 'ACCEPTED', since: '2016-12-08T12:33:56.000Z', node: { id: a } }]);
      const cleared = await app.data(UPDATE_FRIEND, { i: { user1Id: a, user2Id: b, since: null } });
      expect(cleared.updateFriendshipConnection.changedFriendship).toMatchObject({ status: 'ACCEPTED', since: null });
      expect(errorCode(await app.gql(UPDATE_FRIEND, { i: { user1Id: a, user2Id: b, status: null, since: '2020' } }), 'updateFriendshipConnection')).toBe('BAD_USER_INPUT');
      expect(await friendsOf(a)).toEqual([{ status: 'ACCEPTED', since: null, node: { id: b } }]);
      const stranger = await newUser(app);
      expect(errorCode(await app.gql(UPDATE_FRIEND, { i: { user1Id: a, user2Id: stranger, status: 'ACCEPTED' } }), 'updateFriendshipConnection')).toBe('NOT_FOUND');
    });

    it('removes the edge named either way round from both sides, and answers null for a missing one', async () => {
      const [a, b, c] = [await newUser(app), await newUser(app), await newUser(app)];
      await app.data(ADD_FRIEND, { i: { user1Id: a, user2Id: b, status: 'ACCEPTED' } });
      await app.data(ADD_FRIEND, { i: { user1Id: c, user2Id: a } });
      const rows = await joinRows(app, 'Friendship');
      const removed = await app.data(REMOVE_FRIEND, { i: { user1Id: b, user2Id: a } });
      // The join object is the stored edge; the payload's ends are the ids as given.
      expect(removed.removeFromFriendshipConnection).toEqual({ changedFriendship: { status: 'ACCEPTED', since: null, user1: { id: a }, user2: { id: b } }, user1: { id: b }, user2: { id: a } });
      expect(await joinRows(app, 'Friendship')).toBe(rows - 1);
      expect(await friendsOf(b)).toEqual([]);
      expect((await friendsOf(a)).map((e) => e.node.id)).toEqual([c]);
      const again = await app.gql(REMOVE_FRIEND, { i: { user1Id: a, user2Id: b } });
      expect(again.body.errors).toBeUndefined();
      expect(again.body.data.removeFromFriendshipConnection.changedFriendship).toBeNull();
    });

    it('refuses ids of another type or of nothing with BAD_USER_INPUT', async () => {
      const [a, post] = [await newUser(app), await newPost(app)];
      const rows = await joinRows(app, 'Friendship');
      for (const other of [post, missingId('User'), 'garbage']) {
        expect(errorCode(await app.gql(ADD_FRIEND, { i: { user1Id: a, user2Id: other } }), 'addToFriendshipConnection'), other).toBe('BAD_USER_INPUT');
      }
      expect(await joinRows(app, 'Friendship')).toBe(rows);
    });

    it('filters many-to-many connections by join fields (edge) and the far end (node), and pages through them', async () => {
      const [amy, alf, bo, cy] = [await newUser(app, unique('amy')), await newUser(app, unique('alf')), await newUser(app, unique('bo')), await newUser(app, unique('cy'))];
      await app.data(ADD_FRIEND, { i: { user1Id: amy, user2Id: alf, status: 'ACCEPTED', since: '2018' } });
      await app.data(ADD_FRIEND, { i: { user1Id: bo, user2Id: amy, status: 'ACCEPTED', since: '2021' } });
      await app.data(ADD_FRIEND, { i: { user1Id: cy, user2Id: alf } });
      const data = await app.data(
        `query($ids: [ID!], $amy: ID!) {
          viewer {
            accepted: allUsers(where: { id: { in: $ids }, friends: { edge: { status: { eq: ACCEPTED } }, node: { username: { like: "a%" } } } }, orderBy: { field: username }) { edges { node { id } } }
            early: allUsers(where: { id: { in: $ids }, friends: { edge: { since: { lt: "2020" } } } }) { aggregations { count } }
            requested: allUsers(where: { id: { in: $ids }, friends: { edge: { status: { eq: REQUESTED } } } }, orderBy: { field: username }) { edges { node { id } } }
          }
          amy: getUser(id: $amy) {
            named: friends(where: { username: { like: "BO%" } }) { edges { status since node { id } } }
            first: friends(first: 1, orderBy: { field: username }) { edges { node { id } } pageInfo { hasNextPage endCursor } aggregations { count } }
          }
        }`,
        { ids: [amy, alf, bo, cy], amy },
      );
      expect(data.viewer.accepted.edges.map((e: Json) => e.node.id)).toEqual([alf, amy, bo]);
      expect(data.viewer.early.aggregations.count).toBe(2);
      expect(data.viewer.requested.edges.map((e: Json) => e.node.id)).toEqual([alf, cy]);
      expect(data.amy.named.edges).toEqual([{ status: 'ACCEPTED', since: '2021-01-01T00:00:00.000Z', node: { id: bo } }]);
      expect(data.amy.first).toEqual({ edges: [{ node: { id: alf } }], pageInfo: { hasNextPage: true, endCursor: expect.any(String) }, aggregations: { count: 2 } });
      const next = await app.data('query($amy: ID!, $c: String) { getUser(id: $amy) { friends(first: 1, after: $c, orderBy: { field: username }) { edges { node { id } } pageInfo { hasNextPage } } } }', { amy, c: data.amy.first.pageInfo.endCursor });
      expect(next.getUser.friends).toEqual({ edges: [{ node: { id: bo } }], pageInfo: { hasNextPage: false } });
    });

    it('answers edge payload fields under aliases, in fragments and with __typename', async () => {
      const [a, b] = [await newUser(app), await newUser(app)];
      const data = await app.data(
        `mutation($a: ID!, $b: ID!) { made: addToFriendshipConnection(input: { user1Id: $a, user2Id: $b, clientMutationId: "f" }) { ...Added } }
        fragment Added on AddToFriendshipConnectionPayload {
          __typename cmid: clientMutationId
          edge: changedFriendship { __typename state: status from: user1 { ...U } to: user2 { ...U } }
          first: user1 { ... on Node { id } }
        }
        fragment U on User { __typename key: id }`,
        { a, b },
      );
      expect(data.made).toEqual({
        __typename: 'AddToFriendshipConnectionPayload',
        cmid: 'f',
        edge: { __typename: 'Friendship', state: 'REQUESTED', from: { __typename: 'User', key: a }, to: { __typename: 'User', key: b } },
        first: { id: a },
      });
    });
  });

  describe('two fields of one type (Follows: following / followers)', () => {
    it('adds (user1, user2) as user1 following user2; the reverse pair is another edge', async () => {
      const [a, b] = [await newUser(app), await newUser(app)];
      const query = 'mutation($a: ID!, $b: ID!) { addToFollowsConnection(input: { user1Id: $a, user2Id: $b }) { changedFollows { __typename user1 { id } user2 { id } } } }';
      expect((await app.data(query, { a, b })).addToFollowsConnection.changedFollows).toEqual({ __typename: 'Follows', user1: { id: a }, user2: { id: b } });
      const sides = 'query($a: ID!, $b: ID!) { a: getUser(id: $a) { following { edges { node { id } } } followers { edges { node { id } } } } b: getUser(id: $b) { following { edges { node { id } } } followers { edges { node { id } } } } }';
      expect(await app.data(sides, { a, b })).toEqual({
        a: { following: { edges: [{ node: { id: b } }] }, followers: { edges: [] } },
        b: { following: { edges: [] }, followers: { edges: [{ node: { id: a } }] } },
      });
      expect(errorCode(await app.gql(query, { a, b }), 'addToFollowsConnection')).toBe('CONFLICT');
      await app.data(query, { a: b, b: a });
      const both = await app.data(sides, { a, b });
      expect(both.a.followers.edges).toEqual([{ node: { id: b } }]);
      expect(both.b.following.edges).toEqual([{ node: { id: a } }]);
      const removed = await app.data('mutation($a: ID!, $b: ID!) { removeFromFollowsConnection(input: { user1Id: $a, user2Id: $b }) { changedFollows { user1 { id } } } }', { a, b });
      expect(removed.removeFromFollowsConnection.changedFollows).toEqual({ user1: { id: a } });
      expect(await app.data(sides, { a, b })).toEqual({
        a: { following: { edges: [] }, followers: { edges: [{ node: { id: b } }] } },
        b: { following: { edges: [{ node: { id: a } }] }, followers: { edges: [] } },
      });
    });
  });

  describe('the built-in UserRoles', () => {
    it('adds, updates and removes a membership with its accessLevel, seen from both sides', async () => {
      const admin = await app.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { aggregations { count } } } }');
      expect(admin.viewer.allRoles.aggregations.count).toBe(1);
      const user = await newUser(app);
      const role = (await app.data('mutation($n: String!) { createRole(input: { name: $n }) { changedRole { id } } }', { n: unique('role') })).createRole.changedRole.id;
      const added = await app.data('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r, accessLevel: readwrite }) { changedUserRoles { accessLevel user { id } role { id } } user { roles { edges { accessLevel node { id } } } } role { members { edges { accessLevel node { id } } } } } }', { u: user, r: role });
      expect(added.addToUserRolesConnection).toEqual({
        changedUserRoles: { accessLevel: 'readwrite', user: { id: user }, role: { id: role } },
        user: { roles: { edges: [{ accessLevel: 'readwrite', node: { id: role } }] } },
        role: { members: { edges: [{ accessLevel: 'readwrite', node: { id: user } }] } },
      });
      expect(errorCode(await app.gql('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r }) { clientMutationId } }', { u: user, r: role }), 'addToUserRolesConnection')).toBe('CONFLICT');
      expect(errorCode(await app.gql('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r }) { clientMutationId } }', { u: role, r: user }), 'addToUserRolesConnection')).toBe('BAD_USER_INPUT');
      const updated = await app.data('mutation($u: ID!, $r: ID!) { updateUserRolesConnection(input: { userId: $u, roleId: $r, accessLevel: admin }) { changedUserRoles { accessLevel } } }', { u: user, r: role });
      expect(updated.updateUserRolesConnection.changedUserRoles).toEqual({ accessLevel: 'admin' });
      const filtered = await app.data('query($r: ID!) { viewer { allUsers(where: { roles: { edge: { accessLevel: { eq: admin } }, node: { id: { eq: $r } } } }) { edges { node { id } } } } }', { r: role });
      expect(filtered.viewer.allUsers.edges).toEqual([{ node: { id: user } }]);
      const removed = await app.data('mutation($u: ID!, $r: ID!) { removeFromUserRolesConnection(input: { userId: $u, roleId: $r }) { changedUserRoles { accessLevel } role { members { aggregations { count } } } } }', { u: user, r: role });
      expect(removed.removeFromUserRolesConnection).toEqual({ changedUserRoles: { accessLevel: 'admin' }, role: { members: { aggregations: { count: 0 } } } });
    });
  });
});
