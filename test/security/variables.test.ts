// The variable coercer's fast path (src/compile/variables.ts), attacked. Its claim: it accepts
// only what graphql-js's getVariableValues accepts, answers exactly what graphql-js answers (the
// same values, the same own keys, in the same order), and hands anything else to graphql-js. The
// first part compares the two directly, on hand-picked edge values and on generated ones; the
// second sends what a unit-level difference turns into through the real server, over the three
// ways a client's variables reach it as plain JSON.parse output (GET query strings, multipart
// uploads; POST JSON bodies go through Fastify's parser, which refuses `__proto__` keys).

import fc from 'fast-check';
import { buildSchema, getVariableValues, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, parse, typeFromAST } from 'graphql';
import type { GraphQLInputType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coerceVariables, coercedQuickly } from '../../src/compile/variables.js';
import { buildAppSchema } from '../../src/graphql/buildAppSchema.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { startFileServer } from '../files/harness.js';
import type { FileServer } from '../files/harness.js';
import { APP_MODEL, SCALAR_VALUES, agrees, operation } from '../compile/variablesHarness.js';

// ---------------------------------------------------------------------------------------------
// Schemas: an app's generated one (its custom scalars DateTime, JSON and Text, enums, where and
// order inputs), and one of the input shapes an app schema does not make.

const APP = buildAppSchema(APP_MODEL);

const EXTRA = buildSchema(`
  enum Color { RED GREEN }
  input Pick @oneOf { id: ID name: String }
  input Opts { first: Int = 10 color: Color = RED flags: [[Boolean]] need: [Int!]! }
  input Tree { label: String children: [Tree!] }
  type Query { f(a: Int): String }
`);

/** Operations whose variables cover every kind of input type; the fields asked do not matter to coercion. */
const APP_OPS = {
  create: operation('mutation M($input: CreatePostInput!) { __typename }'),
  where: operation('query Q($w: PostWhereArgs, $o: [PostOrderByArgs], $first: Int, $after: String, $id: ID!) { __typename }'),
  scalars: operation('query Q($at: DateTime, $j: JSON, $t: Text, $mood: Mood, $moods: [Mood!], $r: Float, $b: Boolean!, $s: String) { __typename }'),
  filter: operation('subscription S($f: PostSubscriptionFilter) { __typename }'),
};
const EXTRA_OPS = {
  shapes: operation('query Q($o: Opts, $ids: [ID!]!, $n: Int = 5, $grid: [[Int!]]!, $c: Color, $t: Tree) { __typename }'),
  oneOf: operation('query Q($p: Pick, $ps: [Pick]) { __typename }'),
  tree: operation('query Q($t: Tree) { __typename }'),
};


