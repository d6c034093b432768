// Property-based tests over HTTP on both stores. Pagination: for random rows (nulls, many ties),
// a random orderBy and random page sizes, walking a connection forwards and backwards while
// rows are inserted concurrently yields every pre-existing row exactly once, in the order of
// the keys, the same order both ways. Filtering: random where trees give exactly the rows an
// in-memory reference of the documented semantics gives.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { expectedOrders, fetchPage, graphqlLiteral, idSet, orderProblem, pageVariables, rowMatches, seed, walk } from './reference.js';
import type { FieldKind, OrderKey, PageQuery } from './reference.js';

const SCHEMA = `
enum Color { RED GREEN BLUE }
type Row @model { run: Int! n: Int word: String flag: Boolean at: DateTime color: Color x: Float }
type Thing @model { n: Int word: String tag: String flag: Boolean at: DateTime color: Color }
`;

const COLORS = ['RED', 'GREEN', 'BLUE'] as const;
const DATES = ['2016-12-31T23:59:59.999Z', '2017-01-01T00:00:00.000Z', '2017-03-01T00:00:00.000Z', '2017-03-05T10:00:00.000Z', '2018-01-01T00:00:00.000Z'];
const WORDS = ['', 'a', 'b', 'aa', 'ab', 'ba', 'abc', 'bca', 'cab'];
const TAGS = ['A', 'a', 'Ab', 'aB', 'a_b', 'a%b', '%', '_', 'xY', 'AbC', ''];

const nullable = <T,>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 3 });

// ---------------------------------------------------------------------------------------------
// Pagination

const ROW_FIELDS = 'id n word flag at color x createdAt';

/** Values from small domains, so that ties are common and every kind has nulls. */
const rowValues = fc.record({
  n: nullable(fc.integer({ min: -2, max: 2 })),
  word: nullable(fc.constantFrom('', 'a', 'b', 'ab')),
  flag: nullable(fc.boolean()),
  at: nullable(fc.constantFrom(...DATES.slice(0, 3))),
  color: nullable(fc.constantFrom(...COLORS)),
  x: nullable(fc.constantFrom(-1.5, 0, 2.25)),
});

const orderKeys: fc.Arbitrary<OrderKey[]> = fc
  .uniqueArray(fc.constantFrom('n', 'word', 'flag', 'at', 'color', 'x', 'createdAt', 'id'), { minLength: 1, maxLength: 3 })
  .chain((fields) => fc.tuple(...fields.map((field) => fc.constantFrom('ASC', 'DESC').map((direction): OrderKey => ({ field, direction })))));

