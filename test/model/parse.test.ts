// Unit tests of parseSchema's model: relation inference, built-ins, plurals, defaults,
// permissions, generated names and the shape of the SCHEMA_INVALID error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TesseraError } from '../../src/errors/index.js';
import { lowerCamel, normalizeDateTime, parseSchema, pluralOf } from '../../src/model/index.js';
import type { AppModel, Field, ModelType, PermissionRule, Relation, ValueField } from '../../src/model/index.js';
import { problemsOf } from './problems.js';

const relation = (model: AppModel, name: string): Relation => {
  const found = model.relations.find((r) => r.name === name);
  if (!found) throw new Error(`no relation ${name}`);
  return found;
};
const type = (model: AppModel, name: string): ModelType => {
  const found = model.types.find((t) => t.name === name);
  if (!found) throw new Error(`no type ${name}`);
  return found;
};
const field = (model: AppModel, typeName: string, name: string): Field => {
  const found = type(model, typeName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${typeName}.${name}`);
  return found;
};
const valueField = (model: AppModel, typeName: string, name: string): ValueField => {
  const found = field(model, typeName, name);
  if (found.kind !== 'value') throw new Error(`${typeName}.${name} is a relation field`);
  return found;
};
const rule = (spec: Partial<PermissionRule> & Pick<PermissionRule, 'scope'>): PermissionRule => ({
  read: false,
  create: false,
  update: false,
  delete: false,
  userFields: [],
  roles: [],
  fields: [],
  ...spec,
});

describe('relation inference', () => {
  it('one-to-many: the singular side holds <field>Id and is ends[0]', () => {
    const model = parseSchema(`
      type User @model { posts: [Post] @relation(name: "PostAuthor") }
      type Post @model { author: User @relation(name: "PostAuthor") }`);
    expect(relation(model, 'PostAuthor')).toEqual({
      name: 'PostAuthor',
      kind: 'oneToMany',
      ends: [
        { type: 'Post', field: 'author', list: false },
        { type: 'User', field: 'posts', list: true },
      ],
      storage: { kind: 'foreignKey', table: 'Post', column: 'authorId', target: 'User', unique: false },
      joinFields: [],
    });
    expect(field(model, 'Post', 'author')).toMatchObject({ kind: 'relation', target: 'User', list: false, relation: 'PostAuthor' });
  });

  it('one-to-one: the side whose Type.field sorts first owns a unique foreign key', () => {
    const sdl = `
      type Country @model { name: String! capitalCity: City @relation(name: "CountryCapital") }
      type City @model { name: String! capitalOf: Country @relation(name: "CountryCapital") }`;
    const r = relation(parseSchema(sdl), 'CountryCapital');
    expect(r.kind).toBe('oneToOne');
    expect(r.ends).toEqual([
      { type: 'City', field: 'capitalOf', list: false },
      { type: 'Country', field: 'capitalCity', list: false },
    ]);
    expect(r.storage).toEqual({ kind: 'foreignKey', table: 'City', column: 'capitalOfId', target: 'Country', unique: true });
    // Declaration order does not matter, only the names.
    const swapped = sdl.split('\n').reverse().join('\n');
    expect(relation(parseSchema(swapped), 'CountryCapital')).toEqual(r);
  });

  it('many-to-many: a join table named after the relation, end 1 declared first', () => {
    const model = parseSchema(`
      type User @model { edits: [Post] @relation(name: "UserEdits") }
      type Post @model { editors: [User] @relation(name: "UserEdits") }
      type UserEdits @join(relation: "UserEdits") { approved: Boolean @default(value: false) }`);
    const r = relation(model, 'UserEdits');
    expect(r.kind).toBe('manyToMany');
    expect(r.ends).toEqual([
      { type: 'User', field: 'edits', list: true },
      { type: 'Post', field: 'editors', list: true },
    ]);
    expect(r.storage).toEqual({ kind: 'joinTable', table: 'UserEdits', columns: ['userId', 'postId'], targets: ['User', 'Post'], endNames: ['user', 'post'] });
    expect(r.joinFields).toMatchObject([{ name: 'approved', type: { kind: 'scalar', name: 'Boolean' }, default: false, column: 'approved' }]);
  });

  it('many-to-many: SDL order decides the ends, built-in fields come before app fields', () => {
    const postFirst = parseSchema(`
      type Post @model { editors: [User] @relation(name: "UserEdits") }
      type User @model { edits: [Post] @relation(name: "UserEdits") }`);
    const storage = relation(postFirst, 'UserEdits').storage;
    expect(storage.kind === 'joinTable' && storage.endNames).toEqual(['post', 'user']);

    const viaRole = parseSchema(`
      type Role @model { owners: [User] @relation(name: "RoleOwners") }
      type User @model { ownedRoles: [Role] @relation(name: "RoleOwners") }`);
    expect(relation(viaRole, 'RoleOwners').ends.map((e) => e.type)).toEqual(['Role', 'User']);
    expect(relation(viaRole, 'UserRoles').ends.map((e) => `${e.type}.${e.field}`)).toEqual(['User.roles', 'Role.members']);
  });

  it('many-to-many between two fields of one type: <type>1 is the first-declared field', () => {
    const model = parseSchema(`
      type Person @model {
        followers: [Person] @relation(name: "Follows")
        following: [Person] @relation(name: "Follows")
      }`);
    const r = relation(model, 'Follows');
    expect(r.kind).toBe('manyToMany');
    expect(r.ends.map((e) => e.field)).toEqual(['followers', 'following']);
    expect(r.storage).toEqual({ kind: 'joinTable', table: 'Follows', columns: ['person1Id', 'person2Id'], targets: ['Person', 'Person'], endNames: ['person1', 'person2'] });
  });

  it('self many-to-many: one list field that is its own reverse, with join fields', () => {
    const model = parseSchema(`
      type User @model { friends: [User] @relation(name: "Friendship") }
      type Friendship @join(relation: "Friendship") { status: String since: DateTime }`);
    const r = relation(model, 'Friendship');
    expect(r.kind).toBe('selfManyToMany');
    expect(r.ends).toEqual([
      { type: 'User', field: 'friends', list: true },
      { type: 'User', field: 'friends', list: true },
    ]);
    expect(r.storage).toEqual({ kind: 'joinTable', table: 'Friendship', columns: ['user1Id', 'user2Id'], targets: ['User', 'User'], endNames: ['user1', 'user2'] });
    expect(r.joinFields.map((f) => f.name)).toEqual(['status', 'since']);
  });

  it('lower-camels multi-word and acronym type names for end names', () => {
    const model = parseSchema(`
      type BlogPost @model { links: [URLLink] @relation(name: "PostLinks") }
      type URLLink @model { posts: [BlogPost] @relation(name: "PostLinks") }`);
    const storage = relation(model, 'PostLinks').storage;
    expect(storage.kind === 'joinTable' && storage.columns).toEqual(['blogPostId', 'urlLinkId']);
  });
});

describe('relation inference: ends of types that lower-camel alike', () => {
  it('numbers them like the ends of one type', () => {
    const model = parseSchema(`
      type URL @model { links: [Url] @relation(name: "Links") }
      type Url @model { links: [URL] @relation(name: "Links") }`);
    const storage = relation(model, 'Links').storage;
    expect(storage.kind === 'joinTable' && storage.endNames).toEqual(['url1', 'url2']);
  });
});

describe('built-in types', () => {
  it('an app with no definitions has User, Role, UserRoles and AccessLevel', () => {
    for (const sdl of ['', '   \n', '# nothing yet\n']) {
      const model = parseSchema(sdl);
      expect(model.types.map((t) => t.name)).toEqual(['File', 'Role', 'User']);
      expect(model.embedded).toEqual([]);
      expect(model.enums).toEqual([{ name: 'AccessLevel', values: ['admin', 'readwrite', 'readonly'], builtin: true }]);
      expect(model.relations.map((r) => r.name)).toEqual(['FileOwner', 'UserRoles']);
    }
  });

  it('File carries its built-in fields and an owner whose relation has no User field', () => {
    const model = parseSchema('');
    expect(type(model, 'File')).toMatchObject({ plural: 'Files', table: 'File', builtin: true, permissions: [] });
    expect(type(model, 'File').fields.map((f) => f.name)).toEqual(['name', 'contentType', 'size', 'sha256', 'owner']);
    expect(valueField(model, 'File', 'size')).toMatchObject({ type: { kind: 'scalar', name: 'Int' }, required: true, builtin: true });
    expect(relation(model, 'FileOwner')).toMatchObject({
      kind: 'oneToMany',
      ends: [{ type: 'File', field: 'owner', list: false }, { type: 'User', field: '', list: true }],
      storage: { kind: 'foreignKey', table: 'File', column: 'ownerId', target: 'User', unique: false },
    });
    expect(type(model, 'User').fields.some((f) => f.kind === 'relation' && f.relation === 'FileOwner')).toBe(false);
  });

  it("takes an app's User field of FileOwner as the owner's reverse, with the same storage", () => {
    const model = parseSchema('type User @model { uploads: [File] @relation(name: "FileOwner") }');
    expect(relation(model, 'FileOwner')).toMatchObject({
      kind: 'oneToMany',
      ends: [{ type: 'File', field: 'owner' }, { type: 'User', field: 'uploads' }],
      storage: { kind: 'foreignKey', table: 'File', column: 'ownerId', target: 'User', unique: false },
    });
  });

  it("refuses File fields named after the API's url and blob", () => {
    expect(() => parseSchema('type File @model { url: String blob: String }')).toThrow(/File.url cannot be declared/);
  });

  it('User and Role carry their built-in fields in order', () => {
    const model = parseSchema('');
    expect(type(model, 'User')).toMatchObject({ plural: 'Users', table: 'User', builtin: true, permissions: [] });
    expect(type(model, 'User').fields.map((f) => f.name)).toEqual(['username', 'password', 'lastLogin', 'email', 'emailVerified', 'roles']);
    expect(valueField(model, 'User', 'email')).toMatchObject({ type: { kind: 'scalar', name: 'String' }, required: false, unique: true, index: true, builtin: true });
    expect(valueField(model, 'User', 'emailVerified')).toMatchObject({ type: { kind: 'scalar', name: 'Boolean' }, required: true, default: false, builtin: true });
    expect(valueField(model, 'User', 'username')).toMatchObject({ required: true, unique: true, index: true, builtin: true, writeOnly: false });
    expect(valueField(model, 'User', 'password')).toMatchObject({ required: true, unique: false, builtin: true, writeOnly: true });
    expect(valueField(model, 'User', 'lastLogin')).toMatchObject({ type: { kind: 'scalar', name: 'DateTime' }, required: false, builtin: true });
    expect(field(model, 'User', 'roles')).toEqual({ kind: 'relation', name: 'roles', target: 'Role', list: true, relation: 'UserRoles', builtin: true, permissions: [] });
    expect(type(model, 'Role').fields.map((f) => f.name)).toEqual(['name', 'members']);
    expect(valueField(model, 'Role', 'name')).toMatchObject({ required: true, unique: true, builtin: true });
    const userRoles = relation(model, 'UserRoles');
    expect(userRoles.kind).toBe('manyToMany');
    expect(userRoles.storage).toEqual({ kind: 'joinTable', table: 'UserRoles', columns: ['userId', 'roleId'], targets: ['User', 'Role'], endNames: ['user', 'role'] });
    expect(userRoles.joinFields).toMatchObject([{ name: 'accessLevel', type: { kind: 'enum', name: 'AccessLevel' }, builtin: true }]);
  });

  it('apps add fields after the built-in ones', () => {
    const model = parseSchema(`
      type User @model { bio: Text posts: [Post] @relation(name: "PostAuthor") }
      type Role @model { color: String }
      type Post @model { author: User @relation(name: "PostAuthor") level: AccessLevel }`);
    expect(type(model, 'User').fields.map((f) => `${f.name}${f.builtin ? '*' : ''}`)).toEqual(['username*', 'password*', 'lastLogin*', 'email*', 'emailVerified*', 'roles*', 'bio', 'posts']);
    expect(type(model, 'Role').fields.map((f) => f.name)).toEqual(['name', 'members', 'color']);
    expect(valueField(model, 'Post', 'level').type).toEqual({ kind: 'enum', name: 'AccessLevel' });
  });
});

describe('types and fields', () => {
  it('sorts types, embedded types, enums and relations by name and keeps field order', () => {
    const model = parseSchema(`
      enum Zeta { Z } enum Alpha { A }
      type Zed { z: Int } type Abc { a: Int }
      type Post @model { b: Int a: Int c: Int }
      type Author @model { x: Int }`);
    expect(model.types.map((t) => t.name)).toEqual(['Author', 'File', 'Post', 'Role', 'User']);
    expect(model.embedded.map((e) => e.name)).toEqual(['Abc', 'Zed']);
    expect(model.enums.map((e) => e.name)).toEqual(['AccessLevel', 'Alpha', 'Zeta']);
    expect(type(model, 'Post').fields.map((f) => f.name)).toEqual(['b', 'a', 'c']);
  });

  it('follows English plurals unless @model(plural:) says otherwise', () => {
    const model = parseSchema(`
      type Country @model { a: Int } type City @model { a: Int } type Person @model { a: Int }
      type Status @model { a: Int } type Post @model { a: Int } type Category @model { a: Int }
      type Child @model(plural: "Kids") { a: Int }`);
    const plurals = Object.fromEntries(model.types.map((t) => [t.name, t.plural]));
    expect(plurals).toMatchObject({ Country: 'Countries', City: 'Cities', Person: 'People', Status: 'Statuses', Post: 'Posts', Category: 'Categories', Child: 'Kids' });
    expect(pluralOf('URL')).toBe('URLs');
    expect(pluralOf('BlogPost')).toBe('BlogPosts');
  });

  it('reads value fields: lists, required, unique implies index, column = name', () => {
    const model = parseSchema(`
      type Address { street: String }
      type Shop @model { sku: String! @unique tags: [String]! name: String @index at: Address places: [Address] }`);
    expect(valueField(model, 'Shop', 'sku')).toMatchObject({ required: true, unique: true, index: true, list: false, column: 'sku', builtin: false, writeOnly: false });
    expect(valueField(model, 'Shop', 'tags')).toMatchObject({ list: true, required: true, unique: false, index: false });
    expect(valueField(model, 'Shop', 'name')).toMatchObject({ unique: false, index: true });
    expect(valueField(model, 'Shop', 'at').type).toEqual({ kind: 'embedded', name: 'Address' });
    expect(valueField(model, 'Shop', 'places')).toMatchObject({ list: true, type: { kind: 'embedded', name: 'Address' } });
    expect(model.embedded).toMatchObject([{ name: 'Address', fields: [{ name: 'street', kind: 'value' }] }]);
  });

  it('records renames of types and fields', () => {
    const model = parseSchema(`
      type Post @model @renamed(from: "Article") { title: String @renamed(from: "headline") author: User @relation(name: "A") @renamed(from: "writer") }
      type User @model { posts: [Post] @relation(name: "A") }`);
    expect(type(model, 'Post').renamedFrom).toBe('Article');
    expect(field(model, 'Post', 'title').renamedFrom).toBe('headline');
    expect(field(model, 'Post', 'author').renamedFrom).toBe('writer');
    expect(type(model, 'User').renamedFrom).toBeUndefined();
  });
});

describe('@default', () => {
  const defaultOf = (fieldSdl: string, extra = '') => valueField(parseSchema(`${extra} type T @model { f: ${fieldSdl} }`), 'T', 'f').default;

  it('normalises DateTime defaults to UTC with milliseconds', () => {
    expect(defaultOf('DateTime @default(value: "2016-12-08T12:33:56.000Z")')).toBe('2016-12-08T12:33:56.000Z');
    expect(defaultOf('DateTime @default(value: "2016-12-08T13:33:56+01:00")')).toBe('2016-12-08T12:33:56.000Z');
    expect(defaultOf('DateTime @default(value: "2016-12-08T12:33")')).toBe('2016-12-08T12:33:00.000Z');
    expect(defaultOf('DateTime @default(value: "2016-12-08")')).toBe('2016-12-08T00:00:00.000Z');
    expect(defaultOf('DateTime @default(value: "2016-12-08T12:33:56.123456Z")')).toBe('2016-12-08T12:33:56.123Z');
  });

  it('keeps Int, Float, Boolean, String, enum and JSON defaults as JSON values', () => {
    expect(defaultOf('Int @default(value: -7)')).toBe(-7);
    expect(defaultOf('Int @default(value: 2147483647)')).toBe(2147483647);
    expect(defaultOf('Float @default(value: 2)')).toBe(2);
    expect(defaultOf('Float @default(value: 2.5e3)')).toBe(2500);
    expect(defaultOf('Boolean! @default(value: false)')).toBe(false);
    expect(defaultOf('String @default(value: "")')).toBe('');
    expect(defaultOf('Mood @default(value: SAD)', 'enum Mood { HAPPY SAD }')).toBe('SAD');
    expect(defaultOf('JSON @default(value: { a: [1, "b", null], c: { d: false } })')).toEqual({ a: [1, 'b', null], c: { d: false } });
    expect(defaultOf('JSON @default(value: 3)')).toBe(3);
  });

  it('checks lists item by item; a single value stands for a list of one', () => {
    expect(defaultOf('[Int] @default(value: [1, null, 3])')).toEqual([1, null, 3]);
    expect(defaultOf('[String] @default(value: "only")')).toEqual(['only']);
    expect(defaultOf('[DateTime] @default(value: ["2020-01-01"])')).toEqual(['2020-01-01T00:00:00.000Z']);
    expect(defaultOf('[String] @default(value: [])')).toEqual([]);
  });

  it('checks embedded values field by field', () => {
    const extra = 'type Geo { lat: Float! lng: Float! at: DateTime }';
    expect(defaultOf('Geo @default(value: { lat: 1, lng: 2.5, at: "2020-02-29T10:00Z" })', extra)).toEqual({ lat: 1, lng: 2.5, at: '2020-02-29T10:00:00.000Z' });
    expect(problemsOf(`${extra} type T @model { f: Geo @default(value: { lat: 1 }) }`)).toMatchObject([{ message: expect.stringContaining('required field lng') }]);
  });

  it('rejects values of the wrong type', () => {
    for (const bad of ['Int @default(value: 2147483648)', 'Int @default(value: "1")', 'Float @default(value: true)', 'DateTime @default(value: "2019-02-29")', 'DateTime @default(value: "yesterday")', 'String @default(value: null)']) {
      expect(problemsOf(`type T @model { f: ${bad} }`), bad).toHaveLength(1);
    }
  });
});

describe('@permission', () => {
  it('reads type rules with booleans defaulting to false', () => {
    const model = parseSchema(`
      type Post @model
        @permission(scope: EVERYONE, read: true)
        @permission(scope: RELATION, userFields: ["author", "editors"], update: true, delete: true)
        @permission(scope: ROLE, roles: ["Editors"], read: true, update: true)
        @permission(scope: AUTHENTICATED, read: true, fields: ["title"]) {
        title: String
        author: User @relation(name: "PostAuthor")
        editors: [User] @relation(name: "PostEditors")
      }
      type User @model @permission(scope: SELF, read: true, update: true) {
        posts: [Post] @relation(name: "PostAuthor")
        edits: [Post] @relation(name: "PostEditors")
      }`);
    expect(type(model, 'Post').permissions).toEqual([
      rule({ scope: 'EVERYONE', read: true }),
      rule({ scope: 'RELATION', userFields: ['author', 'editors'], update: true, delete: true }),
      rule({ scope: 'ROLE', roles: ['Editors'], read: true, update: true }),
      rule({ scope: 'AUTHENTICATED', read: true, fields: ['title'] }),
    ]);
    expect(type(model, 'User').permissions).toEqual([rule({ scope: 'SELF', read: true, update: true })]);
    expect(field(model, 'Post', 'title').permissions).toEqual([]);
  });

  it('stores field rules on the field', () => {
    const model = parseSchema(`
      type Post @model {
        secret: String @permission(scope: AUTHENTICATED, read: true) @permission(scope: ROLE, roles: ["Staff"], update: true, create: true)
        author: User @relation(name: "PostAuthor") @permission(scope: RELATION, userFields: ["author"], update: true)
      }
      type User @model { posts: [Post] @relation(name: "PostAuthor") }`);
    expect(field(model, 'Post', 'secret').permissions).toEqual([
      rule({ scope: 'AUTHENTICATED', read: true }),
      rule({ scope: 'ROLE', roles: ['Staff'], create: true, update: true }),
    ]);
    expect(field(model, 'Post', 'author').permissions).toEqual([rule({ scope: 'RELATION', userFields: ['author'], update: true })]);
    expect(type(model, 'Post').permissions).toEqual([]);
  });

  it('follows userFields paths through relations of any kind and depth', () => {
    const model = parseSchema(`
      type Message @model @permission(scope: RELATION, userFields: ["channel.members", "channel.owner.roles.members"], read: true) {
        channel: Channel @relation(name: "ChannelMessages")
      }
      type Channel @model {
        messages: [Message] @relation(name: "ChannelMessages")
        members: [User] @relation(name: "ChannelMembers")
        owner: User @relation(name: "ChannelOwner")
      }
      type User @model { channels: [Channel] @relation(name: "ChannelMembers") owns: [Channel] @relation(name: "ChannelOwner") }`);
    expect(type(model, 'Message').permissions[0]?.userFields).toEqual(['channel.members', 'channel.owner.roles.members']);
  });
});

describe('SCHEMA_INVALID', () => {
  it('is a TesseraError listing every problem sorted by line and column', () => {
    const sdl = ['type Post @model {', '  b: Strin', '  a: Int @default(value: "x") @index @index', '}', 'enum E'].join('\n');
    let error: unknown;
    try {
      parseSchema(sdl);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TesseraError);
    const tessera = error as TesseraError;
    expect(tessera.code).toBe('SCHEMA_INVALID');
    expect(tessera.status).toBe(400);
    const problems = tessera.extensions.problems as { line: number; column: number; message: string }[];
    expect(problems.map((p) => [p.line, p.column])).toEqual([
      [2, 6],
      [3, 26],
      [3, 38],
      [5, 6],
    ]);
    expect(tessera.message).toBe(`Schema is invalid: ${problems[0]?.message} (line 2, column 6); and 3 more problem(s)`);
  });

  it('reports a syntax error alone, where the parser stopped', () => {
    expect(problemsOf('type Post @model {\n  title: String\n')).toEqual([{ message: 'Syntax Error: Expected Name, found <EOF>.', line: 3, column: 1 }]);
  });
});

describe('helpers', () => {
  it('normalizeDateTime accepts ISO 8601 dates and date-times only', () => {
    expect(normalizeDateTime('2016-12-08T12:33:56.000Z')).toBe('2016-12-08T12:33:56.000Z');
    expect(normalizeDateTime('2016-12-08t12:33:56z')).toBe('2016-12-08T12:33:56.000Z');
    expect(normalizeDateTime('2016-12-08T00:30:00-0130')).toBe('2016-12-08T02:00:00.000Z');
    expect(normalizeDateTime('2020-02-29')).toBe('2020-02-29T00:00:00.000Z');
    for (const bad of ['2019-02-29', '2016-12-08T24:00', '2016-12-08T12:60', '2016-1-8', '12/08/2016', '2016-12-08 12:33', '2016-12-08+01:00', '', '0000-06-01', '0001-01-01T00:00:00+01:00']) {
      expect(normalizeDateTime(bad), bad).toBeUndefined();
    }
  });

  it('lowerCamel lowers the first word', () => {
    expect(['User', 'BlogPost', 'URL', 'URLLink', 'x'].map(lowerCamel)).toEqual(['user', 'blogPost', 'url', 'urlLink', 'x']);
  });
});
