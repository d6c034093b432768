// Connections over HTTP on both stores: first/after and last/before walk the same rows in the
// same order, pageInfo in both directions, argument and cursor errors, the default and maximum
// page sizes, orderBy on every orderable kind (nulls, ties, several keys), aggregations over
// the filtered set, and nested connections paging per parent.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { expectedOrders, fetchPage, orderProblem, pageVariables, seed, uuidOf, walk } from './reference.js';
import type { OrderKey, PageQuery } from './reference.js';

const SCHEMA = `
enum Color { RED GREEN BLUE }
type Item @model {
  label: String!
  name: String
  score: Int
  weight: Float
  active: Boolean
  seenAt: DateTime
  color: Color
  notes: Text
  tags: [Tag] @relation(name: "ItemTags")
}
type Tag @model { name: String! items: [Item] @relation(name: "ItemTags") }
type ItemTags @join(relation: "ItemTags") { rank: Int }
type Person @model { name: String! friends: [Person] @relation(name: "Knows") }
type Knows @join(relation: "Knows") { since: Int }
type Other @model { title: String }
type Row @model { n: Int! }
type Doc @model { body: Text title: String }
type User @model { displayName: String posts: [Post] @relation(name: "PostAuthor") }
type Post @model { title: String! rating: Int author: User @relation(name: "PostAuthor") }
`;

const COLORS = ['RED', 'GREEN', 'BLUE'];

/** 24 items with nulls in every nullable field and ties in every field. */
function itemInputs(): Record<string, unknown>[] {
  return Array.from({ length: 24 }, (_, i) => ({
    label: `l${(i * 5) % 8}`,
    name: i % 4 === 3 ? null : ['ann', 'bob', 'cid'][i % 3],
    score: i % 5 === 1 ? null : ((i * 7) % 4) - 1,
    weight: i % 4 === 2 ? null : ((i * 13) % 7) / 2 - 1.25,
    active: i % 3 === 0 ? null : i % 2 === 0,
    seenAt: i % 6 === 5 ? null : `2017-0${1 + (i % 3)}-05T10:00:00.000Z`,
    color: i % 5 === 4 ? null : COLORS[i % 3],
    notes: i % 7 === 3 ? null : `note ${i % 5}`,
  }));
}

const ITEM_FIELDS = 'id label name score weight active seenAt color notes createdAt modifiedAt';
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

function orderLiteral(keys: readonly OrderKey[]): string {
  return `[${keys.map((k) => `{ field: ${k.field}, direction: ${k.direction} }`).join(', ')}]`;
}

/** A page query of allItems in the given order (and filter, a GraphQL literal). */
function items(keys: readonly OrderKey[], where = '{}'): PageQuery {
  return (args) => `query${pageVariables(args)} { viewer { allItems(${args}, orderBy: ${orderLiteral(keys)}, where: ${where}) {
    edges { cursor node { ${ITEM_FIELDS} } } ${PAGE_INFO} } } }`;
}
const ITEMS_PATH = ['viewer', 'allItems'];

/** Variable definitions for the variables among `types` that `text` uses. */
function declare(text: string, types: Record<string, string>): string {
  const defs = Object.entries(types).filter(([name]) => new RegExp(`\\$${name}\\b`).test(text)).map(([name, type]) => `$${name}: ${type}`);
  return defs.length ? `(${defs.join(', ')})` : '';
}

function code(body: Json): string | undefined {
  return body.errors?.[0]?.extensions?.code;
}

