// The request shapes of the data API benchmark: GraphQL documents with the variables a client
// would send, and for each the statement the direct-SQL baseline runs instead.

import { parse } from 'graphql';
import { encodeId, planQuery } from '../compile/index.js';
import type { AppContext } from '../compile/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';

export interface Statement {
  text: string;
  values: unknown[];
}

/** A query shape: one document, the variable sets successive requests cycle through. */
export interface ReadShape {
  label: string;
  query: string;
  variables: readonly Record<string, unknown>[];
}

/** Which baseline a direct statement is for: the direct server, or the driver alone. */
export type DirectSide = 'server' | 'driver';

/** A mutation shape: the request body and the direct statement of operation `i`. */
export interface WriteShape {
  label: string;
  body(i: number): string;
  direct(i: number, side: DirectSide): Statement;
}

/** What the shapes are filled with, read from the seeded database. */
export interface Fixtures {
  /** Global ids of random posts. */
  postIds: readonly string[];
  /** The same posts' row uuids. */
  postUuids: readonly string[];
  /** Row uuids of random users. */
  userUuids: readonly string[];
  /** The cursor of an edge 40 from the end of `allPosts` in its default order. */
  deepCursor: string;
}

const GET_POST = `query GetPost($id: ID!) {
  getPost(id: $id) { id title score published }
}`;

/** The first page and the deep page are the same document: only `after` differs. */
const PAGE = `query PostPage($after: String) {
  viewer { allPosts(first: 20, after: $after) { edges { cursor node { id title score } } pageInfo { hasNextPage endCursor } } }
}`;

const FILTERED = `query TopPosts($min: Int!) {
  viewer {
    allPosts(first: 20, where: { score: { gte: $min }, published: { eq: true } }, orderBy: { field: score, direction: DESC }) {
      edges { node { title author { displayName } comments(first: 3) { edges { node { text } } } } }
    }
  }
}`;

const CREATE_POST = `mutation CreatePost($input: CreatePostInput!) {
  createPost(input: $input) { changedPost { id title score published } }
}`;

const UPDATE_POST = `mutation UpdatePost($input: UpdatePostInput!) {
  updatePost(input: $input) { changedPost { id title score published } }
}`;

const DELETE_POST = `mutation DeletePost($input: DeletePostInput!) {
  deletePost(input: $input) { changedPost { id title score published } }
}`;

/** The filtered read's lowest scores, one variable set each (the peers benchmark asks its peers the same). */
export const FILTER_MINIMA: readonly number[] = [500, 600, 700, 800, 900];

export const LAST_PAGE_CURSORS = '{ viewer { allPosts(last: 40) { edges { cursor } } } }';

export interface DataShapes {
  getPost: ReadShape;
  firstPage: ReadShape;
  filtered: ReadShape;
  deepPage: ReadShape;
}

export function readShapes(f: Fixtures): DataShapes {
  return {
    getPost: { label: '(a) getPost by id', query: GET_POST, variables: f.postIds.map((id) => ({ id })) },
    firstPage: { label: '(b) allPosts first page', query: PAGE, variables: [{}] },
    filtered: {
      label: '(c) filtered + author + comments(3)',
      query: FILTERED,
      variables: FILTER_MINIMA.map((min) => ({ min })),
    },
    deepPage: { label: '(d) allPosts deep keyset page', query: PAGE, variables: [{ after: f.deepCursor }] },
  };
}

/** The one statement a single-root-field query compiles to for each of the shape's variable sets. */
export function planShape(app: AppContext, shape: ReadShape): Statement[] {
  const document = parse(shape.query);
  return shape.variables.map((variables) => {
    const planned = planQuery({ app, document, query: shape.query, variables });
    const only = planned[0];
    if (planned.length !== 1 || !only || only.text === undefined || only.values === undefined) {
      throw new Error(`${shape.label}: expected one SQL statement, got ${JSON.stringify(planned)}`);
    }
    return { text: only.text, values: only.values };
  });
}

export function createPostShape(appId: string, userUuids: readonly string[]): WriteShape {
  const user = (i: number) => userUuids[i % userUuids.length] as string;
  const input = (i: number) => ({ title: `Bench post ${i}`, score: i % 1000, published: true });
  // The direct floor: the same row written by one statement, the same fields returned. The
  // text is compiled once with stand-in values; each operation binds its own.
  const { text } = compile(sql`INSERT INTO ${ident(appSchemaName(appId), 'Post')} (title, score, published, "authorId")
    VALUES (${''}::text, ${0}::int, ${true}::boolean, ${''}::uuid) RETURNING id, title, score, published`);
  return {
    label: '(e) createPost mutation',
    body: (i) => JSON.stringify({ query: CREATE_POST, variables: { input: { ...input(i), authorId: encodeId('User', user(i)) } } }),
    direct: (i) => {
      const { title, score, published } = input(i);
      return { text, values: [title, score, published, user(i)] };
    },
  };
}

/** The request bodies of a shape, one per variable set, serialised once. */
export function requestBodies(shape: ReadShape): string[] {
  return shape.variables.map((variables) => JSON.stringify({ query: shape.query, variables }));
}

/** The fields the write shapes return, for the direct statements' RETURNING. */
const RETURNED = sql`id, title, score, published`;

export function updatePostShape(appId: string, postUuids: readonly string[]): WriteShape {
  const post = (i: number) => postUuids[i % postUuids.length] as string;
  const { text } = compile(sql`UPDATE ${ident(appSchemaName(appId), 'Post')} SET score = ${0}::int, "modifiedAt" = now() WHERE id = ${''}::uuid RETURNING ${RETURNED}`);
  return {
    label: '(f) updatePost mutation',
    body: (i) => JSON.stringify({ query: UPDATE_POST, variables: { input: { id: encodeId('Post', post(i)), score: i % 1000 } } }),
    direct: (i) => ({ text, values: [i % 1000, post(i)] }),
  };
}

/** The rows the delete shape takes: the API's, the direct server's and the driver's. */
export interface RowsToDelete {
  api: readonly string[];
  server: readonly string[];
  driver: readonly string[];
}

/**
 * Each operation deletes a row of its own, each side from its own part of `rows`, in turn
 * (warm-up included); running out is an error, not a run of deletes of nothing.
 */
export function deletePostShape(appId: string, rows: RowsToDelete): WriteShape {
  const { text } = compile(sql`DELETE FROM ${ident(appSchemaName(appId), 'Post')} WHERE id = ${''}::uuid RETURNING ${RETURNED}`);
  const taker = (uuids: readonly string[]) => {
    let next = 0;
    return () => {
      const uuid = uuids[next++];
      if (uuid === undefined) throw new Error(`(g) deletePost: all ${uuids.length} rows seeded for deletes are gone; seed more (TESSERA_BENCH_DELETES)`);
      return uuid;
    };
  };
  const api = taker(rows.api);
  const direct = { server: taker(rows.server), driver: taker(rows.driver) };
  return {
    label: '(g) deletePost mutation',
    body: () => JSON.stringify({ query: DELETE_POST, variables: { input: { id: encodeId('Post', api()) } } }),
    direct: (_i, side) => ({ text, values: [direct[side]()] }),
  };
}
