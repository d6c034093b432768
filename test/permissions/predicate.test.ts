// Permission predicates against real rows on both stores: each grant scope, RELATION paths
// through every relation kind (own column, the target's column, join tables both ways, two
// steps deep), ROLE membership, the built-in User and Role defaults and the app admin role.

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { AppContext, encodeId, planQuery } from '../../src/compile/index.js';
import { appSchema } from '../../src/graphql/index.js';
import { DEFAULT_SETTINGS, parseSchema } from '../../src/model/index.js';
import type { AppModel, PermissionOperation } from '../../src/model/index.js';
import { accessPredicate, manageMembersPredicate } from '../../src/permissions/index.js';
import { ident, precompiled, sql } from '../../src/sql/index.js';
import type { SqlFragment } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true) {
  team: Team @relation(name: "TeamMembers")
  friends: [User] @relation(name: "Friendship")
  posts: [Post] @relation(name: "PostAuthor")
  edits: [Post] @relation(name: "PostEditors")
  desk: Desk @relation(name: "DeskOwner")
}
type Team @model @permission(scope: RELATION, userFields: ["members"], read: true) {
  name: String!
  members: [User] @relation(name: "TeamMembers")
}
type Desk @model @permission(scope: RELATION, userFields: ["owner"], read: true, update: true) {
  owner: User @relation(name: "DeskOwner")
}
type Post @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["author"], update: true, delete: true)
  @permission(scope: RELATION, userFields: ["editors"], update: true)
  @permission(scope: RELATION, userFields: ["author.friends"], read: true)
  @permission(scope: ROLE, roles: ["Moderators"], update: true, delete: true) {
  title: String!
  author: User @relation(name: "PostAuthor")
  editors: [User] @relation(name: "PostEditors")
  comments: [Comment] @relation(name: "PostComments")
}
type Comment @model
  @permission(scope: RELATION, userFields: ["post.author", "post.editors"], delete: true) {
  text: String!
  post: Post @relation(name: "PostComments")
}
type Secret @model { text: String }
`;

describe.each(STORES)('permission predicates (%s)', (kind) => {
  let test: TestStore;
  let store: Store;
  let model: AppModel;
  let schema: string;
  let appId: string;
  const ids: Record<string, string> = {};

  const table = (name: string) => ident(schema, name);
  async function insert(name: string, tableName: string, values: Record<string, unknown>): Promise<string> {
    const columns = Object.keys(values);
    const cols = columns.map((c) => ident(c));
    const vals = columns.map((c) => sql`${values[c]}`);
    const list = (items: SqlFragment[]) => items.reduce((acc, item, i) => (i === 0 ? item : sql`${acc}, ${item}`), sql``);
    const statement = columns.length ? sql`INSERT INTO ${table(tableName)} (${list(cols)}) VALUES (${list(vals)}) RETURNING id` : sql`INSERT INTO ${table(tableName)} DEFAULT VALUES RETURNING id`;
    const { rows } = await store.query<{ id: string }>(statement);
    ids[name] = (rows[0] as { id: string }).id;
    return ids[name] as string;
  }

  /** The names of the rows of `type` the viewer may `op`. */
  async function allowed(type: string, op: PermissionOperation, viewer: string | null): Promise<string[]> {
    let n = 0;
    const c = { model, table, alias: (p: string) => ident(`${p}${++n}`), viewer: sql`${viewer === null ? null : ids[viewer]}` };
    const t = ident('t');
    const predicate = accessPredicate(c, model.types.find((x) => x.name === type)!, op, t);
    const { rows } = await store.query<{ id: string }>(sql`SELECT ${t}.id FROM ${table(type)} ${t} WHERE ${predicate}`);
    const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
    return rows.map((r) => byId.get(r.id) ?? r.id).sort();
  }

  beforeAll(async () => {
    test = await openTestStore(kind);
    store = test.store;
    model = parseSchema(SCHEMA);
    const app = await createAdminService(store).createApp({ name: 'rules', schema: SCHEMA });
    appId = app.id;
    schema = appSchemaName(app.id);
    await insert('red', 'Team', { name: 'red' });
    for (const [name, team] of [['ann', 'red'], ['bob', null], ['cat', 'red'], ['dan', null], ['eve', null]] as const) {
      await insert(name, 'User', { username: name, password: 'x', teamId: team === null ? null : ids[team] });
    }
    await insert('annDesk', 'Desk', { ownerId: ids.ann });
    await insert('annPost', 'Post', { title: 'a', authorId: ids.ann });
    await insert('bobPost', 'Post', { title: 'b', authorId: ids.bob });
    await insert('orphanPost', 'Post', { title: 'o' });
    await insert('annPostEdit', 'PostEditors', { userId: ids.bob, postId: ids.annPost });
    await insert('onAnn', 'Comment', { text: 'x', postId: ids.annPost });
    await insert('onBob', 'Comment', { text: 'y', postId: ids.bobPost });
    // ann and cat are friends (stored one way round); the edge counts from both sides.
    await insert('friends', 'Friendship', { user1Id: ids.cat, user2Id: ids.ann });
    const { rows } = await store.query<{ id: string }>(sql`SELECT id FROM ${table('Role')} WHERE name = 'admin'`);
    ids.adminRole = (rows[0] as { id: string }).id;
    await insert('mods', 'Role', { name: 'Moderators' });
    await insert('mods-cat', 'UserRoles', { userId: ids.cat, roleId: ids.mods, accessLevel: 'admin' });
    await insert('mods-eve', 'UserRoles', { userId: ids.eve, roleId: ids.mods, accessLevel: 'readonly' });
    await insert('admin-dan', 'UserRoles', { userId: ids.dan, roleId: ids.adminRole, accessLevel: 'readonly' });
  });
  afterAll(async () => test?.close());

  it('EVERYONE, AUTHENTICATED and deny-by-default', async () => {
    expect(await allowed('Post', 'read', null)).toEqual(['annPost', 'bobPost', 'orphanPost']);
    expect(await allowed('Post', 'create', null)).toEqual([]);
    expect(await allowed('Post', 'create', 'eve')).toEqual(['annPost', 'bobPost', 'orphanPost']);
    expect(await allowed('Secret', 'read', 'ann')).toEqual([]);
  });

  it('RELATION through the own column, a join table, and two steps through a self relation both ways', async () => {
    expect(await allowed('Post', 'delete', 'ann')).toEqual(['annPost']);
    expect(await allowed('Post', 'update', 'bob')).toEqual(['annPost', 'bobPost']);
    expect(await allowed('Comment', 'delete', 'ann')).toEqual(['onAnn']);
    expect(await allowed('Comment', 'delete', 'bob')).toEqual(['onAnn', 'onBob']);
    expect(await allowed('Comment', 'delete', 'eve')).toEqual([]);
    expect(await allowed('Comment', 'delete', null)).toEqual([]);
  });

  it('RELATION through the target column (one-to-many list side, one-to-one other side)', async () => {
    expect(await allowed('Team', 'read', 'cat')).toEqual(['red']);
    expect(await allowed('Team', 'read', 'bob')).toEqual([]);
    expect(await allowed('Desk', 'update', 'ann')).toEqual(['annDesk']);
    expect(await allowed('Desk', 'update', 'cat')).toEqual([]);
  });

  it('ROLE membership, and the app admin role passes every rule', async () => {
    expect(await allowed('Post', 'delete', 'cat')).toEqual(['annPost', 'bobPost', 'orphanPost']);
    expect(await allowed('Post', 'delete', 'eve')).toEqual(['annPost', 'bobPost', 'orphanPost']);
    expect(await allowed('Secret', 'read', 'dan')).toEqual([]);
    await insert('s1', 'Secret', { text: 's' });
    expect(await allowed('Secret', 'read', 'dan')).toEqual(['s1']);
    expect(await allowed('Secret', 'delete', 'dan')).toEqual(['s1']);
    expect(await allowed('Secret', 'read', 'cat')).toEqual([]);
  });

  it('SELF on User, and the built-in Role defaults: roles are created, renamed and deleted by app admins only', async () => {
    expect(await allowed('User', 'read', 'bob')).toEqual(['bob']);
    expect(await allowed('User', 'update', null)).toEqual([]);
    expect(await allowed('Role', 'read', null)).toEqual([]);
    expect(await allowed('Role', 'read', 'bob')).toEqual(['adminRole', 'mods']);
    expect(await allowed('Role', 'create', 'bob')).toEqual([]);
    expect(await allowed('Role', 'update', 'cat')).toEqual([]);
    expect(await allowed('Role', 'delete', 'cat')).toEqual([]);
    expect(await allowed('Role', 'update', 'eve')).toEqual([]);
    expect(await allowed('Role', 'create', 'dan')).toEqual(['adminRole', 'mods']);
    expect(await allowed('Role', 'delete', 'dan')).toEqual(['adminRole', 'mods']);
  });

  it("a role's members are managed by its admin members, and the admin role's by app admins only", async () => {
    const managed = async (viewer: string | null) => {
      let n = 0;
      const c = { model, table, alias: (p: string) => ident(`${p}${++n}`), viewer: sql`${viewer === null ? null : ids[viewer]}` };
      const t = ident('t');
      const { rows } = await store.query<{ id: string }>(sql`SELECT ${t}.id FROM ${table('Role')} ${t} WHERE ${manageMembersPredicate(c, t)}`);
      const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
      return rows.map((r) => byId.get(r.id) ?? r.id).sort();
    };
    expect(await managed('cat')).toEqual(['mods']);
    expect(await managed('eve')).toEqual([]);
    expect(await managed('dan')).toEqual(['adminRole', 'mods']);
    expect(await managed(null)).toEqual([]);
  });

  it('are folded into compiled queries: every path sees only the rows the rules allow', async () => {
    const context = new AppContext({ id: appId, version: 1, model, settings: DEFAULT_SETTINGS, schema: appSchema(appId, 1, model) });
    const run = async (query: string, viewer: string | null) => {
      const [planned] = planQuery({ app: context, document: parse(query), query, admin: false, userId: viewer === null ? undefined : ids[viewer] });
      if (!planned?.text || !planned.values) throw new Error(`no statement: ${String(planned?.error)}`);
      const { rows } = await store.query<{ v: string }>(precompiled(planned.text, planned.values));
      // any: parsed JSON of the shape the query asks for, looked into freely by the assertions.
      return JSON.parse((rows[0] as { v: string }).v) as any;
    };
    const names = (connection: { edges: { node: Record<string, unknown> }[] }, key: string) => connection.edges.map((e) => e.node[key]);
    const users = await run('{ viewer { allUsers { edges { node { username } } aggregations { count } } } }', 'bob');
    expect(names(users.allUsers, 'username')).toEqual(['bob']);
    expect(users.allUsers.aggregations.count).toBe(1);
    const anonymous = await run('{ viewer { allPosts(orderBy: { field: title }) { edges { node { title author { username } editors { edges { node { username } } } } } } } }', null);
    expect(names(anonymous.allPosts, 'title')).toEqual(['a', 'b', 'o']);
    expect(anonymous.allPosts.edges.map((e: { node: { author: unknown } }) => e.node.author)).toEqual([null, null, null]);
    expect(anonymous.allPosts.edges[0].node.editors.edges).toEqual([]);
    // A filter through a relation cannot reveal a row the caller may not read.
    const byAuthor = '{ viewer { allPosts(where: { author: { username: { eq: "bob" } } }) { edges { node { title } } } } }';
    expect(names((await run(byAuthor, 'ann')).allPosts, 'title')).toEqual([]);
    expect(names((await run(byAuthor, 'bob')).allPosts, 'title')).toEqual(['b']);
    const teams = '{ viewer { allTeams { edges { node { name members { edges { node { username } } } } } } } }';
    expect((await run(teams, 'bob')).allTeams.edges).toEqual([]);
    const catTeams = await run(teams, 'cat');
    expect(names(catTeams.allTeams, 'name')).toEqual(['red']);
    expect(names(catTeams.allTeams.edges[0].node.members, 'username')).toEqual(['cat']);
    const team = encodeId('Team', ids.red as string);
    expect(await run(`{ getTeam(id: "${team}") { name } }`, 'bob')).toBeNull();
    expect(await run(`{ getTeam(id: "${team}") { name } }`, 'ann')).toEqual({ name: 'red' });
    expect(await run(`{ node(id: "${team}") { id } }`, null)).toBeNull();
    // The app's admin role reads everything.
    expect(names((await run('{ viewer { allUsers { edges { node { username } } } } }', 'dan')).allUsers, 'username').sort()).toEqual(['ann', 'bob', 'cat', 'dan', 'eve']);
  });
});