describe.each(STORE_KINDS)('connections (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let all: Json[];

  /** All items in the given order, in one page. */
  async function full(keys: readonly OrderKey[], where = '{}'): Promise<Json[]> {
    return (await fetchPage(app, items(keys, where), ITEMS_PATH, 'first: 1000')).nodes;
  }

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    all = await seed(app, 'Item', itemInputs(), ITEM_FIELDS);
    await seed(app, 'Other', [{ title: 'a' }, { title: 'b' }]);
  });
  afterAll(async () => server?.close());

  describe('first/after and last/before', () => {
    const score: OrderKey[] = [{ field: 'score', direction: 'ASC' }];
    let rows: Json[];
    let cursors: string[];
    beforeAll(async () => {
      const page = await fetchPage(app, items(score), ITEMS_PATH, 'first: 1000');
      rows = page.nodes;
      cursors = page.cursors;
      expect(expectedOrders(all, score)).toContainEqual(rows);
    });

    it.each([1, 2, 3, 5, 7, 23, 24, 25, 100])('walk the same rows in the same order with pages of %i', async (size) => {
      const forward = await walk(app, items(score), ITEMS_PATH, 'forward', size);
      const backward = await walk(app, items(score), ITEMS_PATH, 'backward', size);
      expect(forward.nodes).toEqual(rows);
      expect(backward.nodes).toEqual(rows);
      expect(forward.pages).toHaveLength(Math.max(1, Math.ceil(rows.length / size)));
      expect(backward.pages).toHaveLength(Math.max(1, Math.ceil(rows.length / size)));
      // Cursors name positions in the order, whichever way the page was read.
      expect(forward.pages.flatMap((p) => p.cursors)).toEqual(cursors);
      expect([...backward.pages].reverse().flatMap((p) => p.cursors)).toEqual(cursors);
    });

    it('pageInfo on the first, middle and last pages going forward', async () => {
      const n = rows.length;
      const page = (args: string, variables: Record<string, unknown> = {}) => fetchPage(app, items(score), ITEMS_PATH, args, variables);
      const first = await page('first: 3');
      expect(first.nodes).toEqual(rows.slice(0, 3));
      expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: cursors[0], endCursor: cursors[2] });
      const middle = await page('first: 3, after: $cursor', { cursor: first.pageInfo.endCursor });
      expect(middle.nodes).toEqual(rows.slice(3, 6));
      expect(middle.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true, startCursor: cursors[3], endCursor: cursors[5] });
      const last = await page('first: 3, after: $cursor', { cursor: cursors[n - 4] });
      expect(last.nodes).toEqual(rows.slice(n - 3));
      expect(last.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: cursors[n - 3], endCursor: cursors[n - 1] });
      const exact = await page(`first: ${n}`);
      expect(exact.nodes).toEqual(rows);
      expect(exact.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: cursors[0], endCursor: cursors[n - 1] });
      const oneShort = await page(`first: ${n - 1}`);
      expect(oneShort.pageInfo.hasNextPage).toBe(true);
      const beyond = await page('first: 3, after: $cursor', { cursor: cursors[n - 1] });
      expect(beyond.nodes).toEqual([]);
      expect(beyond.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
    });

    it('pageInfo on the last, middle and first pages going backward', async () => {
      const n = rows.length;
      const page = (args: string, variables: Record<string, unknown> = {}) => fetchPage(app, items(score), ITEMS_PATH, args, variables);
      const last = await page('last: 3');
      expect(last.nodes).toEqual(rows.slice(n - 3));
      expect(last.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: cursors[n - 3], endCursor: cursors[n - 1] });
      const middle = await page('last: 3, before: $cursor', { cursor: last.pageInfo.startCursor });
      expect(middle.nodes).toEqual(rows.slice(n - 6, n - 3));
      expect(middle.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true, startCursor: cursors[n - 6], endCursor: cursors[n - 4] });
      const first = await page('last: 3, before: $cursor', { cursor: cursors[3] });
      expect(first.nodes).toEqual(rows.slice(0, 3));
      expect(first.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: cursors[0], endCursor: cursors[2] });
      const exact = await page(`last: ${n}`);
      expect(exact.nodes).toEqual(rows);
      expect(exact.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: cursors[0], endCursor: cursors[n - 1] });
      const beyond = await page('last: 3, before: $cursor', { cursor: cursors[0] });
      expect(beyond.nodes).toEqual([]);
      expect(beyond.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null });
      // A cursor with no size pages backward by the default page size.
      const rest = await page('before: $cursor', { cursor: cursors[n - 1] });
      expect(rest.nodes).toEqual(rows.slice(0, n - 1));
      expect(rest.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: cursors[0], endCursor: cursors[n - 2] });
    });

    it('first: 0 and last: 0 return no edges but say whether rows lie beyond', async () => {
      const page = (args: string, variables: Record<string, unknown> = {}) => fetchPage(app, items(score), ITEMS_PATH, args, variables);
      const none = await page('first: 0');
      expect(none.nodes).toEqual([]);
      expect(none.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null });
      const noneAfter = await page('first: 0, after: $cursor', { cursor: cursors[4] });
      expect(noneAfter.nodes).toEqual([]);
      expect(noneAfter.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true, startCursor: null, endCursor: null });
      const noneBack = await page('last: 0');
      expect(noneBack.nodes).toEqual([]);
      expect(noneBack.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
      const zeroVariable = await page('first: $size', { size: 0 });
      expect(zeroVariable.nodes).toEqual([]);
    });

    it('an empty result has empty edges and a pageInfo with nothing either way', async () => {
      const where = '{ score: { gt: 1000 } }';
      for (const args of ['first: 3', 'last: 3', '', 'first: 0']) {
        const page = await fetchPage(app, items(score, where), ITEMS_PATH, args || 'first: null');
        expect(page.nodes).toEqual([]);
        expect(page.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
      }
      // A cursor into a filter that now matches nothing is still a position.
      const page = await fetchPage(app, items(score, where), ITEMS_PATH, 'first: 3, after: $cursor', { cursor: cursors[2] });
      expect(page.nodes).toEqual([]);
      expect(page.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
    });

    it('a filtered connection pages through the filtered rows only', async () => {
      const where = '{ color: { in: [RED, BLUE] } }';
      const expected = rows.filter((r) => r.color === 'RED' || r.color === 'BLUE');
      expect((await walk(app, items(score, where), ITEMS_PATH, 'forward', 4)).nodes).toEqual(expected);
      expect((await walk(app, items(score, where), ITEMS_PATH, 'backward', 4)).nodes).toEqual(expected);
    });
  });

  describe('argument errors', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = (await fetchPage(app, items([]), ITEMS_PATH, 'first: 2')).pageInfo.endCursor as string;
    });

    it.each([
      ['first and last', 'first: 2, last: 2', {}],
      ['first and before', 'first: 2, before: $c', {}],
      ['last and after', 'last: 2, after: $c', {}],
      ['after and before', 'after: $c, before: $c', {}],
      ['all four', 'first: 1, after: $c, last: 1, before: $c', {}],
      ['first and last as variables', 'first: $f, last: $l', { f: 1, l: 1 }],
    ])('mixing directions (%s) is BAD_USER_INPUT', async (_, args, variables) => {
      const reply = await app.gql(`query${declare(args, { c: 'String', f: 'Int', l: 'Int' })} { viewer { allItems(${args}) { edges { cursor } } } }`, { c: cursor, ...variables });
      expect(code(reply.body)).toBe('BAD_USER_INPUT');
      expect(reply.body.data).toEqual({ viewer: null });
    });

    it('a null partner is not a second direction', async () => {
      const reply = await app.gql('query($c: String) { viewer { allItems(first: 2, last: null, before: $c) { edges { cursor } } } }', {});
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.viewer.allItems.edges).toHaveLength(2);
    });

    it.each([
      ['first: -1', {}, 'BAD_USER_INPUT'],
      ['last: -1', {}, 'BAD_USER_INPUT'],
      ['first: $n', { n: -1 }, 'BAD_USER_INPUT'],
      ['last: $n', { n: -5 }, 'BAD_USER_INPUT'],
      ['first: 1001', {}, 'LIMIT_EXCEEDED'],
      ['last: 1001', {}, 'LIMIT_EXCEEDED'],
      ['first: $n', { n: 5000 }, 'LIMIT_EXCEEDED'],
      ['last: $n', { n: 2147483647 }, 'LIMIT_EXCEEDED'],
    ])('%s (%j) is %s', async (args, variables, expected) => {
      const reply = await app.gql(`query${declare(args, { n: 'Int' })} { viewer { allItems(${args}) { edges { cursor } } } }`, variables);
      expect(code(reply.body)).toBe(expected);
    });

    it('the same document takes a good page size after a bad one and the other way round', async () => {
      const doc = 'query($n: Int) { viewer { allItems(first: $n) { edges { cursor } } } }';
      expect(code((await app.gql(doc, { n: -1 })).body)).toBe('BAD_USER_INPUT');
      expect((await app.data(doc, { n: 2 })).viewer.allItems.edges).toHaveLength(2);
      expect(code((await app.gql(doc, { n: 1001 })).body)).toBe('LIMIT_EXCEEDED');
      expect((await app.data(doc, { n: 1000 })).viewer.allItems.edges).toHaveLength(all.length);
    });
  });

  describe('cursors', () => {
    const byScore: OrderKey[] = [{ field: 'score', direction: 'ASC' }];
    let cursors: string[];
    beforeAll(async () => {
      cursors = (await fetchPage(app, items(byScore), ITEMS_PATH, 'first: 1000')).cursors;
    });

    async function after(cursor: unknown, keys: readonly OrderKey[] = byScore, direction: 'after' | 'before' = 'after'): Promise<Json> {
      const size = direction === 'after' ? 'first' : 'last';
      return (await app.gql(`query($c: String) { viewer { allItems(${size}: 2, ${direction}: $c, orderBy: ${orderLiteral(keys)}) { edges { cursor } } } }`, { c: cursor })).body;
    }

    /** The JSON inside a cursor, for tampering with (cursors are opaque to clients; tests peek). */
    function inside(cursor: string): unknown[] {
      return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    }
    function wrap(value: unknown): string {
      return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    }

    it('a garbage, empty or truncated cursor is BAD_USER_INPUT, after and before alike', async () => {
      const good = cursors[3] as string;
      for (const bad of ['abc', '', 'not a cursor!', good.slice(0, -4), good.slice(4), `${good}AAAA`, wrap('x'), wrap([]), wrap([1, 2])]) {
        expect(code(await after(bad)), `after ${JSON.stringify(bad)}`).toBe('BAD_USER_INPUT');
        expect(code(await after(bad, byScore, 'before')), `before ${JSON.stringify(bad)}`).toBe('BAD_USER_INPUT');
      }
    });

    it('a tampered cursor is BAD_USER_INPUT', async () => {
      const good = cursors[3] as string;
      const [signature, value, id] = inside(good);
      const tampered = [
        [signature, value, 'not-a-uuid'],
        [signature, 'three', id],
        [signature, 1.5, id],
        [signature, value],
        [signature, value, id, 'extra'],
        [`${String(signature)}x`, value, id],
        [signature, value, null],
        [signature, { v: value }, id],
      ];
      for (const t of tampered) expect(code(await after(wrap(t))), JSON.stringify(t)).toBe('BAD_USER_INPUT');
      const flipped = good.slice(0, 10) + (good[10] === 'A' ? 'B' : 'A') + good.slice(11);
      expect(code(await after(flipped))).toBe('BAD_USER_INPUT');
      // The untouched cursor still works, and so does a well-formed position that names no row.
      expect((await after(good)).errors).toBeUndefined();
      const elsewhere = await after(wrap([signature, value, '00000000-0000-4000-8000-000000000000']));
      expect(elsewhere.errors).toBeUndefined();
    });

    it('a forged position outside what the key can hold is BAD_USER_INPUT', async () => {
      const bySeen: OrderKey[] = [{ field: 'seenAt', direction: 'ASC' }];
      const good = (await fetchPage(app, items(bySeen), ITEMS_PATH, 'first: 1')).cursors[0] as string;
      const [signature, , id] = inside(good);
      for (const at of ['0000-01-01T00:00:00.000Z', '0000-06-01T00:00:00+00:00', '10000-01-01T00:00:00Z', '2017-02-30T00:00:00Z', 'soon', 5]) {
        expect(code(await after(wrap([signature, at, id]), bySeen)), JSON.stringify(at)).toBe('BAD_USER_INPUT');
      }
      expect((await after(wrap([signature, '0001-01-01T00:00:00+00:00', id]), bySeen)).errors).toBeUndefined();
      const [scoreSignature] = inside(cursors[0] as string);
      for (const n of [2147483648, -2147483649, 1.5, '1', true]) {
        expect(code(await after(wrap([scoreSignature, n, id]))), JSON.stringify(n)).toBe('BAD_USER_INPUT');
      }
    });

    it('a cursor of another type\'s connection is BAD_USER_INPUT', async () => {
      const other = (await app.data('{ viewer { allOthers(first: 1) { edges { cursor } } } }')).viewer.allOthers.edges[0].cursor;
      expect(code(await after(other, []))).toBe('BAD_USER_INPUT');
      expect(code(await after(other, [], 'before'))).toBe('BAD_USER_INPUT');
    });

    it('a cursor from a different orderBy is BAD_USER_INPUT', async () => {
      const good = cursors[3];
      for (const keys of [
        [],
        [{ field: 'score', direction: 'DESC' }],
        [{ field: 'label', direction: 'ASC' }],
        [{ field: 'score', direction: 'ASC' }, { field: 'label', direction: 'ASC' }],
        [{ field: 'id', direction: 'ASC' }],
      ] as OrderKey[][]) {
        expect(code(await after(good, keys)), orderLiteral(keys)).toBe('BAD_USER_INPUT');
      }
      expect((await after(good, [{ field: 'score', direction: 'ASC' }, { field: 'id', direction: 'ASC' }])).errors).toBeUndefined();
    });

    it('a cursor variable refused once is accepted when good, and the other way round', async () => {
      const other = (await app.data('{ viewer { allOthers(first: 1) { edges { cursor } } } }')).viewer.allOthers.edges[0].cursor;
      const doc = 'query($c: String) { viewer { allItems(first: 2, after: $c, orderBy: { field: score }) { edges { cursor } } } }';
      const signature = inside(cursors[3] as string)[0];
      // Same shape as a good cursor (two non-null positions) but refused: a wrong signature.
      const wrongSignature = wrap([`${String(signature)}-`, 1, uuidOf(all[0].id)]);
      for (const bad of [wrongSignature, other, 'abc']) {
        expect(code((await app.gql(doc, { c: bad })).body), bad).toBe('BAD_USER_INPUT');
        const good = await app.gql(doc, { c: cursors[3] });
        expect(good.body.errors, bad).toBeUndefined();
        expect(good.body.data.viewer.allItems.edges.map((e: Json) => e.cursor)).toEqual(cursors.slice(4, 6));
        expect(code((await app.gql(doc, { c: bad })).body), bad).toBe('BAD_USER_INPUT');
      }
    });

    it('a cursor of a row with a null key pages on (nullable positions)', async () => {
      const rows = (await fetchPage(app, items(byScore), ITEMS_PATH, 'first: 1000')).nodes;
      const firstNull = rows.findIndex((r) => r.score === null);
      expect(firstNull).toBeGreaterThan(0);
      const next = await fetchPage(app, items(byScore), ITEMS_PATH, 'first: 2, after: $cursor', { cursor: cursors[firstNull] });
      expect(next.nodes).toEqual(rows.slice(firstNull + 1, firstNull + 3));
      const previous = await fetchPage(app, items(byScore), ITEMS_PATH, 'last: 2, before: $cursor', { cursor: cursors[firstNull] });
      expect(previous.nodes).toEqual(rows.slice(firstNull - 2, firstNull));
      const previousOfNull = await fetchPage(app, items(byScore), ITEMS_PATH, 'last: 1, before: $cursor', { cursor: cursors[firstNull + 1] });
      expect(previousOfNull.nodes).toEqual([rows[firstNull]]);
    });
  });

  describe('orderBy', () => {
    const FIELDS = ['label', 'name', 'score', 'weight', 'active', 'seenAt', 'color', 'notes', 'createdAt', 'modifiedAt'];
    const cases = FIELDS.flatMap((field) => (['ASC', 'DESC'] as const).map((direction) => [field, direction] as const));

    it.each(cases)('%s %s: nulls largest, ties by id, the same order on every page in both directions', async (field, direction) => {
      const keys: OrderKey[] = [{ field, direction }];
      const rows = await full(keys);
      expect(expectedOrders(all, keys)).toContainEqual(rows);
      expect((await walk(app, items(keys), ITEMS_PATH, 'forward', 5)).nodes).toEqual(rows);
      expect((await walk(app, items(keys), ITEMS_PATH, 'backward', 5)).nodes).toEqual(rows);
    });

    it('nulls come last in ASC and first in DESC', async () => {
      for (const field of ['name', 'score', 'weight', 'active', 'seenAt', 'color', 'notes']) {
        const nulls = all.filter((r) => r[field] === null).length;
        expect(nulls, field).toBeGreaterThan(0);
        const asc = await full([{ field, direction: 'ASC' }]);
        expect(asc.slice(-nulls).every((r) => r[field] === null), field).toBe(true);
        expect(asc.slice(0, -nulls).every((r) => r[field] !== null), field).toBe(true);
        const desc = await full([{ field, direction: 'DESC' }]);
        expect(desc.slice(0, nulls).every((r) => r[field] === null), field).toBe(true);
      }
    });

    it('enums sort by their names as text, booleans false before true', async () => {
      const colors = (await full([{ field: 'color', direction: 'ASC' }])).map((r) => r.color);
      expect([...new Set(colors)]).toEqual(['BLUE', 'GREEN', 'RED', null]);
      const actives = (await full([{ field: 'active', direction: 'ASC' }])).map((r) => r.active);
      expect([...new Set(actives)]).toEqual([false, true, null]);
    });

    it.each([
      [[{ field: 'color', direction: 'ASC' }, { field: 'score', direction: 'DESC' }, { field: 'weight', direction: 'ASC' }]],
      [[{ field: 'active', direction: 'DESC' }, { field: 'name', direction: 'ASC' }]],
      [[{ field: 'seenAt', direction: 'DESC' }, { field: 'label', direction: 'ASC' }]],
      [[{ field: 'name', direction: 'ASC' }, { field: 'notes', direction: 'DESC' }, { field: 'active', direction: 'ASC' }]],
      [[{ field: 'label', direction: 'DESC' }, { field: 'createdAt', direction: 'ASC' }]],
    ] as OrderKey[][][])('several keys %j', async (keys) => {
      const rows = await full(keys);
      expect(expectedOrders(all, keys)).toContainEqual(rows);
      expect(orderProblem(rows, keys)).toBeUndefined();
      for (const size of [1, 4]) {
        expect((await walk(app, items(keys), ITEMS_PATH, 'forward', size)).nodes).toEqual(rows);
        expect((await walk(app, items(keys), ITEMS_PATH, 'backward', size)).nodes).toEqual(rows);
      }
    });

    it('id orders by id alone, either way', async () => {
      const ids = all.map((r) => r.id as string).sort((a, b) => (uuidOf(a) < uuidOf(b) ? -1 : 1));
      expect((await full([{ field: 'id', direction: 'ASC' }])).map((r) => r.id)).toEqual(ids);
      expect((await full([{ field: 'id', direction: 'DESC' }])).map((r) => r.id)).toEqual([...ids].reverse());
      const keys: OrderKey[] = [{ field: 'id', direction: 'DESC' }];
      expect((await walk(app, items(keys), ITEMS_PATH, 'backward', 7)).nodes.map((r) => r.id)).toEqual([...ids].reverse());
    });

    it('takes a single orderBy object as well as a list, and direction defaults to ASC', async () => {
      const listed = await full([{ field: 'weight', direction: 'DESC' }]);
      const single = await app.data(`{ viewer { allItems(first: 1000, orderBy: { field: weight, direction: DESC }) { edges { node { ${ITEM_FIELDS} } } } } }`);
      expect(single.viewer.allItems.edges.map((e: Json) => e.node)).toEqual(listed);
      const asVariable = await app.data(`query($o: [ItemOrderByArgs!]) { viewer { allItems(first: 1000, orderBy: $o) { edges { node { ${ITEM_FIELDS} } } } } }`, {
        o: { field: 'weight', direction: 'DESC' },
      });
      expect(asVariable.viewer.allItems.edges.map((e: Json) => e.node)).toEqual(listed);
      const ascending = await full([{ field: 'weight', direction: 'ASC' }]);
      const defaulted = await app.data(`{ viewer { allItems(first: 1000, orderBy: { field: weight }) { edges { node { ${ITEM_FIELDS} } } } } }`);
      expect(defaulted.viewer.allItems.edges.map((e: Json) => e.node)).toEqual(ascending);
    });

    it('an orderBy variable changes the order of the same document', async () => {
      const doc = `query($o: [ItemOrderByArgs!]) { viewer { allItems(first: 1000, orderBy: $o) { edges { node { ${ITEM_FIELDS} } } } } }`;
      for (const keys of [[{ field: 'score', direction: 'ASC' }], [{ field: 'score', direction: 'DESC' }], [{ field: 'label', direction: 'ASC' }], [{ field: 'score', direction: 'ASC' }]] as OrderKey[][]) {
        const rows = (await app.data(doc, { o: keys })).viewer.allItems.edges.map((e: Json) => e.node);
        expect(expectedOrders(all, keys)).toContainEqual(rows);
      }
    });

    it('refuses an unknown order field with GRAPHQL_VALIDATION_FAILED', async () => {
      const reply = await app.gql('{ viewer { allItems(orderBy: { field: nope }) { edges { cursor } } } }');
      expect(code(reply.body)).toBe('GRAPHQL_VALIDATION_FAILED');
    });
  });

  describe('aggregations', () => {
    const where = '{ score: { gte: 0 } }';
    const AGG = `aggregations { count min { score weight label seenAt createdAt } max { score weight label seenAt createdAt } sum { score weight } avg { score weight } }`;

    function expected(): Json {
      const rows = all.filter((r) => r.score !== null && r.score >= 0);
      const col = (f: string) => rows.map((r) => r[f]).filter((v) => v !== null);
      const min = (f: string) => col(f).reduce((a, b) => (b < a ? b : a));
      const max = (f: string) => col(f).reduce((a, b) => (b > a ? b : a));
      const sum = (f: string) => col(f).reduce((a: number, b: number) => a + b, 0);
      const fields = ['score', 'weight', 'label', 'seenAt', 'createdAt'];
      return {
        count: rows.length,
        min: Object.fromEntries(fields.map((f) => [f, min(f)])),
        max: Object.fromEntries(fields.map((f) => [f, max(f)])),
        sum: { score: sum('score'), weight: sum('weight') },
        avg: { score: sum('score') / col('score').length, weight: sum('weight') / col('weight').length },
      };
    }

    function close(actual: Json, wanted: Json): void {
      expect({ ...actual, sum: undefined, avg: undefined }).toEqual({ ...wanted, sum: undefined, avg: undefined });
      for (const part of ['sum', 'avg']) for (const f of ['score', 'weight']) expect(actual[part][f]).toBeCloseTo(wanted[part][f], 9);
    }

    it('cover the filtered set, not the page, with or without edges, in either direction', async () => {
      const wanted = expected();
      expect(wanted.count).toBeGreaterThan(5);
      const cursor = (await app.data(`{ viewer { allItems(first: 2, where: ${where}) { pageInfo { endCursor } } } }`)).viewer.allItems.pageInfo.endCursor;
      for (const args of ['', 'first: 2', 'first: 0', 'last: 3', 'first: 2, after: $c', 'last: 1, before: $c']) {
        const vars = args.includes('$c') ? '($c: String)' : '';
        const withEdges = await app.data(`query${vars} { viewer { allItems(where: ${where} ${args}) { edges { node { id } } ${AGG} } } }`, { c: cursor });
        close(withEdges.viewer.allItems.aggregations, wanted);
        const alone = await app.data(`query${vars} { viewer { allItems(where: ${where} ${args}) { ${AGG} } } }`, { c: cursor });
        close(alone.viewer.allItems.aggregations, wanted);
      }
    });

    it('an empty set counts 0 with null min, max, sum and avg', async () => {
      const data = await app.data(`{ viewer { allItems(first: 2, where: { score: { gt: 1000 } }) { edges { node { id } } ${AGG} } } }`);
      expect(data.viewer.allItems.aggregations).toEqual({
        count: 0,
        min: { score: null, weight: null, label: null, seenAt: null, createdAt: null },
        max: { score: null, weight: null, label: null, seenAt: null, createdAt: null },
        sum: { score: null, weight: null },
        avg: { score: null, weight: null },
      });
    });

    it('count follows the where of a variable', async () => {
      const doc = 'query($w: ItemWhereArgs) { viewer { allItems(first: 1, where: $w) { aggregations { count } } } }';
      expect((await app.data(doc, { w: { color: { eq: 'RED' } } })).viewer.allItems.aggregations.count).toBe(all.filter((r) => r.color === 'RED').length);
      expect((await app.data(doc, { w: { color: { isNull: true } } })).viewer.allItems.aggregations.count).toBe(all.filter((r) => r.color === null).length);
      expect((await app.data(doc, {})).viewer.allItems.aggregations.count).toBe(all.length);
    });
  });

  describe('many-to-many connections', () => {
    let tags: Json[];
    let people: Json[];
    /** Items linked to each tag, by index into `all`, with the edge's rank. */
    const LINKS: Record<string, [number, number | null][]> = {
      t1: [[0, 3], [2, null], [4, 1], [5, 3], [7, null], [9, 2], [11, 3], [13, 1], [20, 5], [23, null]],
      t2: [[2, 7], [3, 8], [4, null]],
      t3: [],
    };
    /** Who knows whom (one edge serves both ends), with `since`; p0 knows itself. */
    const KNOWS: [number, number, number | null][] = [[0, 1, 2001], [2, 0, null], [0, 3, 2003], [4, 5, 2005], [0, 0, 2000], [3, 2, 1999]];

    beforeAll(async () => {
      tags = await seed(app, 'Tag', Object.keys(LINKS).map((name) => ({ name })), 'id name');
      const edges = tags.flatMap((tag) => (LINKS[tag.name] ?? []).map(([i, rank]) => ({ itemId: all[i].id, tagId: tag.id, rank })));
      for (let start = 0; start < edges.length; start += 20) {
        const chunk = edges.slice(start, start + 20);
        const defs = chunk.map((_, i) => `$e${i}: AddToItemTagsConnectionInput!`).join(', ');
        const fields = chunk.map((_, i) => `e${i}: addToItemTagsConnection(input: $e${i}) { changedItemTags { rank } }`).join('\n');
        await app.data(`mutation(${defs}) { ${fields} }`, Object.fromEntries(chunk.map((e, i) => [`e${i}`, e])));
      }
      people = await seed(app, 'Person', Array.from({ length: 6 }, (_, i) => ({ name: `p${i}` })), 'id name');
      const knows = KNOWS.map(([a, b, since], i) => `k${i}: addToKnowsConnection(input: { person1Id: "${people[a].id}", person2Id: "${people[b].id}", since: ${since ?? 'null'} }) { changedKnows { since } }`);
      await app.data(`mutation { ${knows.join('\n')} }`);
    });

    it('each parent pages through its own edges both ways, join fields on the edges', async () => {
      const keys: OrderKey[] = [{ field: 'score', direction: 'DESC' }, { field: 'label', direction: 'ASC' }];
      for (const tag of tags) {
        const links = LINKS[tag.name] ?? [];
        const linked = links.map(([i]) => all[i]);
        const rankOf = new Map(links.map(([i, rank]) => [all[i].id as string, rank]));
        const query: PageQuery = (args) => `query${pageVariables(args, '$id: ID!')} { getTag(id: $id) { items(${args}, orderBy: ${orderLiteral(keys)}) {
          edges { cursor rank node { ${ITEM_FIELDS} } } ${PAGE_INFO} } } }`;
        const rows = (await fetchPage(app, query, ['getTag', 'items'], 'first: 100', { id: tag.id })).nodes;
        expect(expectedOrders(linked, keys), tag.name).toContainEqual(rows);
        for (const [direction, size] of [['forward', 3], ['backward', 4], ['forward', 1]] as const) {
          const walked = await walk(app, query, ['getTag', 'items'], direction, size, undefined, { id: tag.id });
          expect(walked.nodes, `${tag.name} ${direction} ${size}`).toEqual(rows);
        }
        const withRanks = await app.data(`query($id: ID!) { getTag(id: $id) { items(first: 100) { edges { rank node { id } } aggregations { count max { score } } } } }`, { id: tag.id });
        expect(withRanks.getTag.items.edges.map((e: Json) => [e.node.id, e.rank]).sort(), tag.name).toEqual([...rankOf.entries()].sort());
        expect(withRanks.getTag.items.aggregations.count, tag.name).toBe(links.length);
        const scores = linked.map((r) => r.score).filter((v) => v !== null);
        expect(withRanks.getTag.items.aggregations.max.score, tag.name).toBe(scores.length ? Math.max(...scores) : null);
      }
    });

    it('the far side of the relation pages the same edges', async () => {
      const item = all[2];
      const data = await app.data(`query($id: ID!) { getItem(id: $id) { tags(first: 1, orderBy: { field: name }) { edges { rank node { name } } pageInfo { hasNextPage endCursor } } } }`, { id: item.id });
      expect(data.getItem.tags.edges).toEqual([{ rank: null, node: { name: 't1' } }]);
      expect(data.getItem.tags.pageInfo.hasNextPage).toBe(true);
      const next = await app.data(`query($id: ID!, $c: String) { getItem(id: $id) { tags(first: 1, after: $c, orderBy: { field: name }) { edges { rank node { name } } pageInfo { hasNextPage hasPreviousPage } } } }`, { id: item.id, c: data.getItem.tags.pageInfo.endCursor });
      expect(next.getItem.tags).toEqual({ edges: [{ rank: 7, node: { name: 't2' } }], pageInfo: { hasNextPage: false, hasPreviousPage: true } });
    });

    it('a self relation pages through the edges of both ends, each once', async () => {
      const friendsOf = (i: number) =>
        KNOWS.filter(([a, b]) => a === i || b === i)
          .map(([a, b, since]) => [`p${a === i ? b : a}`, since] as const)
          .sort();
      for (const person of people) {
        const i = Number(String(person.name).slice(1));
        const query: PageQuery = (args) => `query${pageVariables(args, '$id: ID!')} { getPerson(id: $id) { friends(${args}, orderBy: { field: name, direction: DESC }) {
          edges { cursor since node { id name } } ${PAGE_INFO} } } }`;
        const expected = friendsOf(i).map(([name]) => name).sort().reverse();
        for (const [direction, size] of [['forward', 1], ['backward', 2]] as const) {
          const walked = await walk(app, query, ['getPerson', 'friends'], direction, size, undefined, { id: person.id });
          expect(walked.nodes.map((n) => n.name), `${person.name} ${direction}`).toEqual(expected);
        }
        const edges = await app.data(`query($id: ID!) { getPerson(id: $id) { friends { edges { since node { name } } aggregations { count } } } }`, { id: person.id });
        expect(edges.getPerson.friends.edges.map((e: Json) => [e.node.name, e.since]).sort(), person.name).toEqual(friendsOf(i));
        expect(edges.getPerson.friends.aggregations.count, person.name).toBe(friendsOf(i).length);
      }
    });
  });

  describe('long and multi-byte key values', () => {
    beforeAll(async () => {
      await seed(app, 'Doc', [
        { body: `${'x'.repeat(16_000)}b`, title: '😀'.repeat(4900) },
        { body: `${'x'.repeat(16_000)}a`, title: `${'😀'.repeat(4899)}é` },
        { body: 'é😀', title: 'ü' },
        { body: 'ü', title: null },
        { body: null, title: 'a' },
      ]);
    });

    it.each([
      ['body', 'ASC'],
      ['body', 'DESC'],
      ['title', 'ASC'],
      ['title', 'DESC'],
    ])('cursors of %s %s page one row at a time both ways', async (field, direction) => {
      const query: PageQuery = (args) => `query${pageVariables(args)} { viewer { allDocs(${args}, orderBy: { field: ${field}, direction: ${direction} }) {
        edges { cursor node { id body title } } ${PAGE_INFO} } } }`;
      const path = ['viewer', 'allDocs'];
      const rows = (await fetchPage(app, query, path, 'first: 10')).nodes;
      expect(rows).toHaveLength(5);
      expect((await walk(app, query, path, 'forward', 1)).nodes).toEqual(rows);
      expect((await walk(app, query, path, 'backward', 1)).nodes).toEqual(rows);
    });
  });

  describe('default and maximum page size', () => {
    let rows: Json[];
    beforeAll(async () => {
      rows = await seed(app, 'Row', Array.from({ length: 105 }, (_, n) => ({ n })), 'id n');
    });
    const query: PageQuery = (args) => `query${pageVariables(args)} { viewer { allRows(${args}, orderBy: { field: n }) { edges { cursor node { n } } ${PAGE_INFO} } } }`;

    it('without first or last a page holds 100 rows', async () => {
      const page = await fetchPage(app, query, ['viewer', 'allRows'], 'first: null');
      expect(page.nodes.map((r) => r.n)).toEqual(rows.slice(0, 100).map((r) => r.n));
      expect(page.pageInfo.hasNextPage).toBe(true);
      const rest = await fetchPage(app, query, ['viewer', 'allRows'], 'after: $cursor', { cursor: page.pageInfo.endCursor });
      expect(rest.nodes.map((r) => r.n)).toEqual([100, 101, 102, 103, 104]);
      expect(rest.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      const bare = await app.data('{ viewer { allRows { edges { node { n } } pageInfo { hasNextPage } } } }');
      expect(bare.viewer.allRows.edges).toHaveLength(100);
      expect(bare.viewer.allRows.pageInfo.hasNextPage).toBe(true);
    });

    it('first: 1000 is allowed, first: 1001 is LIMIT_EXCEEDED', async () => {
      const page = await fetchPage(app, query, ['viewer', 'allRows'], 'first: 1000');
      expect(page.nodes).toHaveLength(105);
      expect(page.pageInfo.hasNextPage).toBe(false);
      const reply = await app.gql('{ viewer { allRows(first: 1001) { edges { cursor } } } }');
      expect(code(reply.body)).toBe('LIMIT_EXCEEDED');
      expect(reply.body.data).toEqual({ viewer: null });
    });
  });

  describe('nested connections', () => {
    let users: Json[];
    /** Posts per username, in rating DESC order (ratings distinct per user). */
    const POSTS: Record<string, number[]> = { ann: [5, 3, 9, 1, 7], bob: [], cid: [2, 8, 4] };

    beforeAll(async () => {
      users = await seed(
        app,
        'User',
        Object.keys(POSTS).map((username) => ({ username, password: 'pw-123456' })),
        'id username',
      );
      const posts = users.flatMap((u) => (POSTS[u.username] ?? []).map((rating) => ({ title: `${u.username}-${rating}`, rating, authorId: u.id })));
      await seed(app, 'Post', posts);
    });

    function titles(user: string, filter: (r: number) => boolean = () => true): string[] {
      return (POSTS[user] ?? [])
        .filter(filter)
        .sort((a, b) => b - a)
        .map((r) => `${user}-${r}`);
    }

    it('every parent gets its own first page, pageInfo and count', async () => {
      const data = await app.data(`{ viewer { allUsers(orderBy: { field: username }) { edges { node { username
        posts(first: 2, orderBy: { field: rating, direction: DESC }) { edges { node { title } } pageInfo { hasNextPage hasPreviousPage } aggregations { count } }
        last: posts(last: 1, orderBy: { field: rating, direction: DESC }) { edges { node { title } } pageInfo { hasNextPage hasPreviousPage } }
        high: posts(where: { rating: { gte: 5 } }, orderBy: { field: rating, direction: DESC }) { edges { node { title } } aggregations { count max { rating } } }
      } } } } }`);
      const byName = Object.fromEntries(data.viewer.allUsers.edges.map((e: Json) => [e.node.username, e.node]));
      for (const user of Object.keys(POSTS)) {
        const all = titles(user);
        const node = byName[user];
        expect(node.posts.edges.map((e: Json) => e.node.title), user).toEqual(all.slice(0, 2));
        expect(node.posts.pageInfo, user).toEqual({ hasNextPage: all.length > 2, hasPreviousPage: false });
        expect(node.posts.aggregations.count, user).toBe(all.length);
        expect(node.last.edges.map((e: Json) => e.node.title), user).toEqual(all.slice(-1));
        expect(node.last.pageInfo, user).toEqual({ hasNextPage: false, hasPreviousPage: all.length > 1 });
        const high = titles(user, (r) => r >= 5);
        expect(node.high.edges.map((e: Json) => e.node.title), user).toEqual(high);
        expect(node.high.aggregations.count, user).toBe(high.length);
        expect(node.high.aggregations.max.rating, user).toBe(high.length ? Math.max(...(POSTS[user] ?? [])) : null);
      }
    });

    it('one parent\'s connection pages through its own rows only, in both directions', async () => {
      for (const user of users) {
        const query: PageQuery = (args) => `query${pageVariables(args, '$id: ID!')} { getUser(id: $id) { posts(${args}, orderBy: { field: rating, direction: DESC }) {
          edges { cursor node { title } } ${PAGE_INFO} } } }`;
        for (const direction of ['forward', 'backward'] as const) {
          const walked = await walk(app, query, ['getUser', 'posts'], direction, 2, undefined, { id: user.id });
          expect(walked.nodes.map((n) => n.title), `${user.username} ${direction}`).toEqual(titles(user.username));
        }
      }
    });

    it('a nested connection refuses mixed directions and a foreign cursor', async () => {
      const mixed = await app.gql('{ viewer { allUsers { edges { node { posts(first: 1, last: 1) { edges { cursor } } } } } } }');
      expect(code(mixed.body)).toBe('BAD_USER_INPUT');
      const itemCursor = (await fetchPage(app, items([]), ITEMS_PATH, 'first: 1')).cursors[0];
      const foreign = await app.gql('query($c: String) { viewer { allUsers { edges { node { posts(after: $c) { edges { cursor } } } } } } }', { c: itemCursor });
      expect(code(foreign.body)).toBe('BAD_USER_INPUT');
      const tooMany = await app.gql('{ viewer { allUsers(first: 1) { edges { node { posts(first: 1001) { edges { cursor } } } } } } }');
      expect(code(tooMany.body)).toBe('LIMIT_EXCEEDED');
    });
  });
});
