// Read rules over HTTP on both stores, as a table of cases: who asks (anonymous, two users,
// an admin token) × which path (getX, node, viewer.allXs, nested connection, singular
// relation, where on a hidden field or through a relation, orderBy, aggregations) → the data
// expected or the error code. A row the caller may not read is indistinguishable from none.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true)
  @permission(scope: AUTHENTICATED, read: true, fields: ["username"]) {
  secretNote: String
  posts: [Post] @relation(name: "PostAuthor")
  team: Team @relation(name: "TeamMembers")
}
type Post @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: RELATION, userFields: ["author"], read: true, fields: ["notes", "score"]) {
  title: String!
  notes: String
  score: Int
  author: User @relation(name: "PostAuthor")
}
type Team @model @permission(scope: RELATION, userFields: ["members"], read: true) {
  name: String!
  members: [User] @relation(name: "TeamMembers")
}
type Secret @model { text: String }
`;

type Caller = 'anonymous' | 'ann' | 'bob' | 'admin';
interface Case {
  name: string;
  caller: Caller;
  query: string;
  /** Expected data, or an error code (then data is checked against `data` when given). */
  data?: Json;
  code?: string;
}

describe.each(STORE_KINDS)('read rules (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    const seeded = await app.data(`mutation {
      red: createTeam(input: { name: "red" }) { changedTeam { id } }
      secret: createSecret(input: { text: "s" }) { changedSecret { id } }
    }`);
    ids.red = seeded.red.changedTeam.id;
    ids.secret = seeded.secret.changedSecret.id;
    for (const [name, team] of [['ann', true], ['bob', false]] as const) {
      const user = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', {
        i: { username: name, password: 'pw-123456', secretNote: `${name}'s note`, ...(team ? { teamId: ids.red } : {}), posts: [{ title: `${name}-post`, notes: `${name}-notes`, score: name === 'ann' ? 1 : 2 }] },
      });
      ids[name] = user.createUser.changedUser.id;
      tokens[name] = user.createUser.token;
    }
  });
  afterAll(async () => server?.close());

  const cases = (): Case[] => [
    // getX and node: a row the caller may not read answers null, like a missing one.
    { name: 'getUser of oneself', caller: 'ann', query: `{ getUser(id: "${ids.ann}") { username secretNote } }`, data: { getUser: { username: 'ann', secretNote: "ann's note" } } },
    { name: 'getUser of another user', caller: 'ann', query: `{ getUser(id: "${ids.bob}") { username } }`, data: { getUser: null } },
    { name: 'getUser anonymously', caller: 'anonymous', query: `{ getUser(id: "${ids.ann}") { id } }`, data: { getUser: null } },
    { name: 'getUser with an admin token', caller: 'admin', query: `{ getUser(id: "${ids.bob}") { username secretNote } }`, data: { getUser: { username: 'bob', secretNote: "bob's note" } } },
    { name: 'node of another user', caller: 'bob', query: `{ node(id: "${ids.ann}") { id } }`, data: { node: null } },
    { name: 'getSecret without rules, as a user', caller: 'ann', query: `{ getSecret(id: "${ids.secret}") { text } }`, data: { getSecret: null } },
    { name: 'getSecret with an admin token', caller: 'admin', query: `{ getSecret(id: "${ids.secret}") { text } }`, data: { getSecret: { text: 's' } } },
    { name: 'getTeam as a member', caller: 'ann', query: `{ getTeam(id: "${ids.red}") { name } }`, data: { getTeam: { name: 'red' } } },
    { name: 'getTeam as a non-member', caller: 'bob', query: `{ getTeam(id: "${ids.red}") { name } }`, data: { getTeam: null } },
    // viewer connections and counts.
    { name: 'allUsers counts only oneself', caller: 'bob', query: '{ viewer { user { username } allUsers { edges { node { username } } aggregations { count } } } }', data: { viewer: { user: { username: 'bob' }, allUsers: { edges: [{ node: { username: 'bob' } }], aggregations: { count: 1 } } } } },
    { name: 'allUsers anonymously', caller: 'anonymous', query: '{ viewer { user { id } allUsers { aggregations { count } } } }', data: { viewer: { user: null, allUsers: { aggregations: { count: 0 } } } } },
    { name: 'allSecrets as a user', caller: 'ann', query: '{ viewer { allSecrets { edges { node { text } } aggregations { count } } } }', data: { viewer: { allSecrets: { edges: [], aggregations: { count: 0 } } } } },
    { name: 'allPosts for everyone, titles only', caller: 'anonymous', query: '{ viewer { allPosts(orderBy: { field: title }) { edges { node { title } } aggregations { count } } } }', data: { viewer: { allPosts: { edges: [{ node: { title: 'ann-post' } }, { node: { title: 'bob-post' } }], aggregations: { count: 2 } } } } },
    // Field rules: a refused field is null with FORBIDDEN at its path; the rest answers.
    { name: 'a field with its own rules, for its author', caller: 'ann', query: '{ viewer { allPosts(where: { title: { eq: "ann-post" } }) { edges { node { title notes } } } } }', data: { viewer: { allPosts: { edges: [{ node: { title: 'ann-post', notes: 'ann-notes' } }] } } } },
    { name: 'a field with its own rules, for someone else', caller: 'bob', query: '{ viewer { allPosts(where: { title: { eq: "ann-post" } }) { edges { node { title notes } } } } }', data: { viewer: { allPosts: { edges: [{ node: { title: 'ann-post', notes: null } }] } } }, code: 'FORBIDDEN' },
    { name: 'a field rule on User for another authenticated user, through a relation', caller: 'bob', query: '{ viewer { allPosts(where: { title: { eq: "ann-post" } }) { edges { node { author { username } } } } } }', data: { viewer: { allPosts: { edges: [{ node: { author: null } }] } } } },
    // Filters and orders cannot serve as oracles for hidden values.
    { name: 'where on a hidden field matches no hidden row', caller: 'bob', query: '{ viewer { allPosts(where: { notes: { eq: "ann-notes" } }) { aggregations { count } } } }', data: { viewer: { allPosts: { aggregations: { count: 0 } } } } },
    { name: 'NOT of a filter on a hidden field does not depend on its value', caller: 'bob', query: '{ viewer { a: allPosts(where: { NOT: { notes: { eq: "ann-notes" } } }) { aggregations { count } } b: allPosts(where: { NOT: { notes: { eq: "other" } } }) { aggregations { count } } } }', data: { viewer: { a: { aggregations: { count: 2 } }, b: { aggregations: { count: 2 } } } } },
    { name: 'where through a relation to rows one may not read', caller: 'bob', query: '{ viewer { allPosts(where: { author: { username: { eq: "ann" } } }) { aggregations { count } } } }', data: { viewer: { allPosts: { aggregations: { count: 0 } } } } },
    { name: 'where through a relation to oneself', caller: 'ann', query: '{ viewer { allPosts(where: { author: { username: { eq: "ann" } } }) { aggregations { count } } } }', data: { viewer: { allPosts: { aggregations: { count: 1 } } } } },
    { name: 'orderBy a hidden field is refused', caller: 'bob', query: '{ viewer { allPosts(orderBy: { field: score }) { edges { node { title } } } } }', data: { viewer: null }, code: 'FORBIDDEN' },
    { name: 'orderBy a hidden field with an admin token', caller: 'admin', query: '{ viewer { allPosts(orderBy: { field: score, direction: DESC }) { edges { node { title } } } } }', data: { viewer: { allPosts: { edges: [{ node: { title: 'bob-post' } }, { node: { title: 'ann-post' } }] } } } },
    { name: 'max over a hidden field counts only readable values', caller: 'ann', query: '{ viewer { allPosts { aggregations { max { score } } } } }', data: { viewer: { allPosts: { aggregations: { max: { score: 1 } } } } } },
    // Nested connections and singular relations.
    { name: 'nested connection of a team as a member', caller: 'ann', query: `{ getTeam(id: "${ids.red}") { members { edges { node { username } } } } }`, data: { getTeam: { members: { edges: [{ node: { username: 'ann' } }] } } } },
    { name: "a user's own posts through the nested connection", caller: 'ann', query: '{ viewer { user { posts { edges { node { title notes } } } team { name } } } }', data: { viewer: { user: { posts: { edges: [{ node: { title: 'ann-post', notes: 'ann-notes' } }] }, team: { name: 'red' } } } } },
  ];

  it('answers every case as the rules say', async () => {
    const headers = (caller: Caller): Record<string, string> =>
      caller === 'anonymous' ? {} : { authorization: `Bearer ${caller === 'admin' ? app.token : tokens[caller]}` };
    const all = cases();
    expect(all.length).toBeGreaterThanOrEqual(25);
    for (const c of all) {
      const reply = await app.gql(c.query, {}, headers(c.caller));
      expect(reply.status, c.name).toBe(200);
      if (c.code) expect(reply.body.errors?.map((e: Json) => e.extensions.code), c.name).toContain(c.code);
      else expect(reply.body.errors, c.name).toBeUndefined();
      if (c.data !== undefined) expect(reply.body.data, c.name).toEqual(c.data);
    }
  });

  it('puts a FORBIDDEN error at the path of each refused field', async () => {
    const reply = await app.gql('{ viewer { allPosts(orderBy: { field: title }) { edges { node { title notes } } } } }', {}, { authorization: `Bearer ${tokens.ann}` });
    expect(reply.body.data.viewer.allPosts.edges).toEqual([{ node: { title: 'ann-post', notes: 'ann-notes' } }, { node: { title: 'bob-post', notes: null } }]);
    expect(reply.body.errors).toEqual([expect.objectContaining({ path: ['viewer', 'allPosts', 'edges', 1, 'node', 'notes'], extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
    expect(reply.body.errors[0].message).toContain('Post.notes');
  });
});
