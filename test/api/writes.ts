// The app schema the mutation and relation tests write to, and the small helpers their
// assertions share: error codes, counts read through the API, join rows read from the store.

import { expect } from 'vitest';
import { ident, sql } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import type { GraphQLResult, Json, TestApp } from './harness.js';

export const WRITE_SCHEMA = `
enum Mood { HAPPY SAD }
enum FriendshipStatus { REQUESTED ACCEPTED }
type Point { x: Int y: Int }
type Address { street: String city: String! geo: Point spots: [Point] }

type Thing @model {
  title: String!
  label: String
  body: Text
  quantity: Int
  ratio: Float
  active: Boolean
  at: DateTime
  data: JSON
  mood: Mood
  ref: ID
  code: String @unique
  status: Mood! @default(value: HAPPY)
  rank: Int @default(value: 7)
  flag: Boolean @default(value: true)
  notes: [String] @default(value: ["first"])
  tags: [String]
  moods: [Mood]
  address: Address
  addresses: [Address]
}

type User @model {
  bio: String
  posts: [Post] @relation(name: "PostAuthor")
  edits: [Post] @relation(name: "UserEdits")
  friends: [User] @relation(name: "Friendship")
  following: [User] @relation(name: "Follows")
  followers: [User] @relation(name: "Follows")
}

type Post @model {
  title: String!
  slug: String @unique
  rating: Int
  author: User @relation(name: "PostAuthor")
  editors: [User] @relation(name: "UserEdits")
}

type Country @model { name: String! @unique capitalCity: City @relation(name: "CountryCapital") }
type City @model { name: String! capitalOf: Country @relation(name: "CountryCapital") }

type Friendship @join(relation: "Friendship") {
  status: FriendshipStatus! @default(value: REQUESTED)
  since: DateTime
}
`;

/** The id of a `type` object that does not exist: well formed, of the right type. */
export function missingId(type: string): string {
  return Buffer.from(`${type}:00000000-0000-4000-8000-000000000000`, 'utf8').toString('base64url');
}

let counter = 0;
/** A name no other test uses, so tests sharing one app never collide. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The code of a failed root field's error, after checking that exactly one error came back
 * and that the field (when given) answered null at that path.
 */
export function errorCode(reply: GraphQLResult, field?: string): string {
  expect(reply.body.errors, JSON.stringify(reply.body)).toHaveLength(1);
  const error = reply.body.errors[0];
  if (field !== undefined) {
    expect(reply.body.data).toEqual({ [field]: null });
    expect(error.path).toEqual([field]);
  }
  return error.extensions.code;
}

/** How many `type` objects match `where`, read through `viewer.all<plural>.aggregations`. */
export async function countOf(app: TestApp, type: string, plural: string, where: Json = {}): Promise<number> {
  const data = await app.data(`query($w: ${type}WhereArgs) { viewer { all${plural}(where: $w) { aggregations { count } } } }`, { w: where });
  return data.viewer[`all${plural}`].aggregations.count;
}

/** How many rows the join table of a many-to-many relation holds, read from the store. */
export async function joinRows(app: TestApp, relation: string): Promise<number> {
  const result = await app.server.store.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${ident(appSchemaName(app.id), relation)}`);
  return result.rows[0]?.n ?? -1;
}

/** Creates a user and returns its id. */
export async function newUser(app: TestApp, username = unique('user'), extra: Json = {}): Promise<string> {
  const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', {
    i: { username, password: 'secret-pw', ...extra },
  });
  return data.createUser.changedUser.id;
}

/** Creates a post and returns its id. */
export async function newPost(app: TestApp, extra: Json = {}): Promise<string> {
  const data = await app.data('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', {
    i: { title: unique('post'), ...extra },
  });
  return data.createPost.changedPost.id;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
