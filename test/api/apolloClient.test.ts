// A real client library against the running server: Apollo Client with its normalised cache
// and the Relay-style pagination policy pages through a connection and runs mutations, with
// nothing but its ordinary configuration.

import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';

const SCHEMA = 'type Post @model { title: String! @index rating: Int }';

const POSTS = gql`
  query Posts($first: Int, $after: String) {
    viewer {
      id
      allPosts(first: $first, after: $after, orderBy: { field: title }) {
        edges { cursor node { id title rating } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

function clientFor(app: TestApp): ApolloClient {
  return new ApolloClient({
    link: new HttpLink({ uri: app.endpoint, headers: { authorization: `Bearer ${app.token}` } }),
    cache: new InMemoryCache({
      typePolicies: { Viewer: { fields: { allPosts: relayStylePagination(['where', 'orderBy']) } } },
    }),
  });
}

describe.each(STORE_KINDS)('Apollo Client (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    const creates = Array.from({ length: 7 }, (_, i) => `p${i}: createPost(input: { title: "post ${i}", rating: ${i} }) { changedPost { id } }`);
    await app.data(`mutation { ${creates.join('\n')} }`);
  });
  afterAll(async () => server?.close());

  it('pages through a connection with fetchMore, merged by relayStylePagination', async () => {
    const client = clientFor(app);
    const watched = client.watchQuery({ query: POSTS, variables: { first: 3 } });
    const first = await watched.refetch();
    const page1 = (first.data as Json).viewer.allPosts;
    expect(page1.edges.map((e: Json) => e.node.title)).toEqual(['post 0', 'post 1', 'post 2']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    let after: string = page1.pageInfo.endCursor;
    for (let i = 0; i < 3; i++) {
      const more = await watched.fetchMore({ variables: { first: 3, after } });
      after = (more.data as Json).viewer.allPosts.pageInfo.endCursor;
    }
    const merged = client.readQuery({ query: POSTS, variables: { first: 3 } }) as Json;
    expect(merged.viewer.allPosts.edges.map((e: Json) => e.node.title)).toEqual(Array.from({ length: 7 }, (_, i) => `post ${i}`));
    expect(merged.viewer.allPosts.pageInfo.hasNextPage).toBe(false);
    client.stop();
  });

  it('runs mutations whose payloads update the normalised cache', async () => {
    const client = clientFor(app);
    const result = await client.query({ query: POSTS, variables: { first: 10 } });
    const target = (result.data as Json).viewer.allPosts.edges[0].node;
    const renamed = await client.mutate({
      mutation: gql`
        mutation Rename($input: UpdatePostInput!) {
          updatePost(input: $input) { changedPost { id title } clientMutationId }
        }
      `,
      variables: { input: { id: target.id, title: 'post 0 (renamed)', clientMutationId: 'r1' } },
    });
    expect((renamed.data as Json).updatePost.clientMutationId).toBe('r1');
    // The query is answered from the cache: the payload updated the Post normalised by its id.
    const cached = client.readQuery({ query: POSTS, variables: { first: 10 } }) as Json;
    expect(cached.viewer.allPosts.edges[0].node).toEqual({ __typename: 'Post', id: target.id, title: 'post 0 (renamed)', rating: 0 });
    const created = await client.mutate({
      mutation: gql`mutation { createPost(input: { title: "post 7" }) { changedPost { id title } changedEdge { cursor node { id } } } }`,
    });
    expect((created.data as Json).createPost.changedPost.title).toBe('post 7');
    expect((created.data as Json).createPost.changedEdge.node.id).toBe((created.data as Json).createPost.changedPost.id);
    client.stop();
  });
});
