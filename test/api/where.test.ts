// `where` over HTTP on both stores: every operator on every scalar kind (nulls included, and
// the rule that negative operators match nulls), case-insensitive like, partial DateTime
// operands, AND / OR / NOT, id and relation-id filters, singular, one-to-many and many-to-many
// relation filters nested several levels deep, and variables in every position of a filter.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { graphqlLiteral, rowMatches, seed } from './reference.js';
import type { FieldKind } from './reference.js';

const SCHEMA = `
enum Color { RED GREEN BLUE }
type Item @model {
  key: String!
  name: String
  title: String
  notes: Text
  score: Int
  weight: Float
  active: Boolean
  seenAt: DateTime
  color: Color
  code: ID
  data: JSON
  tags: [String]
}
type User @model { displayName: String posts: [Post] @relation(name: "PostAuthor") }
type Post @model {
  title: String!
  rating: Int
  author: User @relation(name: "PostAuthor")
  labels: [Label] @relation(name: "PostLabels")
  comments: [Comment] @relation(name: "PostComments")
}
type Comment @model { text: String! post: Post @relation(name: "PostComments") }
type Label @model { name: String! posts: [Post] @relation(name: "PostLabels") }
type PostLabels @join(relation: "PostLabels") { weight: Int }
type Country @model { name: String! capital: City @relation(name: "CountryCapital") }
type City @model { name: String! capitalOf: Country @relation(name: "CountryCapital") }
`;

// `name` holds lower-case letters only, so comparisons do not depend on the database's collation;
// `title` and `notes` mix case and hold `_` and `%` for like.
const ITEMS = [
  { key: 'a', name: 'alpha', title: 'Alpha', notes: 'First note', score: 1, weight: 1.5, active: true, seenAt: '2016-12-31T23:59:59.999Z', color: 'RED', code: 'A1', data: { x: 1 }, tags: ['a'] },
  { key: 'b', name: 'beta', title: 'beta', notes: 'second_note', score: 2, weight: -0.5, active: false, seenAt: '2017-01-01T00:00:00.000Z', color: 'GREEN', code: 'B2', data: null, tags: [] },
  { key: 'c', name: 'gamma', title: 'Gamma', notes: '100% sure', score: 3, weight: 2.25, active: true, seenAt: '2017-03-05T10:00:00.000Z', color: 'BLUE', code: null, data: [1], tags: null },
  { key: 'd', name: 'alphabet', title: 'alphabet', notes: null, score: null, weight: null, active: null, seenAt: '2017-03-05T10:00:30.000Z', color: null, code: 'D4', data: null, tags: null },
  { key: 'e', name: null, title: null, notes: 'Alpha_beta', score: 0, weight: 0, active: false, seenAt: '2017-03-01T00:00:00.000Z', color: 'RED', code: null, data: 's', tags: ['x', 'y'] },
  { key: 'f', name: '', title: '', notes: '', score: -3, weight: 10.75, active: null, seenAt: null, color: 'GREEN', code: '', data: 0, tags: ['z'] },
  { key: 'g', name: 'delta', title: 'ALPHA', notes: 'alpha%', score: 2, weight: 1.5, active: true, seenAt: '2018-06-15T12:00:00.000Z', color: null, code: 'a1', data: null, tags: [] },
  { key: 'h', name: 'beta', title: 'b_ta', notes: 'x', score: null, weight: 3, active: false, seenAt: '2017-03-05T09:59:59.999Z', color: 'BLUE', code: 'B2', data: false, tags: null },
];

const KINDS: Record<string, FieldKind> = {
  key: 'text', name: 'text', title: 'text', notes: 'text', code: 'text',
  score: 'number', weight: 'number', active: 'boolean', seenAt: 'datetime', color: 'enum',
  data: 'opaque', tags: 'opaque',
};

const ENUM_FIELDS = new Set(['color']);

/** A filter as a GraphQL literal. */
function literal(v: unknown): string {
  return graphqlLiteral(v, ENUM_FIELDS);
}

function code(body: Json): string | undefined {
  return body.errors?.[0]?.extensions?.code;
}

type Case = [where: Record<string, unknown>, keys: string];