/** An object with an own key `key` (as JSON.parse makes `"__proto__": …`, which assignment cannot). */
function withOwn(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

// ---------------------------------------------------------------------------------------------

describe('variables fast path against graphql-js, edge values', () => {
  // Each row: a label, the schema and operation, and the variables as a client's JSON makes them.
  const rows: [string, GraphQLSchema, OperationDefinitionNode, string][] = [
    ['Int at and past 32 bits', APP, APP_OPS.where, '{"id":"x","first":2147483647}'],
    ['Int past 32 bits', APP, APP_OPS.where, '{"id":"x","first":2147483648}'],
    ['Int below 32 bits', APP, APP_OPS.where, '{"id":"x","first":-2147483649}'],
    ['Int past 2^53', APP, APP_OPS.where, '{"id":"x","first":9007199254740993}'],
    ['Int as 1e400 (Infinity)', APP, APP_OPS.where, '{"id":"x","first":1e400}'],
    ['Int as -0', APP, APP_OPS.where, '{"id":"x","first":-0}'],
    ['Int as 1.0 and 1e3', APP, APP_OPS.create, '{"input":{"title":"t","score":1e3,"rating":1.0}}'],
    ['Int as a float', APP, APP_OPS.where, '{"id":"x","first":1.5}'],
    ['Int as a string', APP, APP_OPS.where, '{"id":"x","first":"1"}'],
    ['Float as a string', APP, APP_OPS.scalars, '{"b":true,"r":"1.5"}'],
    ['Float as 1e400', APP, APP_OPS.scalars, '{"b":true,"r":-1e400}'],
    ['Float as -0 and tiny', APP, APP_OPS.create, '{"input":{"title":"t","rating":-0,"score":-0}}'],
    ['Boolean as a string', APP, APP_OPS.scalars, '{"b":"true"}'],
    ['Boolean as 1', APP, APP_OPS.scalars, '{"b":1}'],
    ['ID as a number', APP, APP_OPS.where, '{"id":7}'],
    ['ID as a big or fractional number', APP, APP_OPS.where, '{"id":1.5}'],
    ['ID as a boolean', APP, APP_OPS.where, '{"id":true}'],
    ['String as a number', APP, APP_OPS.scalars, '{"b":true,"s":12}'],
    ['Text as a number', APP, APP_OPS.scalars, '{"b":true,"t":12}'],
    ['enum as a non-member string', APP, APP_OPS.scalars, '{"b":true,"mood":"happy"}'],
    ['enum as a member with a space', APP, APP_OPS.scalars, '{"b":true,"mood":"HAPPY "}'],
    ['enum member names of Object.prototype', APP, APP_OPS.scalars, '{"b":true,"mood":"toString"}'],
    ['enum list given one value', APP, APP_OPS.scalars, '{"b":true,"moods":"SAD"}'],
    ['non-null enum list with a null', APP, APP_OPS.scalars, '{"b":true,"moods":["SAD",null]}'],
    ['DateTime partial forms', APP, APP_OPS.scalars, '{"b":true,"at":"2017-03"}'],
    ['DateTime as a number', APP, APP_OPS.scalars, '{"b":true,"at":1488672000000}'],
    ['DateTime that is no date', APP, APP_OPS.scalars, '{"b":true,"at":"2017-13-45"}'],
    ['JSON with __proto__ and constructor keys', APP, APP_OPS.scalars, '{"b":true,"j":{"__proto__":{"admin":true},"constructor":{"prototype":1}}}'],
    ['JSON as a deep list', APP, APP_OPS.scalars, '{"b":true,"j":[[[[[[1]]]]]]}'],
    ['unknown input field', APP, APP_OPS.create, '{"input":{"title":"t","titel":"u"}}'],
    ['__proto__ key in an input object', APP, APP_OPS.create, '{"input":{"title":"t","__proto__":{"score":5}}}'],
    ['constructor key in an input object', APP, APP_OPS.create, '{"input":{"title":"t","constructor":"x"}}'],
    ['toString key in a nested input object', APP, APP_OPS.create, '{"input":{"title":"t","address":{"toString":"x"}}}'],
    ['required input field given null', APP, APP_OPS.create, '{"input":{"title":null}}'],
    ['required input field left out', APP, APP_OPS.create, '{"input":{"score":1}}'],
    ['input object given a list', APP, APP_OPS.create, '{"input":[{"title":"t"}]}'],
    ['string list given one string', APP, APP_OPS.create, '{"input":{"title":"t","tags":"a"}}'],
    ['string list given nested lists', APP, APP_OPS.create, '{"input":{"title":"t","tags":[["a"]]}}'],
    ['order list given one object', APP, APP_OPS.where, '{"id":"x","o":{"field":"title","direction":"DESC"}}'],
    ['where nested through AND and NOT', APP, APP_OPS.where, '{"id":"x","w":{"AND":[{"NOT":{"score":{"gt":1}}}],"OR":{"title":{"in":"a"}}}}'],
    ['subscription filter with a regular expression', APP, APP_OPS.filter, '{"f":{"title":{"matches":"^a"},"OR":[{"score":{"between":[1,2]}}]}}'],
    ['nested list given a flat one', EXTRA, EXTRA_OPS.shapes, '{"ids":["1"],"grid":[1,2]}'],
    ['nested list given a single value', EXTRA, EXTRA_OPS.shapes, '{"ids":"1","grid":3}'],
    ['nested non-null list with a null', EXTRA, EXTRA_OPS.shapes, '{"ids":["1"],"grid":[[1,null]]}'],
    ['outer nullable item of a nested list', EXTRA, EXTRA_OPS.shapes, '{"ids":["1"],"grid":[null,[1]]}'],
    ['non-null list given null', EXTRA, EXTRA_OPS.shapes, '{"ids":null,"grid":[]}'],
    ['defaults in the document and the input type', EXTRA, EXTRA_OPS.shapes, '{"ids":[1],"grid":[],"o":{"need":[]}}'],
    ['a defaulted variable given null', EXTRA, EXTRA_OPS.shapes, '{"ids":[1],"grid":[],"n":null}'],
    ['an input field default given null', EXTRA, EXTRA_OPS.shapes, '{"ids":[1],"grid":[],"o":{"need":[1],"first":null,"color":null}}'],
    ['a defaulted variable left out', EXTRA, EXTRA_OPS.shapes, '{"ids":[1],"grid":[]}'],
    ['OneOf with one key', EXTRA, EXTRA_OPS.oneOf, '{"p":{"id":"1"}}'],
    ['OneOf with two keys', EXTRA, EXTRA_OPS.oneOf, '{"p":{"id":"1","name":"n"}}'],
    ['OneOf with a null key', EXTRA, EXTRA_OPS.oneOf, '{"ps":[{"id":null}]}'],
    ['recursive input a few levels deep', EXTRA, EXTRA_OPS.shapes, '{"ids":[],"grid":[],"t":{"label":"a","children":[{"children":[{"label":"c"}]}]}}'],
  ];

  for (const [label, schema, op, text] of rows) {
    it(`answers what graphql-js answers: ${label}`, () => {
      agrees(schema, op, JSON.parse(text) as Record<string, unknown>);
    });
  }

  // `$__proto__` is a legal variable name. Collected into a plain `{}` by assignment, its value
  // would hit Object.prototype's __proto__ setter (a string dropped, an object made the result's
  // prototype); graphql-js's answer has an own key `__proto__` holding the value, and so must the
  // fast path's.
  it('answers what graphql-js answers for a variable named $__proto__', () => {
    const op = operation('query Q($__proto__: String, $n: Int) { __typename }');
    for (const text of ['{"__proto__":"alpha","n":1}', '{"__proto__":null}', '{"__proto__":"x"}']) {
      const inputs = JSON.parse(text) as Record<string, unknown>;
      expect(Object.hasOwn(getVariableValues(APP, op.variableDefinitions ?? [], inputs).coerced ?? {}, '__proto__')).toBe(true);
      agrees(APP, op, inputs);
    }
  });

  // The server refuses values deeper than 32 levels before coercing them (limits/valueDepth.ts);
  // the coercer itself must still agree with graphql-js at any depth and never throw. Without a
  // bound of its own the fast path accepted values graphql-js refuses (at its own stack's
  // limit) and, deeper still, threw a RangeError.
  it('agrees with graphql-js, and never throws, on a recursive input nested deeper than the stack allows', () => {
    const op = EXTRA_OPS.tree;
    const differences: string[] = [];
    for (const depth of [20, 100, 400, 800, 1_200, 1_600, 2_000, 5_000, 20_000]) {
      let tree: Record<string, unknown> = { label: 'leaf' };
      for (let i = 0; i < depth; i++) tree = { children: [tree] };
      const inputs = { t: tree };
      // Shallow values take the fast path (the comparison is of it, not of graphql-js with
      // itself); past its depth bound (64 lists and objects) graphql-js answers.
      if (depth === 20) expect(coercedQuickly(EXTRA, op, inputs)).toBeDefined();
      if (depth === 100) expect(coercedQuickly(EXTRA, op, inputs)).toBeUndefined();
      const refused = getVariableValues(EXTRA, op.variableDefinitions ?? [], inputs).errors !== undefined;
      let answer: string;
      try {
        const answered = coerceVariables(EXTRA, op, inputs);
        answer = answered.errors ? 'refused' : 'accepted';
      } catch (err) {
        answer = `threw ${(err as Error).name}`;
      }
      if (answer !== (refused ? 'refused' : 'accepted')) differences.push(`depth ${depth}: graphql-js ${refused ? 'refused' : 'accepted'}, coerceVariables ${answer}`);
    }
    expect(differences.join('\n')).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// Generated values: mostly well formed for their type, mixed with the edge values above and with
// own keys `__proto__`, `constructor` and an unknown one in input objects.

/** Values JSON can carry that sit on an edge of some scalar's coercion. */
const EDGE = fc.constantFrom<unknown>(0, -0, 1, -1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 + 2, Infinity, -Infinity, 1.5, 1e-7, '', '1', '1.5', 'true', 'HAPPY', 'happy', 'RED', 'SAD', 'toString', '2017', '2017-03', 'not a date', 'a\u0000b', true, false, null, [], {}, [null], [[1]]);

function valueOf(schema: GraphQLSchema, type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return fc.oneof({ weight: 30, arbitrary: valueOf(schema, type.ofType, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  if (isListType(type)) {
    const item = valueOf(schema, type.ofType, depth + 1);
    return fc.oneof({ weight: 5, arbitrary: fc.array(item, { maxLength: depth > 2 ? 0 : 3 }) }, { weight: 2, arbitrary: item }, { weight: 1, arbitrary: EDGE });
  }
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.oneof(fc.constant(null), EDGE);
    const fields = Object.values(type.getFields());
    const record = fc.record(Object.fromEntries(fields.map((f) => [f.name, valueOf(schema, f.type, depth + 1)])), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
    return fc.oneof(
      { weight: 20, arbitrary: record },
      { weight: 2, arbitrary: fc.tuple(record, fc.constantFrom('__proto__', 'constructor', 'toString', 'notAField'), EDGE).map(([r, k, v]) => withOwn(r, k, v)) },
      { weight: 1, arbitrary: EDGE },
    );
  }
  if (isEnumType(type)) return fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.name)) }, { weight: 1, arbitrary: EDGE });
  if (isScalarType(type)) {
    return fc.oneof({ weight: 20, arbitrary: SCALAR_VALUES[type.name] ?? EDGE }, { weight: 1, arbitrary: EDGE });
  }
  return EDGE;
}

function variablesOf(schema: GraphQLSchema, op: OperationDefinitionNode): fc.Arbitrary<Record<string, unknown>> {
  const entries = (op.variableDefinitions ?? []).map((d) => [d.variable.name.value, valueOf(schema, typeFromAST(schema, d.type) as GraphQLInputType, 0)] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

describe('variables fast path against graphql-js, generated values', () => {
  const cases: [string, GraphQLSchema, OperationDefinitionNode, number][] = [
    ['an app create input', APP, APP_OPS.create, 10],
    ['an app where, order and ids', APP, APP_OPS.where, 10],
    ['the custom scalars, enums and enum lists', APP, APP_OPS.scalars, 10],
    ['a subscription filter', APP, APP_OPS.filter, 10],
    // $n has a default: left out (as generated half the time), the request is graphql-js's.
    ['defaults, nested lists and a recursive input', EXTRA, EXTRA_OPS.shapes, 10],
    // OneOf inputs always go to graphql-js (variables.ts:131): the fast path answers none.
    ['OneOf inputs', EXTRA, EXTRA_OPS.oneOf, 0],
  ];
  for (const [name, schema, op, least] of cases) {
    it(`answers what graphql-js answers: ${name}`, () => {
      let quick = 0;
      fc.assert(
        fc.property(variablesOf(schema, op), (inputs) => {
          if (agrees(schema, op, inputs) === 'fast') quick += 1;
        }),
        { numRuns: 500 },
      );
      // Enough generated values took the fast path for the comparison to mean something.
      if (least === 0) expect(quick).toBe(0);
      else expect(quick).toBeGreaterThanOrEqual(least);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Through the real server.

describe.each(STORE_KINDS)('variables through the server (%s)', (kind) => {
  let files: FileServer;
  let app: TestApp;

  beforeAll(async () => {
    // A server that keeps files, so that multipart requests (uploads) are served.
    files = await startFileServer(kind, 'disk');
    app = await createTestApp(files.server, 'type Post @model { title: String! score: Int }');
    await app.data('mutation { a: createPost(input: { title: "alpha", score: 1 }) { clientMutationId } b: createPost(input: { title: "beta", score: 2 }) { clientMutationId } }');
  });
  afterAll(async () => files?.close());

  /** A GET request: variables as JSON text in the query string (JSON.parse keeps `__proto__` as an own key). */
  async function get(query: string, variables: string): Promise<{ status: number; body: Json }> {
    const url = `${app.endpoint}?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variables)}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${app.token}` } });
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** A multipart request of the GraphQL multipart request specification, without files, its operation as JSON text. */
  async function multipart(query: string, variables: string): Promise<{ status: number; body: Json }> {
    const form = new FormData();
    form.append('operations', `{"query":${JSON.stringify(query)},"variables":${variables}}`);
    form.append('map', '{}');
    const response = await fetch(app.endpoint, { method: 'POST', headers: { authorization: `Bearer ${app.token}` }, body: form });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const titles = (body: Json): string[] => body.data.viewer.allPosts.edges.map((e: Json) => e.node.title as string).sort();

  // Variables in a GET query string are read with JSON.parse, which keeps a `__proto__` key as
  // an own key: a lost value would read as Object.prototype, the filter then matching nothing
  // and an Int `first` refused.
  it('a query with a variable named $__proto__ over GET answers as with any other name', async () => {
    const filter = 'query Q($__proto__: String) { viewer { allPosts(where: { title: { eq: $__proto__ } }) { edges { node { title } } } } }';
    const control = await get(filter.replaceAll('__proto__', 'p'), '{"p":"alpha"}');
    expect(titles(control.body)).toEqual(['alpha']);
    const reply = await get(filter, '{"__proto__":"alpha"}');
    expect(reply.body.errors).toBeUndefined();
    expect(titles(reply.body)).toEqual(['alpha']);
    const page = await get('query Q($__proto__: Int) { viewer { allPosts(first: $__proto__) { edges { node { title } } } } }', '{"__proto__":1}');
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.viewer.allPosts.edges).toHaveLength(1);
  });

  // Multipart operations are read with JSON.parse too (server/multipart.ts): a lost value wrote
  // the title "[object Object]", and an Int value made the mutation fail with INTERNAL.
  it('a mutation with a variable named $__proto__ sent as multipart writes the value sent', async () => {
    const written = await multipart('mutation M($__proto__: String!) { createPost(input: { title: $__proto__ }) { changedPost { title } } }', '{"__proto__":"hello"}');
    expect(written.body.errors).toBeUndefined();
    expect(written.body.data.createPost.changedPost.title).toBe('hello');
    const scored = await multipart('mutation M($__proto__: Int) { createPost(input: { title: "scored", score: $__proto__ }) { changedPost { score } } }', '{"__proto__":7}');
    expect(scored.body.errors).toBeUndefined();
    expect(scored.body.data.createPost.changedPost.score).toBe(7);
  });

  // Sound, and why POST is not a way in: Fastify's JSON parser refuses a `__proto__` key.
  it('a POST JSON body carrying a __proto__ key is refused before any coercion', async () => {
    const response = await fetch(app.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}` },
      body: '{"query":"query Q($__proto__: String) { __typename }","variables":{"__proto__":"alpha"}}',
    });
    expect(response.status).toBe(400);
  });

  // Sound: the fixed value depth (DESIGN.md §6, "variables nested 32 deep") is checked before
  // coercion, so the unbounded recursion of the fast path (above) is never reached by a client.
  it('refuses variables nested past 32 levels with LIMIT_EXCEEDED, however deep, before coercing them', async () => {
    // The body is written as text: JSON.stringify itself would overflow on the deepest one.
    const send = async (nots: number) => {
      const where = `${'{"NOT":'.repeat(nots)}{"title":{"eq":"alpha"}}${'}'.repeat(nots)}`;
      const query = 'query Q($w: PostWhereArgs) { viewer { allPosts(where: $w) { edges { node { title } } } } }';
      const response = await fetch(app.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}` },
        body: `{"query":${JSON.stringify(query)},"variables":{"w":${where}}}`,
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    // 30 NOTs around one title filter nest 32 objects: within the bound; one more is past it.
    const within = await send(30);
    expect(within.body.errors).toBeUndefined();
    expect(titles(within.body)).toEqual(['alpha']);
    for (const nots of [31, 5_000, 40_000]) {
      const reply = await send(nots);
      expect(reply.status).toBeLessThan(500);
      expect(reply.body.errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
    }
  });

  // Sound: values the fast path declines reach graphql-js, and its refusal is BAD_USER_INPUT.
  it('answers BAD_USER_INPUT with graphql-js\'s message for values graphql-js refuses', async () => {
    const query = 'query Q($s: Int, $m: [Int!]) { viewer { allPosts(first: 1, where: { score: { in: $m, gt: $s } }) { edges { node { title } } } } }';
    for (const [variables, message] of [
      [{ s: 1.5 }, /Int cannot represent non-integer value: 1.5/],
      [{ s: '1' }, /Int cannot represent non-integer value: "1"/],
      [{ s: 2 ** 31 }, /Int cannot represent non 32-bit signed integer value/],
      [{ m: [1, null] }, /Expected non-nullable type "Int!" not to be null/],
    ] as const) {
      const reply = await app.gql(query, variables);
      expect(reply.status).toBeLessThan(500);
      expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(reply.body.errors[0].message).toMatch(message);
    }
  });

  // The compiler reads a variable as `request.variables[name]` (compile/params.ts): in an
  // object with a prototype, a variable left out whose name is a member of Object.prototype
  // would read as that member. The coerced variables have no prototype, whichever path coerced
  // them: an omitted variable means the argument or field was not given.
  it('a variable left out whose name is an Object.prototype property means "not given"', async () => {
    const all = await app.gql('query Q($toString: String) { viewer { allPosts(where: { title: { eq: $toString } }) { edges { node { title } } } } }');
    expect(all.body.errors).toBeUndefined();
    expect(titles(all.body)).toEqual(expect.arrayContaining(['alpha', 'beta']));
    const page = await app.gql('query Q($constructor: Int) { viewer { allPosts(first: $constructor) { edges { node { title } } } } }');
    expect(page.body.errors).toBeUndefined();
  });
});
