// Permission predicates against real rows on both stores: each grant scope, RELATION paths
// through every relation kind (own column, the target's column, join tables both ways, two
// steps deep), ROLE membership, the built-in User and Role defaults and the app admin role.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { parseSchema } from '../../src/model/index.js';
import type { AppModel, PermissionOperation } from '../../src/model/index.js';
import { accessPredicate } from '../../src/permissions/index.js';
import { ident, sql } from '../../src/sql/index.js';
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
    expect(await allowed('Secret', 'read', 'dan')).toEqual(await allowed('Secret', 'read', 'dan'));
    await insert('s1', 'Secret', { text: 's' });
    expect(await allowed('Secret', 'read', 'dan')).toEqual(['s1']);
    expect(await allowed('Secret', 'delete', 'dan')).toEqual(['s1']);
    expect(await allowed('Secret', 'read', 'cat')).toEqual([]);
  });

  it('SELF on User, and the built-in Role defaults', async () => {
    expect(await allowed('User', 'read', 'bob')).toEqual(['bob']);
    expect(await allowed('User', 'update', null)).toEqual([]);
    expect(await allowed('Role', 'read', null)).toEqual([]);
    expect(await allowed('Role', 'read', 'bob')).toEqual(['adminRole', 'mods']);
    expect(await allowed('Role', 'update', 'cat')).toEqual(['mods']);
    expect(await allowed('Role', 'update', 'eve')).toEqual([]);
    expect(await allowed('Role', 'delete', 'dan')).toEqual(['adminRole', 'mods']);
  });
});