/** Cases per field kind: the filter and the keys of the items it matches, in key order. */
const CASES: Record<string, Case[]> = {
  'String': [
    [{ name: { eq: 'beta' } }, 'bh'],
    [{ name: { eq: '' } }, 'f'],
    [{ name: { ne: 'beta' } }, 'acdefg'],
    [{ name: { gt: 'alpha' } }, 'bcdgh'],
    [{ name: { gte: 'alpha' } }, 'abcdgh'],
    [{ name: { lt: 'beta' } }, 'adf'],
    [{ name: { lte: 'beta' } }, 'abdfh'],
    [{ name: { between: ['alpha', 'beta'] } }, 'abdh'],
    [{ name: { notBetween: ['alpha', 'beta'] } }, 'cefg'],
    [{ name: { between: ['beta', 'alpha'] } }, ''],
    [{ name: { in: ['beta', 'gamma', 'nope'] } }, 'bch'],
    [{ name: { in: [] } }, ''],
    [{ name: { notIn: ['beta', 'gamma'] } }, 'adefg'],
    [{ name: { notIn: [] } }, 'abcdefgh'],
    [{ name: { isNull: true } }, 'e'],
    [{ name: { isNull: false } }, 'abcdfgh'],
    [{ name: { gte: 'b', lt: 'e' } }, 'bgh'],
  ],
  'String like': [
    [{ title: { eq: 'alpha' } }, ''],
    [{ title: { eq: 'ALPHA' } }, 'g'],
    [{ title: { like: 'alpha' } }, 'ag'],
    [{ title: { like: 'ALPHA%' } }, 'adg'],
    [{ title: { like: '%a' } }, 'abcgh'],
    [{ title: { like: 'b_ta' } }, 'bh'],
    [{ title: { like: '%PH%' } }, 'adg'],
    [{ title: { like: '_' } }, ''],
    [{ title: { like: '' } }, 'f'],
    [{ title: { like: '%' } }, 'abcdfgh'],
    [{ title: { notLike: 'alpha%' } }, 'bcefh'],
    [{ title: { notLike: '%' } }, 'e'],
    [{ title: { in: ['Alpha', 'beta'] } }, 'ab'],
    [{ title: { notIn: ['Alpha', 'beta'] } }, 'cdefgh'],
    [{ title: { ne: 'Alpha' } }, 'bcdefgh'],
    [{ title: { like: 'B\\_TA' } }, 'h'],
  ],
  'Text': [
    [{ notes: { eq: 'x' } }, 'h'],
    [{ notes: { ne: 'x' } }, 'abcdefg'],
    [{ notes: { like: '%NOTE' } }, 'ab'],
    [{ notes: { like: '%_%' } }, 'abcegh'],
    [{ notes: { like: '_' } }, 'h'],
    [{ notes: { like: 'alpha%' } }, 'eg'],
    [{ notes: { like: '______' } }, 'g'],
    [{ notes: { notLike: '%note' } }, 'cdefgh'],
    [{ notes: { in: ['', 'x'] } }, 'fh'],
    [{ notes: { notIn: ['', 'x'] } }, 'abcdeg'],
    [{ notes: { isNull: true } }, 'd'],
    [{ notes: { isNull: false, like: '%e%' } }, 'abce'],
    // A backslash escapes the next character of a pattern.
    [{ notes: { like: '%\\_%' } }, 'be'],
    [{ notes: { notLike: '%\\_%' } }, 'acdfgh'],
    [{ notes: { like: '%\\%' } }, 'g'],
    [{ notes: { like: '%\\%%' } }, 'cg'],
    [{ notes: { like: '%\\\\%' } }, ''],
  ],
  'ID (a value field)': [
    [{ code: { eq: 'B2' } }, 'bh'],
    [{ code: { ne: 'B2' } }, 'acdefg'],
    [{ code: { in: ['A1', 'D4'] } }, 'ad'],
    [{ code: { notIn: ['A1', 'D4'] } }, 'bcefgh'],
    [{ code: { like: 'a%' } }, 'ag'],
    [{ code: { notLike: 'a%' } }, 'bcdefh'],
    [{ code: { isNull: true } }, 'ce'],
  ],
  'Int': [
    [{ score: { eq: 2 } }, 'bg'],
    [{ score: { ne: 2 } }, 'acdefh'],
    [{ score: { gt: 1 } }, 'bcg'],
    [{ score: { gte: 1 } }, 'abcg'],
    [{ score: { lt: 1 } }, 'ef'],
    [{ score: { lte: 1 } }, 'aef'],
    [{ score: { between: [0, 2] } }, 'abeg'],
    [{ score: { notBetween: [0, 2] } }, 'cdfh'],
    [{ score: { in: [-3, 3, 7] } }, 'cf'],
    [{ score: { notIn: [-3, 3, 7] } }, 'abdegh'],
    [{ score: { isNull: true } }, 'dh'],
    [{ score: { isNull: false } }, 'abcefg'],
    [{ score: { gt: 0, lte: 2, ne: 1 } }, 'bg'],
  ],
  'Float': [
    [{ weight: { eq: 1.5 } }, 'ag'],
    [{ weight: { ne: 1.5 } }, 'bcdefh'],
    [{ weight: { gt: 0 } }, 'acfgh'],
    [{ weight: { gte: 0 } }, 'acefgh'],
    [{ weight: { lt: 1.5 } }, 'be'],
    [{ weight: { lte: 1.5 } }, 'abeg'],
    [{ weight: { between: [-0.5, 2.25] } }, 'abceg'],
    [{ weight: { notBetween: [-0.5, 2.25] } }, 'dfh'],
    [{ weight: { in: [3, 10.75] } }, 'fh'],
    [{ weight: { notIn: [3, 10.75] } }, 'abcdeg'],
    [{ weight: { isNull: true } }, 'd'],
    [{ weight: { gt: 2 } }, 'cfh'],
  ],
  'Boolean': [
    [{ active: { eq: true } }, 'acg'],
    [{ active: { eq: false } }, 'beh'],
    [{ active: { ne: true } }, 'bdefh'],
    [{ active: { ne: false } }, 'acdfg'],
    [{ active: { isNull: true } }, 'df'],
    [{ active: { isNull: false } }, 'abcegh'],
  ],
  'enum': [
    [{ color: { eq: 'RED' } }, 'ae'],
    [{ color: { ne: 'RED' } }, 'bcdfgh'],
    [{ color: { in: ['GREEN', 'BLUE'] } }, 'bcfh'],
    [{ color: { notIn: ['GREEN', 'BLUE'] } }, 'adeg'],
    [{ color: { isNull: true } }, 'dg'],
    [{ color: { isNull: false } }, 'abcefh'],
  ],
  'DateTime': [
    [{ seenAt: { eq: '2017-03-05T10:00:00.000Z' } }, 'c'],
    [{ seenAt: { eq: '2017' } }, 'b'],
    [{ seenAt: { eq: '2017-03' } }, 'e'],
    [{ seenAt: { eq: '2017-03-05T10:00' } }, 'c'],
    [{ seenAt: { eq: '2017-03-05T11:00:00+01:00' } }, 'c'],
    [{ seenAt: { ne: '2017' } }, 'acdefgh'],
    [{ seenAt: { gte: '2017' } }, 'bcdegh'],
    [{ seenAt: { gt: '2017' } }, 'cdegh'],
    [{ seenAt: { lt: '2017' } }, 'a'],
    [{ seenAt: { lte: '2017' } }, 'ab'],
    [{ seenAt: { lt: '2017-03-05' } }, 'abe'],
    [{ seenAt: { gte: '2017-03-05T10:00' } }, 'cdg'],
    [{ seenAt: { gt: '2016-12-31T23:59:59.998' } }, 'abcdegh'],
    [{ seenAt: { between: ['2017-03', '2017-03-05T10:00'] } }, 'ceh'],
    [{ seenAt: { notBetween: ['2017-03', '2017-03-05T10:00'] } }, 'abdfg'],
    [{ seenAt: { in: ['2017', '2017-03', '2019'] } }, 'be'],
    [{ seenAt: { notIn: ['2017', '2017-03'] } }, 'acdfgh'],
    [{ seenAt: { isNull: true } }, 'f'],
    [{ seenAt: { gte: '2017-03', lt: '2017-04' } }, 'cdeh'],
  ],
  'JSON and lists': [
    [{ data: { isNull: true } }, 'bdg'],
    [{ data: { isNull: false } }, 'acefh'],
    [{ tags: { isNull: true } }, 'cdh'],
    [{ tags: { isNull: false } }, 'abefg'],
  ],
  'AND, OR, NOT': [
    [{ OR: [{ score: { gte: 3 } }, { color: { eq: 'GREEN' } }] }, 'bcf'],
    [{ AND: [{ score: { gte: 1 } }, { active: { eq: true } }] }, 'acg'],
    [{ score: { gte: 1 }, active: { eq: true } }, 'acg'],
    [{ NOT: { score: { gte: 2 } } }, 'adefh'],
    [{ NOT: { score: { lt: 2 } } }, 'bcdgh'],
    [{ NOT: { OR: [{ color: { eq: 'RED' } }, { color: { isNull: true } }] } }, 'bcfh'],
    [{ NOT: { NOT: { score: { gt: 0 } } } }, 'abcg'],
    [{ NOT: { name: { like: 'a%' } } }, 'bcefgh'],
    [{ NOT: { name: { notLike: 'a%' } } }, 'ad'],
    [{ NOT: { AND: [{ score: { gte: 1 } }, { weight: { gte: 1.5 } }] } }, 'bdefh'],
    [{ OR: [{ AND: [{ color: { eq: 'BLUE' } }, { NOT: { active: { eq: true } } }] }, { NOT: { seenAt: { isNull: false } } }] }, 'fh'],
    [{ AND: [{ OR: [{ name: { eq: 'beta' } }, { score: { isNull: true } }] }, { NOT: { weight: { gt: 2 } } }] }, 'bd'],
    [{ name: { isNull: false }, OR: [{ score: { lt: 0 } }, { weight: { gt: 2.5 } }], NOT: { title: { like: '' } } }, 'h'],
    [{ AND: [] }, 'abcdefgh'],
    [{ OR: [] }, ''],
    [{}, 'abcdefgh'],
    [{ NOT: {} }, ''],
    [{ OR: [{ key: { eq: 'a' } }, { OR: [{ key: { eq: 'b' } }, { AND: [{ key: { eq: 'c' } }, { NOT: { key: { eq: 'c' } } }] }] }] }, 'ab'],
  ],
};

