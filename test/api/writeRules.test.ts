// Write rules over HTTP on both stores, as a table of cases: create checked on the row as
// written, update on the row before and after (a row cannot be moved out of the writer's
// reach), delete before, field rules on the fields given, sign-up by anyone, password resets
// for admin tokens only, edges needing update on both ends, the built-in role rules.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true) {
  bio: String
  rules: [Country] @relation(name: "CountryRuler")
  posts: [Post] @relation(name: "PostAuthor")
  likes: [Post] @relation(name: "PostLikes")
}
type Post @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["author"], update: true, delete: true)
  @permission(scope: EVERYONE, read: true, fields: ["featured"])
  @permission(scope: ROLE, roles: ["Editors"], create: true, update: true, fields: ["featured"]) {
  title: String!
  featured: Boolean
  author: User @relation(name: "PostAuthor")
  likedBy: [User] @relation(name: "PostLikes")
}
type Secret @model { text: String }
type Country @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["ruler"], update: true) {
  name: String!
  ruler: User @relation(name: "CountryRuler")
  capital: City @relation(name: "CountryCapital")
}
type City @model @permission(scope: EVERYONE, read: true) { name: String! country: Country @relation(name: "CountryCapital") }
`;

type Caller = 'anonymous' | 'ann' | 'bob' | 'admin';

describe.each(STORE_KINDS)('write rules (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const headers = (caller: Caller): Record<string, string> =>
    caller === 'anonymous' ? {} : { authorization: `Bearer ${caller === 'admin' ? app.token : tokens[caller]}` };
  const as = (caller: Caller, query: string, variables: Record<string, unknown> = {}) => app.gql(query, variables, headers(caller));
  const code = (reply: { body: Json }) => reply.body.errors?.[0]?.extensions?.code as string | undefined;

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    for (const name of ['ann', 'bob']) {
      // Sign-up is open to anyone and reads the new user back as that user.
      const reply = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id username } token } }', { i: { username: name, password: 'pw-123456' } }, {});
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.createUser.changedUser.username).toBe(name);
      ids[name] = reply.body.data.createUser.changedUser.id;
      tokens[name] = reply.body.data.createUser.token;
    }
    const secret = await app.data('mutation { createSecret(input: { text: "s" }) { changedSecret { id } } }');
    ids.secret = secret.createSecret.changedSecret.id;
  });
  afterAll(async () => server?.close());

  const CREATE = 'mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id title featured author { id } } } }';
  const UPDATE = 'mutation($i: UpdatePostInput!) { updatePost(input: $i) { changedPost { title featured } } }';
  const DELETE = 'mutation($i: DeletePostInput!) { deletePost(input: $i) { changedPost { title } } }';
  const titles = async () => (await app.data('{ viewer { allPosts(orderBy: { field: title }) { edges { node { title author { id } featured } } } } }')).viewer.allPosts.edges.map((e: Json) => e.node);

  it('create: refused for anonymous callers, allowed for users, field rules on the fields given', async () => {
    expect(code(await as('anonymous', CREATE, { i: { title: 'anon' } }))).toBe('FORBIDDEN');
    const created = await as('ann', CREATE, { i: { title: 'ann-1', authorId: ids.ann } });
    expect(created.body.errors).toBeUndefined();
    ids.post = created.body.data.createPost.changedPost.id;
    expect(code(await as('ann', CREATE, { i: { title: 'featured', featured: true } }))).toBe('FORBIDDEN');
    expect(code(await as('ann', 'mutation { createSecret(input: { text: "x" }) { changedSecret { id } } }'))).toBe('FORBIDDEN');
    expect((await titles()).map((p: Json) => p.title)).toEqual(['ann-1']);
  });

  it('update: the author may; others get FORBIDDEN; a row cannot be moved out of reach; field rules', async () => {
    expect(code(await as('bob', UPDATE, { i: { id: ids.post, title: 'bob was here' } }))).toBe('FORBIDDEN');
    expect((await as('ann', UPDATE, { i: { id: ids.post, title: 'ann-2' } })).body.data.updatePost.changedPost.title).toBe('ann-2');
    // Giving the post away or dropping its author would take it out of ann's reach (update must
    // hold after the write); bob's user, which ann may not read, answers as an id of nothing.
    expect(code(await as('ann', UPDATE, { i: { id: ids.post, authorId: '' } }))).toBe('FORBIDDEN');
    expect(code(await as('ann', UPDATE, { i: { id: ids.post, authorId: ids.bob } }))).toBe('BAD_USER_INPUT');
    expect(code(await as('ann', UPDATE, { i: { id: ids.post, featured: true } }))).toBe('FORBIDDEN');
    expect(await titles()).toEqual([{ title: 'ann-2', author: { id: ids.ann }, featured: null }]);
    expect((await as('admin', UPDATE, { i: { id: ids.post, featured: true } })).body.data.updatePost.changedPost.featured).toBe(true);
  });

  it('update and delete of a row the caller may not read answer as if it did not exist', async () => {
    expect(code(await as('ann', 'mutation($i: UpdateSecretInput!) { updateSecret(input: $i) { changedSecret { text } } }', { i: { id: ids.secret, text: 'x' } }))).toBe('NOT_FOUND');
    const gone = await as('ann', 'mutation($i: DeleteSecretInput!) { deleteSecret(input: $i) { changedSecret { text } } }', { i: { id: ids.secret } });
    expect(gone.body).toEqual({ data: { deleteSecret: { changedSecret: null } } });
    expect((await app.data(`{ getSecret(id: "${ids.secret}") { text } }`)).getSecret).toEqual({ text: 's' });
  });

  it('users: their own object only, and no password reset without an admin token', async () => {
    expect((await as('ann', 'mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { bio } } }', { i: { id: ids.ann, bio: 'hi' } })).body.data.updateUser.changedUser.bio).toBe('hi');
    expect(code(await as('ann', 'mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { bio } } }', { i: { id: ids.bob, bio: 'hi' } }))).toBe('NOT_FOUND');
    expect(code(await as('ann', 'mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { bio } } }', { i: { id: ids.ann, password: 'new-one' } }))).toBe('FORBIDDEN');
    expect(code(await as('ann', 'mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: ids.ann } }))).toBe('FORBIDDEN');
  });

  it('edge mutations need update on both ends', async () => {
    const add = 'mutation($i: AddToPostLikesConnectionInput!) { addToPostLikesConnection(input: $i) { changedPostLikes { post { title } } } }';
    expect((await as('ann', add, { i: { postId: ids.post, userId: ids.ann } })).body.errors).toBeUndefined();
    expect(code(await as('bob', add, { i: { postId: ids.post, userId: ids.bob } }))).toBe('FORBIDDEN');
    // Bob's user is not even readable by ann: the id answers as the id of nothing.
    expect(code(await as('ann', add, { i: { postId: ids.post, userId: ids.bob } }))).toBe('BAD_USER_INPUT');
    const likes = await app.data(`{ getPost(id: "${ids.post}") { likedBy { edges { node { id } } } } }`);
    expect(likes.getPost.likedBy.edges).toEqual([{ node: { id: ids.ann } }]);
  });

  it('roles: app admins create them, role admins enrol others, members may leave, role grants apply', async () => {
    expect(code(await as('ann', 'mutation { createRole(input: { name: "Editors" }) { changedRole { id name } } }'))).toBe('FORBIDDEN');
    const role = await as('admin', 'mutation { createRole(input: { name: "Editors" }) { changedRole { id name } } }');
    expect(role.body.errors).toBeUndefined();
    const roleId = role.body.data.createRole.changedRole.id as string;
    const members = async () => (await app.data(`{ getRole(id: "${roleId}") { members { edges { accessLevel node { id } } } } }`)).getRole.members.edges;
    expect(await members()).toEqual([]);
    const enrol = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }';
    expect((await as('admin', enrol, { i: { userId: ids.ann, roleId, accessLevel: 'admin' } })).body.errors).toBeUndefined();
    expect(await members()).toEqual([{ accessLevel: 'admin', node: { id: ids.ann } }]);
    expect(code(await as('bob', enrol, { i: { userId: ids.bob, roleId, accessLevel: 'admin' } }))).toBe('FORBIDDEN');
    expect((await as('ann', enrol, { i: { userId: ids.bob, roleId, accessLevel: 'readonly' } })).body.errors).toBeUndefined();
    expect(code(await as('bob', 'mutation($i: UpdateUserRolesConnectionInput!) { updateUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }', { i: { userId: ids.bob, roleId, accessLevel: 'admin' } }))).toBe('FORBIDDEN');
    const leave = 'mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }';
    expect((await as('bob', leave, { i: { userId: ids.bob, roleId } })).body.errors).toBeUndefined();
    expect(code(await as('bob', leave, { i: { userId: ids.ann, roleId } }))).toBe('FORBIDDEN');
    expect(await members()).toEqual([{ accessLevel: 'admin', node: { id: ids.ann } }]);
    // A member of Editors may now set the field its rule guards.
    expect((await as('ann', UPDATE, { i: { id: ids.post, featured: false } })).body.data.updatePost.changedPost.featured).toBe(false);
  });

  it('delete: refused for others, the author gets the last copy', async () => {
    expect(code(await as('bob', DELETE, { i: { id: ids.post } }))).toBe('FORBIDDEN');
    expect((await as('ann', DELETE, { i: { id: ids.post } })).body.data.deletePost.changedPost.title).toBe('ann-2');
    expect(await titles()).toEqual([]);
  });

  it('moving a one-to-one link away from another object needs update on that object', async () => {
    const made = await app.data(`mutation {
      paris: createCity(input: { name: "Paris" }) { changedCity { id } }
      france: createCountry(input: { name: "France", rulerId: "${ids.bob}" }) { changedCountry { id } }
    }`);
    const paris = made.paris.changedCity.id as string;
    const france = made.france.changedCountry.id as string;
    await app.data('mutation($i: UpdateCountryInput!) { updateCountry(input: $i) { clientMutationId } }', { i: { id: france, capitalId: paris } });
    const steal = await as('ann', 'mutation($i: CreateCountryInput!) { createCountry(input: $i) { changedCountry { id } } }', { i: { name: 'Annland', rulerId: ids.ann, capitalId: paris } });
    expect(code(steal)).toBe('FORBIDDEN');
    const capital = await app.data(`{ getCountry(id: "${france}") { capital { name } } }`);
    expect(capital.getCountry.capital).toEqual({ name: 'Paris' });
    expect((await app.data('{ viewer { allCountries(where: { name: { eq: "Annland" } }) { aggregations { count } } } }')).viewer.allCountries.aggregations.count).toBe(0);
  });
});