const rowsQuery: PageQuery = (args) => `query${pageVariables(args, '$run: Int!, $order: [RowOrderByArgs!]')} { viewer {
  allRows(${args}, where: { run: { eq: $run } }, orderBy: $order) { edges { cursor node { ${ROW_FIELDS} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
const ROWS_PATH = ['viewer', 'allRows'];

// ---------------------------------------------------------------------------------------------
// Filtering

const KINDS: Record<string, FieldKind> = { n: 'number', word: 'text', tag: 'text', flag: 'boolean', at: 'datetime', color: 'enum' };
const ENUM_FIELDS = new Set(['color']);

const thingValues = fc.record({
  n: nullable(fc.integer({ min: -3, max: 3 })),
  word: nullable(fc.constantFrom(...WORDS)),
  tag: nullable(fc.constantFrom(...TAGS)),
  flag: nullable(fc.boolean()),
  at: nullable(fc.constantFrom(...DATES)),
  color: nullable(fc.constantFrom(...COLORS)),
});

type Where = Record<string, unknown>;
type Op = [string, unknown];

/** like patterns: wildcards, and escaped `%` and `_` that match themselves. */
const pattern = fc.array(fc.constantFrom('a', 'b', 'A', 'B', '%', '_', '\\%', '\\_'), { maxLength: 4 }).map((cs) => cs.join(''));
const dateOperand = fc.constantFrom('2017', '2017-03', '2017-03-05', '2017-03-05T10:00', '2016-12-31T23:59:59.999', '2018', ...DATES);
const isNull: fc.Arbitrary<Op> = fc.boolean().map((b) => ['isNull', b]);

/** Operators on a value of one kind with operands from `value` (ordered kinds get comparisons). */
function ordered<T>(value: fc.Arbitrary<T>): fc.Arbitrary<Op> {
  return fc.oneof(
    fc.tuple(fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte'), value),
    fc.tuple(fc.constantFrom('in', 'notIn'), fc.array(value, { maxLength: 3 })),
    fc.tuple(fc.constantFrom('between', 'notBetween'), fc.tuple(value, value)),
    isNull,
  );
}

/** String operators; `tag` mixes case and holds `_`/`%`, so it is compared for equality and patterns only. */
function text(value: fc.Arbitrary<string>, comparisons: boolean): fc.Arbitrary<Op> {
  const like: fc.Arbitrary<Op> = fc.tuple(fc.constantFrom('like', 'notLike'), pattern);
  if (comparisons) return fc.oneof(ordered(value), like);
  return fc.oneof(
    fc.tuple(fc.constantFrom('eq', 'ne'), value),
    fc.tuple(fc.constantFrom('in', 'notIn'), fc.array(value, { maxLength: 3 })),
    like,
    isNull,
  );
}

const FIELD_OPS: Record<string, fc.Arbitrary<Op>> = {
  n: ordered(fc.integer({ min: -4, max: 4 })),
  // Lower-case words only: their order is the same in every collation.
  word: text(fc.constantFrom(...WORDS), true),
  tag: text(fc.constantFrom(...TAGS, 'ab', 'AB'), false),
  flag: fc.oneof(fc.tuple(fc.constantFrom('eq', 'ne'), fc.boolean()), isNull),
  at: ordered(dateOperand),
  color: fc.oneof(
    fc.tuple(fc.constantFrom('eq', 'ne'), fc.constantFrom(...COLORS)),
    fc.tuple(fc.constantFrom('in', 'notIn'), fc.array(fc.constantFrom(...COLORS), { maxLength: 2 })),
    isNull,
  ),
};

/** One field's filter: one or two operators (all must hold). */
const fieldFilter: fc.Arbitrary<[string, Where]> = fc
  .constantFrom(...Object.keys(FIELD_OPS))
  .chain((field) => fc.array(FIELD_OPS[field] as fc.Arbitrary<Op>, { minLength: 1, maxLength: 2 }).map((ops): [string, Where] => [field, Object.fromEntries(ops)]));

const whereTree: fc.Arbitrary<Where> = fc.letrec<{ node: Where }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.array(fieldFilter, { minLength: 1, maxLength: 2 }).map((fields) => Object.fromEntries(fields)),
    fc.array(tie('node'), { maxLength: 3 }).map((items) => ({ AND: items })),
    fc.array(tie('node'), { maxLength: 3 }).map((items) => ({ OR: items })),
    tie('node').map((item) => ({ NOT: item })),
    fc.tuple(fieldFilter, tie('node')).map(([[field, filter], item]) => ({ [field]: filter, NOT: item })),
  ),
})).node;

let runs = 0;

describe.each(STORE_KINDS)('properties (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  it('walking forwards and backwards while rows are inserted yields every existing row once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowValues, { maxLength: 30 }),
        fc.array(rowValues, { maxLength: 6 }),
        orderKeys,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 8 }),
        async (initial, inserted, keys, forwardSize, backwardSize) => {
          runs += 1;
          const run = runs;
          const existing = await seed(app, 'Row', initial.map((r) => ({ ...r, run })), ROW_FIELDS);
          const variables = { run, order: keys };
          const insertAll = async () => {
            for (const row of inserted) {
              await seed(app, 'Row', [{ ...row, run }]);
              await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
            }
          };
          const [forward, backward] = await Promise.all([
            walk(app, rowsQuery, ROWS_PATH, 'forward', forwardSize, undefined, variables),
            walk(app, rowsQuery, ROWS_PATH, 'backward', backwardSize, undefined, variables),
            insertAll(),
          ]);
          const ids = new Set(existing.map((r) => r.id as string));
          for (const [name, w] of [['forward', forward], ['backward', backward]] as const) {
            const seen = w.nodes.map((r) => r.id as string);
            expect(new Set(seen).size, `${name}: no row twice`).toBe(seen.length);
            expect(seen.filter((id) => ids.has(id)).sort(), `${name}: every existing row`).toEqual([...ids].sort());
            expect(orderProblem(w.nodes, keys), `${name}: in order`).toBeUndefined();
          }
          const mine = (nodes: Json[]) => nodes.filter((r) => ids.has(r.id)).map((r) => r.id as string);
          expect(mine(backward.nodes)).toEqual(mine(forward.nodes));
          // The rows that were there all along, in the walk's order, are in the reference order.
          expect(expectedOrders(existing, keys).map(mine)).toContainEqual(mine(forward.nodes));
          // And once the writes are done, one page holds everything in the order the walks used.
          const all = await fetchPage(app, rowsQuery, ROWS_PATH, 'first: 1000', variables);
          expect(all.nodes).toHaveLength(initial.length + inserted.length);
          expect(expectedOrders(all.nodes, keys)).toContainEqual(all.nodes);
          expect(mine(all.nodes)).toEqual(mine(forward.nodes));
        },
      ),
      { numRuns: 30 },
    );
  });

  describe('filtering', () => {
    let things: Json[];
    beforeAll(async () => {
      const values = fc.sample(thingValues, { numRuns: 60, seed: 20170305 });
      // Plus a row of nulls and a row of each boundary the operands name.
      values.push({ n: null, word: null, tag: null, flag: null, at: null, color: null });
      values.push({ n: 0, word: '', tag: '', flag: false, at: '2017-01-01T00:00:00.000Z', color: 'RED' });
      things = await seed(app, 'Thing', values, 'id n word tag flag at color');
    });

    it('random where trees match exactly the rows the reference semantics match', async () => {
      await fc.assert(
        fc.asyncProperty(whereTree, fc.boolean(), async (where, asLiteral) => {
          const expected = idSet(things.filter((t) => rowMatches(KINDS, t, where)));
          const reply = asLiteral
            ? await app.gql(`{ viewer { allThings(first: 1000, where: ${graphqlLiteral(where, ENUM_FIELDS)}) { edges { node { id } } aggregations { count } } } }`)
            : await app.gql('query($w: ThingWhereArgs) { viewer { allThings(first: 1000, where: $w) { edges { node { id } } aggregations { count } } } }', { w: where });
          expect(reply.body.errors).toBeUndefined();
          const connection = reply.body.data.viewer.allThings;
          expect(idSet(connection.edges.map((e: Json) => e.node))).toEqual(expected);
          expect(connection.aggregations.count).toBe(expected.length);
        }),
        { numRuns: 250 },
      );
    });

    it('the same operand document with random variables matches the reference each time', async () => {
      const doc = `query($n: Int, $w: String, $p: String, $at: DateTime, $in: [Color!], $null: Boolean) { viewer { allThings(first: 1000, where: {
        OR: [{ n: { gte: $n }, word: { lt: $w } }, { NOT: { tag: { like: $p } }, at: { lt: $at } }, { color: { notIn: $in }, flag: { isNull: $null } }]
      }) { edges { node { id } } } } }`;
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            n: fc.integer({ min: -4, max: 4 }),
            w: fc.constantFrom(...WORDS),
            p: pattern,
            at: dateOperand,
            in: fc.array(fc.constantFrom(...COLORS), { maxLength: 2 }),
            null: fc.boolean(),
          }),
          async (v) => {
            const where = {
              OR: [
                { n: { gte: v.n }, word: { lt: v.w } },
                { NOT: { tag: { like: v.p } }, at: { lt: v.at } },
                { color: { notIn: v.in }, flag: { isNull: v.null } },
              ],
            };
            const expected = idSet(things.filter((t) => rowMatches(KINDS, t, where)));
            const data = await app.data(doc, v);
            expect(idSet(data.viewer.allThings.edges.map((e: Json) => e.node))).toEqual(expected);
          },
        ),
        { numRuns: 80 },
      );
    });
  });
});