describe.each(STORE_KINDS)('where (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let items: Json[];

  async function keysOf(where: Record<string, unknown>): Promise<string> {
    const data = await app.data(`{ viewer { allItems(where: ${literal(where)}, orderBy: { field: key }) { edges { node { key } } } } }`);
    return data.viewer.allItems.edges.map((e: Json) => e.node.key).join('');
  }

  async function keysOfVariable(where: unknown): Promise<string> {
    const data = await app.data('query($w: ItemWhereArgs) { viewer { allItems(where: $w, orderBy: { field: key }) { edges { node { key } } } } }', { w: where });
    return data.viewer.allItems.edges.map((e: Json) => e.node.key).join('');
  }

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    items = await seed(app, 'Item', ITEMS, 'id key');
  });
  afterAll(async () => server?.close());

  describe.each(Object.keys(CASES))('%s', (group) => {
    it.each((CASES[group] ?? []).map(([where, keys]) => [literal(where), where, keys] as const))('%s', async (_, where, keys) => {
      // The expectation written down here agrees with the reference semantics …
      expect(ITEMS.filter((row) => rowMatches(KINDS, row, where)).map((r) => r.key).join('')).toBe(keys);
      // … and with the API, the filter written as a literal and sent as a variable.
      expect(await keysOf(where)).toBe(keys);
      expect(await keysOfVariable(where)).toBe(keys);
    });
  });

  it('createdAt and modifiedAt filter as DateTime', async () => {
    const rows = (await app.data('{ viewer { allItems(orderBy: { field: key }) { edges { node { key createdAt modifiedAt } } } } }')).viewer.allItems.edges.map((e: Json) => e.node);
    const times = [...new Set(rows.map((r: Json) => r.createdAt as string))].sort();
    const middle = times[Math.floor(times.length / 2)] as string;
    const keys = (test: (t: string) => boolean) => rows.filter((r: Json) => test(r.createdAt)).map((r: Json) => r.key).join('');
    expect(await keysOf({ createdAt: { gte: middle } })).toBe(keys((t) => t >= middle));
    expect(await keysOf({ createdAt: { lt: middle } })).toBe(keys((t) => t < middle));
    expect(await keysOf({ createdAt: { eq: middle } })).toBe(keys((t) => t === middle));
    expect(await keysOf({ createdAt: { ne: middle } })).toBe(keys((t) => t !== middle));
    expect(await keysOf({ createdAt: { in: [middle, '2001'] } })).toBe(keys((t) => t === middle));
    expect(await keysOf({ createdAt: { between: ['2001', middle] } })).toBe(keys((t) => t <= middle));
    expect(await keysOf({ createdAt: { notBetween: ['2001', middle] } })).toBe(keys((t) => t > middle));
    expect(await keysOf({ createdAt: { gt: '2001' } })).toBe('abcdefgh');
    expect(await keysOf({ createdAt: { isNull: true } })).toBe('');
    expect(await keysOf({ modifiedAt: { gte: '2001', lt: '3000' } })).toBe('abcdefgh');
    expect(await keysOf({ modifiedAt: { isNull: false }, NOT: { modifiedAt: { lt: '2001-06' } } })).toBe('abcdefgh');
  });

  describe('operand errors', () => {
    it.each([
      ['between with one value', { score: { between: [1] } }],
      ['between with three values', { score: { between: [1, 2, 3] } }],
      ['notBetween with one value', { seenAt: { notBetween: ['2017'] } }],
      ['a NUL character', { name: { eq: 'a\u0000b' } }],
      ['a NUL character in a pattern', { title: { like: '%\u0000%' } }],
      ['a like pattern ending in a lone escape character', { title: { like: 'a\\' } }],
      ['a notLike pattern ending in a lone escape character', { notes: { notLike: '%\\\\\\' } }],
    ])('%s is BAD_USER_INPUT', async (_, where) => {
      const asVariable = await app.gql('query($w: ItemWhereArgs) { viewer { allItems(where: $w) { edges { node { key } } } } }', { w: where });
      expect(code(asVariable.body)).toBe('BAD_USER_INPUT');
      const asLiteral = await app.gql(`{ viewer { allItems(where: ${literal(where)}) { edges { node { key } } } } }`);
      expect(code(asLiteral.body)).toBe('BAD_USER_INPUT');
    });

    it('a DateTime operand that is not ISO 8601 is refused', async () => {
      const asVariable = await app.gql('query($d: DateTime) { viewer { allItems(where: { seenAt: { gt: $d } }) { edges { node { key } } } } }', { d: 'yesterday' });
      expect(code(asVariable.body)).toBe('BAD_USER_INPUT');
      const asLiteral = await app.gql('{ viewer { allItems(where: { seenAt: { gt: "2017-13" } }) { edges { node { key } } } } }');
      expect(code(asLiteral.body)).toBe('GRAPHQL_VALIDATION_FAILED');
    });
  });

  describe('id', () => {
    const key = (k: string) => (items.find((i) => i.key === k) as Json).id as string;

    it('eq, ne, in, notIn and isNull', async () => {
      expect(await keysOf({ id: { eq: key('c') } })).toBe('c');
      expect(await keysOf({ id: { ne: key('c') } })).toBe('abdefgh');
      expect(await keysOf({ id: { in: [key('a'), key('h')] } })).toBe('ah');
      expect(await keysOf({ id: { notIn: [key('a'), key('h')] } })).toBe('bcdefg');
      expect(await keysOf({ id: { in: [] } })).toBe('');
      expect(await keysOf({ id: { isNull: true } })).toBe('');
      expect(await keysOf({ id: { isNull: false } })).toBe('abcdefgh');
      expect(await keysOf({ OR: [{ id: { eq: key('b') } }, { NOT: { id: { ne: key('d') } } }] })).toBe('bd');
    });

    it('an id of another type, or not an id at all, is BAD_USER_INPUT', async () => {
      const user = Buffer.from('User:00000000-0000-4000-8000-000000000000').toString('base64url');
      const missing = Buffer.from('Item:00000000-0000-4000-8000-000000000000').toString('base64url');
      for (const where of [{ id: { eq: user } }, { id: { ne: 'garbage' } }, { id: { in: [key('a'), user] } }, { id: { notIn: [''] } }, { NOT: { id: { eq: 'Item:1' } } }]) {
        expect(code((await app.gql(`{ viewer { allItems(where: ${literal(where)}) { edges { cursor } } } }`)).body), JSON.stringify(where)).toBe('BAD_USER_INPUT');
        expect(code((await app.gql('query($w: ItemWhereArgs) { viewer { allItems(where: $w) { edges { cursor } } } }', { w: where })).body), JSON.stringify(where)).toBe('BAD_USER_INPUT');
      }
      // A well-formed id of the right type that names no object is simply not found.
      expect(await keysOf({ id: { eq: missing } })).toBe('');
      expect(await keysOf({ id: { ne: missing } })).toBe('abcdefgh');
    });
  });

  describe('relations', () => {
    const ids: Record<string, string> = {};

    async function titles(where: Record<string, unknown>, type = 'Post', field = 'title'): Promise<string[]> {
      const data = await app.data(`query($w: ${type}WhereArgs) { viewer { all: all${type === 'Country' ? 'Countries' : type === 'City' ? 'Cities' : `${type}s`}(where: $w) { edges { node { ${field} } } } } }`, { w: where });
      return data.viewer.all.edges.map((e: Json) => e.node[field]).sort();
    }

    beforeAll(async () => {
      const users = await seed(app, 'User', [
        { username: 'ann', password: 'pw-123456', displayName: 'Ann' },
        { username: 'bob', password: 'pw-123456', displayName: 'Bob' },
        { username: 'cid', password: 'pw-123456' },
      ], 'id username');
      for (const u of users) ids[u.username] = u.id;
      const posts = await seed(app, 'Post', [
        { title: 'GraphQL intro', rating: 5, authorId: ids.ann },
        { title: 'SQL deep dive', rating: 3, authorId: ids.ann },
        { title: 'Cooking', authorId: ids.bob },
        { title: 'Orphan', rating: 1 },
      ], 'id title');
      for (const p of posts) ids[p.title] = p.id;
      await seed(app, 'Comment', [
        { text: 'great', postId: ids['GraphQL intro'] },
        { text: 'meh', postId: ids['GraphQL intro'] },
        { text: 'tasty', postId: ids.Cooking },
        { text: 'lonely' },
      ]);
      const labels = await seed(app, 'Label', [{ name: 'tech' }, { name: 'food' }, { name: 'unused' }], 'id name');
      for (const l of labels) ids[l.name] = l.id;
      const edges: [string, string, number | null][] = [
        ['GraphQL intro', 'tech', 10],
        ['SQL deep dive', 'tech', 2],
        ['Cooking', 'food', 7],
        ['GraphQL intro', 'food', null],
      ];
      const mutation = edges
        .map(([p, l, w], i) => `e${i}: addToPostLabelsConnection(input: { postId: "${ids[p]}", labelId: "${ids[l]}", weight: ${w === null ? 'null' : w} }) { changedPostLabels { weight } }`)
        .join('\n');
      await app.data(`mutation { ${mutation} }`);
      const countries = await seed(app, 'Country', [{ name: 'France', capital: { name: 'Paris' } }, { name: 'Spain' }], 'id name capital { id name }');
      ids.France = countries[0].id;
      ids.Spain = countries[1].id;
      ids.Paris = countries[0].capital.id;
      ids.Lyon = (await seed(app, 'City', [{ name: 'Lyon' }]))[0].id;
    });

    it('<relation>Id: eq, ne, in, notIn and isNull (ne and notIn match posts without an author)', async () => {
      expect(await titles({ authorId: { eq: ids.ann } })).toEqual(['GraphQL intro', 'SQL deep dive']);
      expect(await titles({ authorId: { ne: ids.ann } })).toEqual(['Cooking', 'Orphan']);
      expect(await titles({ authorId: { in: [ids.ann, ids.bob] } })).toEqual(['Cooking', 'GraphQL intro', 'SQL deep dive']);
      expect(await titles({ authorId: { notIn: [ids.ann] } })).toEqual(['Cooking', 'Orphan']);
      expect(await titles({ authorId: { in: [ids.cid] } })).toEqual([]);
      expect(await titles({ authorId: { isNull: true } })).toEqual(['Orphan']);
      expect(await titles({ authorId: { isNull: false } })).toEqual(['Cooking', 'GraphQL intro', 'SQL deep dive']);
      expect(await titles({ postId: { eq: ids['GraphQL intro'] } }, 'Comment', 'text')).toEqual(['great', 'meh']);
      expect(await titles({ postId: { isNull: true } }, 'Comment', 'text')).toEqual(['lonely']);
    });

    it('<relation>Id on both sides of a one-to-one relation', async () => {
      expect(await titles({ capitalId: { eq: ids.Paris } }, 'Country', 'name')).toEqual(['France']);
      expect(await titles({ capitalId: { isNull: true } }, 'Country', 'name')).toEqual(['Spain']);
      expect(await titles({ capitalId: { ne: ids.Paris } }, 'Country', 'name')).toEqual(['Spain']);
      expect(await titles({ capitalOfId: { eq: ids.France } }, 'City', 'name')).toEqual(['Paris']);
      expect(await titles({ capitalOfId: { ne: ids.France } }, 'City', 'name')).toEqual(['Lyon']);
      expect(await titles({ capitalOfId: { notIn: [ids.Spain] } }, 'City', 'name')).toEqual(['Lyon', 'Paris']);
      expect(await titles({ capitalOfId: { in: [ids.Spain, ids.France] } }, 'City', 'name')).toEqual(['Paris']);
      expect(await titles({ capitalOfId: { isNull: true } }, 'City', 'name')).toEqual(['Lyon']);
    });

    it('<relation>Id of the wrong type or not an id is BAD_USER_INPUT', async () => {
      for (const where of [{ authorId: { eq: ids.Cooking } }, { authorId: { in: [ids.ann, ids.tech] } }, { authorId: { ne: 'nonsense' } }, { authorId: { notIn: [ids.France] } }]) {
        const reply = await app.gql('query($w: PostWhereArgs) { viewer { allPosts(where: $w) { edges { cursor } } } }', { w: where });
        expect(code(reply.body), JSON.stringify(where)).toBe('BAD_USER_INPUT');
      }
      const literalReply = await app.gql(`{ viewer { allCities(where: { capitalOfId: { eq: "${ids.Paris}" } }) { edges { cursor } } } }`);
      expect(code(literalReply.body)).toBe('BAD_USER_INPUT');
    });

    it('a singular relation filters with the related type\'s where', async () => {
      expect(await titles({ author: { username: { eq: 'ann' } } })).toEqual(['GraphQL intro', 'SQL deep dive']);
      expect(await titles({ author: { displayName: { like: 'b%' } } })).toEqual(['Cooking']);
      // A post without an author has no related object to match, even with a negative operator.
      expect(await titles({ author: { username: { ne: 'ann' } } })).toEqual(['Cooking']);
      expect(await titles({ author: {} })).toEqual(['Cooking', 'GraphQL intro', 'SQL deep dive']);
      expect(await titles({ NOT: { author: { username: { eq: 'ann' } } } })).toEqual(['Cooking', 'Orphan']);
      expect(await titles({ capital: { name: { eq: 'Paris' } } }, 'Country', 'name')).toEqual(['France']);
      expect(await titles({ capitalOf: { name: { eq: 'France' } } }, 'City', 'name')).toEqual(['Paris']);
      expect(await titles({ post: { rating: { gte: 5 } } }, 'Comment', 'text')).toEqual(['great', 'meh']);
    });

    it('a one-to-many relation means "at least one related object matches"', async () => {
      expect(await titles({ posts: { title: { like: '%SQL%' } } }, 'User', 'username')).toEqual(['ann']);
      expect(await titles({ posts: { rating: { isNull: true } } }, 'User', 'username')).toEqual(['bob']);
      expect(await titles({ posts: { rating: { gte: 4 } } }, 'User', 'username')).toEqual(['ann']);
      expect(await titles({ posts: {} }, 'User', 'username')).toEqual(['ann', 'bob']);
      expect(await titles({ NOT: { posts: {} } }, 'User', 'username')).toEqual(['cid']);
      // "every post matches" is "no post fails to match".
      expect(await titles({ posts: {}, NOT: { posts: { NOT: { rating: { gte: 3 } } } } }, 'User', 'username')).toEqual(['ann']);
      expect(await titles({ comments: { text: { eq: 'tasty' } } })).toEqual(['Cooking']);
      expect(await titles({ comments: { text: { in: ['great', 'tasty'] } } })).toEqual(['Cooking', 'GraphQL intro']);
    });

    it('a many-to-many relation filters on the edge and the far end of the same edge', async () => {
      expect(await titles({ labels: { node: { name: { eq: 'tech' } } } })).toEqual(['GraphQL intro', 'SQL deep dive']);
      expect(await titles({ labels: { edge: { weight: { gte: 5 } } } })).toEqual(['Cooking', 'GraphQL intro']);
      expect(await titles({ labels: { edge: { weight: { gte: 5 } }, node: { name: { eq: 'food' } } } })).toEqual(['Cooking']);
      expect(await titles({ labels: { edge: { weight: { isNull: true } } } })).toEqual(['GraphQL intro']);
      expect(await titles({ labels: { edge: { weight: { ne: 10 } }, node: { name: { eq: 'tech' } } } })).toEqual(['SQL deep dive']);
      expect(await titles({ labels: { edge: { OR: [{ weight: { lt: 3 } }, { NOT: { weight: { isNull: false } } }] } } })).toEqual(['GraphQL intro', 'SQL deep dive']);
      expect(await titles({ labels: {} })).toEqual(['Cooking', 'GraphQL intro', 'SQL deep dive']);
      expect(await titles({ NOT: { labels: {} } })).toEqual(['Orphan']);
      expect(await titles({ posts: { node: { author: { username: { eq: 'bob' } } } } }, 'Label', 'name')).toEqual(['food']);
      expect(await titles({ posts: { edge: { weight: { between: [2, 7] } } } }, 'Label', 'name')).toEqual(['food', 'tech']);
      expect(await titles({ NOT: { posts: {} } }, 'Label', 'name')).toEqual(['unused']);
    });

    it('relation filters nest several levels deep', async () => {
      expect(await titles({ posts: { node: { comments: { text: { eq: 'great' } } } } }, 'Label', 'name')).toEqual(['food', 'tech']);
      expect(await titles({ post: { author: { posts: { labels: { node: { name: { eq: 'food' } } } } } } }, 'Comment', 'text')).toEqual(['great', 'meh', 'tasty']);
      expect(await titles({ posts: { comments: { text: { like: 'T%' } } } }, 'User', 'username')).toEqual(['bob']);
      expect(
        await titles({ posts: { labels: { edge: { weight: { gt: 5 } }, node: { posts: { node: { author: { displayName: { eq: 'Bob' } } } } } } } }, 'User', 'username'),
      ).toEqual(['bob']);
      expect(await titles({ OR: [{ author: { posts: { rating: { eq: 3 } } } }, { comments: { post: { title: { eq: 'Cooking' } } } }] })).toEqual(['Cooking', 'GraphQL intro', 'SQL deep dive']);
    });

    it('a nested connection takes a where of its own, relation filters included', async () => {
      const data = await app.data(
        `query($id: ID!) { getUser(id: $id) {
          food: posts(where: { labels: { node: { name: { eq: "food" } } } }) { edges { node { title } } aggregations { count } }
          rated: posts(where: { rating: { gt: 3 } }) { edges { node { title } } }
        } }`,
        { id: ids.ann },
      );
      expect(data.getUser.food.edges.map((e: Json) => e.node.title)).toEqual(['GraphQL intro']);
      expect(data.getUser.food.aggregations.count).toBe(1);
      expect(data.getUser.rated.edges.map((e: Json) => e.node.title)).toEqual(['GraphQL intro']);
      const labels = await app.data(`query($id: ID!) { getPost(id: $id) { labels(where: { name: { ne: "food" } }) { edges { node { name } weight } } } }`, { id: ids['GraphQL intro'] });
      expect(labels.getPost.labels.edges).toEqual([{ node: { name: 'tech' }, weight: 10 }]);
      const doc = `query($r: Int, $l: String) { viewer { allUsers(orderBy: { field: username }) { edges { node { username
        posts(where: { rating: { gte: $r }, labels: { node: { name: { like: $l } } } }, orderBy: { field: title }) { edges { node { title } } } } } } } }`;
      const run = async (v: Record<string, unknown>) =>
        Object.fromEntries((await app.data(doc, v)).viewer.allUsers.edges.map((e: Json) => [e.node.username, e.node.posts.edges.map((p: Json) => p.node.title)]));
      expect(await run({ r: 4 })).toEqual({ ann: ['GraphQL intro'], bob: [], cid: [] });
      expect(await run({ l: 'f%' })).toEqual({ ann: ['GraphQL intro'], bob: ['Cooking'], cid: [] });
      expect(await run({ r: 1, l: 'T%' })).toEqual({ ann: ['GraphQL intro', 'SQL deep dive'], bob: [], cid: [] });
      expect(await run({})).toEqual({ ann: ['GraphQL intro', 'SQL deep dive'], bob: ['Cooking'], cid: [] });
    });
  });

  describe('variables', () => {
    it('an operand variable: the same document gives each request its own result', async () => {
      const doc = 'query($s: Int) { viewer { allItems(where: { score: { gte: $s } }, orderBy: { field: key }) { edges { node { key } } } } }';
      const run = async (s: unknown) => (await app.data(doc, { s })).viewer.allItems.edges.map((e: Json) => e.node.key).join('');
      expect(await run(2)).toBe('bcg');
      expect(await run(0)).toBe('abceg');
      expect(await run(2)).toBe('bcg');
      expect(await run(-10)).toBe('abcefg');
    });

    it('list, pattern, DateTime and id operands as variables', async () => {
      const doc = `query($in: [Int!], $like: String, $after: DateTime, $between: [Float!], $colors: [Color!], $id: ID) { viewer { allItems(where: {
        score: { notIn: $in }, title: { notLike: $like }, seenAt: { gte: $after }, weight: { notBetween: $between }, color: { in: $colors }, id: { ne: $id }
      }, orderBy: { field: key }) { edges { node { key } } } } }`;
      const run = async (v: Record<string, unknown>) => (await app.data(doc, v)).viewer.allItems.edges.map((e: Json) => e.node.key).join('');
      expect(await run({ in: [1], like: 'g%', after: '2017', between: [2, 4], colors: ['RED', 'GREEN', 'BLUE'] })).toBe('be');
      expect(await run({ in: [], like: '%', after: '2016', between: [100, 200], colors: ['BLUE'] })).toBe('');
      expect(await run({ colors: ['BLUE'] })).toBe('ch');
      expect(await run({ colors: ['BLUE'], id: items.find((i) => i.key === 'c').id })).toBe('h');
      expect(await run({ in: [0, 2], like: 'b%', after: '2017-03', colors: ['RED', 'GREEN', 'BLUE'] })).toBe('c');
    });

    it('unset operand variables leave their operators out', async () => {
      const doc = 'query($s: Int, $l: String) { viewer { allItems(where: { score: { eq: $s }, name: { like: $l } }, orderBy: { field: key }) { edges { node { key } } } } }';
      const run = async (v: Record<string, unknown>) => (await app.data(doc, v)).viewer.allItems.edges.map((e: Json) => e.node.key).join('');
      expect(await run({})).toBe('abcdefgh');
      expect(await run({ s: 2 })).toBe('bg');
      expect(await run({ l: 'a%' })).toBe('ad');
      expect(await run({ s: null, l: null })).toBe('abcdefgh');
      expect(await run({ s: 2, l: '%a' })).toBe('bg');
    });

    it('isNull as a variable', async () => {
      const doc = 'query($n: Boolean) { viewer { allItems(where: { score: { isNull: $n } }, orderBy: { field: key }) { edges { node { key } } } } }';
      const run = async (n: unknown) => (await app.data(doc, { n })).viewer.allItems.edges.map((e: Json) => e.node.key).join('');
      expect(await run(true)).toBe('dh');
      expect(await run(false)).toBe('abcefg');
      expect(await run(true)).toBe('dh');
      expect(await run(null)).toBe('abcdefgh');
    });

    it('a whole where object as a variable, and a variable inside NOT', async () => {
      const whole = [
        [{ NOT: { score: { gte: 2 } } }, 'adefh'],
        [{ color: { eq: 'RED' } }, 'ae'],
        [{ OR: [{ color: { eq: 'RED' } }, { active: { isNull: true } }] }, 'adef'],
        [null, 'abcdefgh'],
      ] as const;
      for (const [w, keys] of [...whole, ...whole]) expect(await keysOfVariable(w), JSON.stringify(w)).toBe(keys);
      const doc = 'query($s: Int) { viewer { allItems(where: { NOT: { score: { eq: $s } } }, orderBy: { field: key }) { edges { node { key } } } } }';
      const run = async (s: unknown) => (await app.data(doc, { s })).viewer.allItems.edges.map((e: Json) => e.node.key).join('');
      expect(await run(2)).toBe('acdefh');
      expect(await run(3)).toBe('abdefgh');
    });

    it('a relation filter as a variable, and an id variable refused once and accepted next', async () => {
      const doc = 'query($a: UserWhereArgs) { viewer { allPosts(where: { author: $a }) { edges { node { title } } } } }';
      const run = async (a: unknown) => (await app.data(doc, { a })).viewer.allPosts.edges.map((e: Json) => e.node.title).sort();
      expect(await run({ username: { eq: 'bob' } })).toEqual(['Cooking']);
      expect(await run({ username: { eq: 'ann' } })).toEqual(['GraphQL intro', 'SQL deep dive']);
      const idDoc = 'query($id: ID) { viewer { allItems(where: { id: { eq: $id } }) { edges { node { key } } } } }';
      const a = items.find((i) => i.key === 'a').id as string;
      const label = (await app.data('{ viewer { allLabels(first: 1) { edges { node { id } } } } }')).viewer.allLabels.edges[0].node.id;
      for (let round = 0; round < 2; round += 1) {
        expect(code((await app.gql(idDoc, { id: label })).body)).toBe('BAD_USER_INPUT');
        expect((await app.data(idDoc, { id: a })).viewer.allItems.edges).toEqual([{ node: { key: 'a' } }]);
        expect(code((await app.gql(idDoc, { id: 'garbage' })).body)).toBe('BAD_USER_INPUT');
      }
    });
  });
});
