// PostGraphile 4 as a peer in the `peers` benchmark. It serves the benchmark app's own tables
// (it reads their columns, keys and foreign keys from PostgreSQL), so it answers from the very
// rows Tessera does. Its documents ask for the same fields under its names: a row's `id` is its
// uuid, relations are named after their foreign keys.

import { appSchemaName } from '../store/index.js';
import { postJson } from './client.js';
import { FILTER_MINIMA } from './dataShapes.js';
import type { Fixtures } from './dataShapes.js';
import { postsToDelete, storedPost } from './fixtures.js';
import { cycle, filteredRows, graphqlBody, installPackages, pageRows, peerModules, postRow, startPeerWorker, takeOnce } from './peers.js';
import type { Json, Peer, PeerContext } from './peers.js';
import type { PostGraphileWorkerData } from './postgraphileWorker.js';

/** PostGraphile 4's last release, and the plugin the filtered read's `>=` needs. */
const PACKAGES = { postgraphile: '4.14.1', 'postgraphile-plugin-connection-filter': '2.3.0' } as const;

const GET_POST = `query GetPost($id: UUID!) {
  postById(id: $id) { id title score published }
}`;

const PAGE = `query PostPage($after: Cursor) {
  allPosts(first: 20, after: $after) { edges { cursor node { id title score } } pageInfo { hasNextPage endCursor } }
}`;

// Tessera orders by the field asked for and then by id in the same direction.
const FILTERED = `query TopPosts($min: Int!) {
  allPosts(first: 20, filter: { score: { greaterThanOrEqualTo: $min }, published: { equalTo: true } }, orderBy: [SCORE_DESC, ID_DESC]) {
    edges { node { title userByAuthorId { displayName } commentsByPostId(first: 3) { edges { node { text } } } } }
  }
}`;

const LAST_CURSORS = '{ allPosts(last: 40) { edges { cursor } } }';

const CREATE = `mutation CreatePost($input: CreatePostInput!) {
  createPost(input: $input) { post { id title score published } }
}`;

const UPDATE = `mutation UpdatePost($input: UpdatePostByIdInput!) {
  updatePostById(input: $input) { post { id title score published } }
}`;

const DELETE = `mutation DeletePost($input: DeletePostByIdInput!) {
  deletePostById(input: $input) { post { id title score published } }
}`;

export async function startPostGraphile(context: PeerContext): Promise<Peer> {
  const modules = peerModules('postgraphile');
  await installPackages(modules, PACKAGES);
  const data: PostGraphileWorkerData = { databaseUrl: context.databaseUrl, schema: appSchemaName(context.app.id), modules };
  const worker = await startPeerWorker(new URL('./postgraphileWorker.js', import.meta.url), data);
  const endpoint = `http://127.0.0.1:${worker.port}/graphql`;
  return {
    name: `PostGraphile ${PACKAGES.postgraphile} (with postgraphile-plugin-connection-filter ${PACKAGES['postgraphile-plugin-connection-filter']})`,
    short: 'PGL',
    endpoint,
    credentials: '',
    thread: worker.thread,
    idField: 'id',
    database: undefined,
    async reads(fixtures: Fixtures) {
      const reply = (await postJson(endpoint, '', LAST_CURSORS, {})) as { data?: { allPosts: { edges: { cursor: string }[] } } };
      const deepCursor = reply.data?.allPosts.edges[0]?.cursor;
      if (!deepCursor) throw new Error(`PostGraphile gave no cursor near the end of allPosts: ${JSON.stringify(reply)}`);
      const page = (d: unknown) => pageRows((d as Json).allPosts, (n) => n.id);
      return {
        getPost: { query: GET_POST, variables: fixtures.postUuids.map((id) => ({ id })), normalise: (d) => postRow((d as Json).postById.id, (d as Json).postById) },
        firstPage: { query: PAGE, variables: [{}], normalise: page },
        filtered: {
          query: FILTERED,
          variables: FILTER_MINIMA.map((min) => ({ min })),
          normalise: (d) => filteredRows((d as Json).allPosts, 'userByAuthorId', 'commentsByPostId'),
        },
        deepPage: { query: PAGE, variables: [{ after: deepCursor }], normalise: page },
      };
    },
    async writes(fixtures: Fixtures, deletes: number) {
      const user = cycle(fixtures.userUuids);
      const post = cycle(fixtures.postUuids);
      const take = takeOnce(await postsToDelete(context.pool, context.app.id, deletes), '(g) deletePost on PostGraphile');
      return {
        createPost: {
          body: (i) => graphqlBody(CREATE, { input: { post: { title: `Bench post ${i}`, score: i % 1000, published: true, authorId: user(i) } } }),
          field: 'createPost',
          payload: 'post',
        },
        updatePost: { body: (i) => graphqlBody(UPDATE, { input: { id: post(i), postPatch: { score: i % 1000 } } }), field: 'updatePostById', payload: 'post' },
        deletePost: { body: () => graphqlBody(DELETE, { input: { id: take() } }), field: 'deletePostById', payload: 'post' },
      };
    },
    stored: (id) => storedPost(context.pool, context.app.id, id),
    close: () => worker.close(),
  };
}
