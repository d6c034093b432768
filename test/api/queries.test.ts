// Root query fields over HTTP on both stores: getX, node, viewer, introspection, variables,
// fragments and directives, error codes, statement counts, and the caches following schema
// and settings changes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, startCountingServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from './harness.js';
import type { Json, TestApp } from './harness.js';

const SCHEMA = `
type User @model { displayName: String posts: [Post] @relation(name: "PostAuthor") }
type Post @model {
  title: String! @index
  rating: Int
  author: User @relation(name: "PostAuthor")
  comments: [Comment] @relation(name: "PostComments")
}
type Comment @model { text: String! post: Post @relation(name: "PostComments") }
`;


describe.each(STORE_KINDS)('root query fields (%s)', (kind) => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  let app: TestApp;
  let userId: string;
  let postIds: string[];

  beforeAll(async () => {
    server = await startCountingServer(kind);
    app = await createTestApp(server, SCHEMA);
    const user = await app.data('mutation { createUser(input: { username: "ann", password: "pw-123456", displayName: "Ann" }) { changedUser { id } } }');
    userId = user.createUser.changedUser.id;
    const posts = await app.data(
      `mutation($u: ID) {
        a: createPost(input: { title: "alpha", rating: 1, authorId: $u, comments: [{ text: "a1" }, { text: "a2" }] }) { changedPost { id } }
        b: createPost(input: { title: "beta", rating: 2, authorId: $u, comments: [{ text: "b1" }] }) { changedPost { id } }
        c: createPost(input: { title: "gamma", authorId: $u }) { changedPost { id } }
      }`,
      { u: userId },
    );
    postIds = ['a', 'b', 'c'].map((k) => posts[k].changedPost.id as string);
  });
  afterAll(async () => server?.close());

  it('getX returns the object, null for a missing id, BAD_USER_INPUT for a malformed or wrong-type id', async () => {
    const found = await app.data('query($id: ID!) { getPost(id: $id) { id title author { displayName } } }', { id: postIds[0] });
    expect(found.getPost).toEqual({ id: postIds[0], title: 'alpha', author: { displayName: 'Ann' } });
    const missing = Buffer.from('Post:00000000-0000-4000-8000-000000000000').toString('base64url');
    expect((await app.data('query($id: ID!) { getPost(id: $id) { id } }', { id: missing })).getPost).toBeNull();
    for (const bad of ['nonsense', userId, '']) {
      const reply = await app.gql('query($id: ID!) { getPost(id: $id) { id } }', { id: bad });
      expect(reply.body.data).toEqual({ getPost: null });
      expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].path).toEqual(['getPost']);
    }
  });

  it('node resolves any type through the Node interface with inline fragments', async () => {
    const data = await app.data(
      'query($a: ID!, $b: ID!) { a: node(id: $a) { __typename id ... on Post { title } ... on User { displayName } } b: node(id: $b) { __typename ... on Timestamped { createdAt } ... on User { displayName } } }',
      { a: postIds[1], b: userId },
    );
    expect(data.a).toEqual({ __typename: 'Post', id: postIds[1], title: 'beta' });
    expect(data.b).toEqual({ __typename: 'User', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), displayName: 'Ann' });
    const bad = await app.gql('{ node(id: "garbage") { id } }');
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('viewer has an id, no user for an admin token, and allXs connections', async () => {
    const data = await app.data('{ viewer { id user { id } allPosts { edges { node { title } } } } }');
    expect(data.viewer.id).toEqual(expect.any(String));
    expect(data.viewer.user).toBeNull();
    expect(data.viewer.allPosts.edges.map((e: Json) => e.node.title).sort()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('answers a query with nested connections with one SQL statement per root field', async () => {
    const query = `{
      viewer { allPosts(first: 10) { edges { node { title author { displayName posts(first: 5) { edges { node { title comments { edges { node { text } } } } } } } comments(first: 2) { edges { node { text } } pageInfo { hasNextPage } aggregations { count } } } } } }
      p: getPost(id: "${postIds[0]}") { comments { edges { node { text post { author { displayName } } } } } }
    }`;
    await app.data(query); // warms the app registry and document caches
    const before = server.statements();
    const data = await app.data(query);
    expect(server.statements() - before).toBe(2);
    const alpha = data.viewer.allPosts.edges.find((e: Json) => e.node.title === 'alpha');
    expect(alpha.node.comments.aggregations.count).toBe(2);
    expect(alpha.node.author.posts.edges).toHaveLength(3);
    expect(data.p.comments.edges.map((e: Json) => e.node.text).sort()).toEqual(['a1', 'a2']);
  });

  it('honours aliases, named fragments, @skip and @include, and __typename everywhere', async () => {
    const query = `query($skip: Boolean!, $with: Boolean!) {
      __typename
      v: viewer { __typename list: allPosts(orderBy: { field: title }) { __typename ...Edges } }
      x: viewer @skip(if: $skip) { id }
      y: viewer @include(if: $with) { id }
    }
    fragment Edges on PostConnection { edges { __typename n: node { ...P } } }
    fragment P on Post { t: title __typename }`;
    const a = await app.data(query, { skip: true, with: false });
    expect(Object.keys(a)).toEqual(['__typename', 'v']);
    expect(a.__typename).toBe('Query');
    expect(a.v.list.__typename).toBe('PostConnection');
    expect(a.v.list.edges[0]).toEqual({ __typename: 'PostEdge', n: { t: 'alpha', __typename: 'Post' } });
    const b = await app.data(query, { skip: false, with: true });
    expect(Object.keys(b)).toEqual(['__typename', 'v', 'x', 'y']);
  });

  it('answers introspection next to data, and refuses unknown fields with GRAPHQL_VALIDATION_FAILED', async () => {
    const data = await app.data('{ __schema { queryType { name } } t: __type(name: "Post") { fields { name } } viewer { allPosts(first: 1) { edges { node { title } } } } }');
    expect(data.__schema.queryType.name).toBe('Query');
    expect(data.t.fields.map((f: Json) => f.name)).toEqual(expect.arrayContaining(['id', 'title', 'author', 'comments']));
    expect(data.viewer.allPosts.edges).toHaveLength(1);
    const bad = await app.gql('{ viewer { allPosts { edges { node { nope } } } } }');
    expect(bad.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const badVariables = await app.gql('query($id: ID!) { getPost(id: $id) { id } }', {});
    expect(badVariables.body.data).toBeUndefined();
    expect(badVariables.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('serves queries over GET and refuses mutations over GET with 405', async () => {
    const get = await fetch(`${app.endpoint}?query=${encodeURIComponent('{ viewer { allPosts(first: 1) { edges { node { title } } } } }')}`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    expect(get.status).toBe(200);
    expect(((await get.json()) as Json).data.viewer.allPosts.edges).toHaveLength(1);
    const mutation = encodeURIComponent('mutation { deletePost(input: { id: "x" }) { clientMutationId } }');
    const refused = await fetch(`${app.endpoint}?query=${mutation}`, { headers: { authorization: `Bearer ${app.token}` } });
    expect(refused.status).toBe(405);
  });

  it('follows a schema push and a settings change at once', async () => {
    await app.migrate(`${SCHEMA}\ntype Tag @model { label: String! }`);
    const tags = await app.data('mutation { createTag(input: { label: "x" }) { changedTag { label } } }');
    expect(tags.createTag.changedTag).toEqual({ label: 'x' });
    const update = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: app.id, settings: { defaultPageSize: 2, maxPageSize: 2 } } });
    expect(update.body.errors).toBeUndefined();
    const page = await app.data('{ viewer { allPosts { edges { node { title } } pageInfo { hasNextPage } } } }');
    expect(page.viewer.allPosts.edges).toHaveLength(2);
    expect(page.viewer.allPosts.pageInfo.hasNextPage).toBe(true);
    const tooBig = await app.gql('{ viewer { allPosts(first: 3) { edges { node { title } } } } }');
    expect(tooBig.body.errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
    await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: app.id, settings: { defaultPageSize: 100, maxPageSize: 1000 } } });
  });

  it('keeps apps apart: a token and an id of one app are worthless at another', async () => {
    const other = await createTestApp(server, SCHEMA);
    const foreignToken = await other.gql('{ viewer { id } }', {}, { authorization: `Bearer ${app.token}` });
    expect(foreignToken.status).toBe(401);
    expect(foreignToken.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const foreignId = await other.data('query($id: ID!) { getPost(id: $id) { id } }', { id: postIds[0] });
    expect(foreignId.getPost).toBeNull();
    const cursor = (await app.data('{ viewer { allPosts(first: 1) { pageInfo { endCursor } } } }')).viewer.allPosts.pageInfo.endCursor;
    const foreignCursor = await other.gql('query($c: String) { viewer { allPosts(after: $c) { edges { cursor } } } }', { c: cursor });
    expect(foreignCursor.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers 404 once an app is deleted', async () => {
    const doomed = await createTestApp(server, SCHEMA);
    expect((await doomed.gql('{ viewer { id } }')).status).toBe(200);
    await admin(server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: doomed.id } });
    const gone = await doomed.gql('{ viewer { id } }');
    expect(gone.status).toBe(404);
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
