// Variables coerced by the server's fast path answer exactly what graphql-js's getVariableValues
// answers: the same values, in the same key order, for every input it accepts; and every input
// it does not accept goes to graphql-js, errors and all. Checked on generated values, mostly
// well formed and some not, for an app's generated schema and for a schema of the input shapes
// an app schema does not make (defaults, recursion, OneOf, nested lists).

import fc from 'fast-check';
import { buildSchema, getVariableValues, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, typeFromAST } from 'graphql';
import type { GraphQLInputType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildAppSchema } from '../../src/graphql/buildAppSchema.js';
import { coerceVariables, coercedQuickly } from '../../src/compile/variables.js';
import { APP_MODEL, SCALAR_VALUES, agrees, operation } from './variablesHarness.js';

const APP = APP_MODEL;

const EXTRA = buildSchema(`
  enum Color { RED GREEN }
  input Tree { label: String! children: [Tree!] weight: Int = 3 }
  input Pick @oneOf { id: ID name: String }
  input Opts { first: Int = 10 color: Color = RED flags: [[Boolean]] }
  type Query {
    tree(t: Tree): String
    pick(p: Pick): String
    opts(o: Opts, ids: [ID!]!, n: Int = 5, f: Float): String
  }
`);

/** A value for `type`: well formed most of the time, otherwise anything JSON can hold. */
function valueOf(schema: GraphQLSchema, type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> {
  const anything = fc.oneof(fc.constant(null), fc.string({ maxLength: 4 }), fc.integer(), fc.double(), fc.boolean(), fc.constant({}), fc.constant([]));
  if (isNonNullType(type)) return fc.oneof({ weight: 30, arbitrary: valueOf(schema, type.ofType, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  if (isListType(type)) {
    const item = valueOf(schema, type.ofType, depth + 1);
    return fc.oneof({ weight: 5, arbitrary: fc.array(item, { maxLength: depth > 2 ? 0 : 3 }) }, { weight: 2, arbitrary: item }, { weight: 1, arbitrary: fc.constant(null) });
  }
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.constant(null);
    const fields = Object.values(type.getFields());
    const record = fc.record(Object.fromEntries(fields.map((f) => [f.name, valueOf(schema, f.type, depth + 1)])), { requiredKeys: [] });
    return fc.oneof(
      { weight: 20, arbitrary: record },
      { weight: 1, arbitrary: record.map((r) => ({ ...r, notAField: 1 })) },
      { weight: 1, arbitrary: anything },
    );
  }
  if (isEnumType(type)) return fc.oneof({ weight: 30, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.name)) }, { weight: 2, arbitrary: anything });
  if (isScalarType(type)) {
    return fc.oneof({ weight: 30, arbitrary: SCALAR_VALUES[type.name] ?? anything }, { weight: 1, arbitrary: anything });
  }
  return anything;
}

/** Variables for `op`: each defined one given or left out, and now and then one it does not define. */
function variablesOf(schema: GraphQLSchema, op: OperationDefinitionNode): fc.Arbitrary<Record<string, unknown>> {
  const defs = op.variableDefinitions ?? [];
  const entries = defs.map((d) => [d.variable.name.value, valueOf(schema, typeFromAST(schema, d.type) as GraphQLInputType, 0)] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
}

/**
 * The fast path must answer what graphql-js answers, key order included, or leave it to
 * graphql-js; true when it answered itself.
 */
function agreesAndAccepts(schema: GraphQLSchema, op: OperationDefinitionNode, inputs: Record<string, unknown>): boolean {
  const answered = agrees(schema, op, inputs);
  // What graphql-js accepts the fast path accepts too, but for two things it leaves to it: a
  // variable left out whose default the document gives, and OneOf inputs.
  const defaulted = (op.variableDefinitions ?? []).some((d) => d.defaultValue !== undefined && !(d.variable.name.value in inputs));
  if (answered !== 'refused' && !defaulted && !JSON.stringify(op).includes('"Pick"')) expect(answered).toBe('fast');
  return answered === 'fast';
}

describe('variables coerced on the fast path', () => {
  const app = buildAppSchema(APP);
  const cases: [string, GraphQLSchema, string][] = [
    ['an app create input', app, 'mutation M($input: CreatePostInput!) { createPost(input: $input) { clientMutationId } }'],
    ['an app update input', app, 'mutation M($input: UpdatePostInput!) { updatePost(input: $input) { clientMutationId } }'],
    ['an app where and order', app, 'query Q($w: PostWhereArgs, $o: [PostOrderByArgs], $first: Int, $after: String) { viewer { allPosts(where: $w, orderBy: $o, first: $first, after: $after) { edges { cursor } } } }'],
    ['an id', app, 'query Q($id: ID!) { getPost(id: $id) { id } }'],
    ['a recursive input with defaults', EXTRA, 'query Q($t: Tree) { tree(t: $t) }'],
    ['a OneOf input', EXTRA, 'query Q($p: Pick) { pick(p: $p) }'],
    ['defaults in the document and nested lists', EXTRA, 'query Q($o: Opts, $ids: [ID!]!, $n: Int = 5, $f: Float) { opts(o: $o, ids: $ids, n: $n, f: $f) }'],
  ];

  for (const [name, schema, text] of cases) {
    it(`answers what graphql-js answers: ${name}`, () => {
      const op = operation(text);
      let quick = 0;
      fc.assert(
        fc.property(variablesOf(schema, op), (inputs) => {
          if (agreesAndAccepts(schema, op, inputs)) quick += 1;
        }),
        { numRuns: 400 },
      );
      // A OneOf input always goes to graphql-js; the generated values hold enough valid ones
      // for the fast path to be checked on each of the others.
      if (name === 'a OneOf input') expect(quick).toBe(0);
      else expect(quick).toBeGreaterThan(20);
    });
  }

  it('takes the fast path for the values clients send every day', () => {
    const create = operation(cases[0]![2]);
    const inputs = { input: { title: 'Hello', score: 3, published: true, mood: 'HAPPY', tags: ['a'], at: '2017-03-05T10:00:00.000Z', extra: { a: [1] }, address: { city: 'Oslo' } } };
    const quick = coercedQuickly(app, create, inputs);
    expect(quick).toEqual(getVariableValues(app, create.variableDefinitions ?? [], inputs).coerced);
    // A variable left out that has a default in the document is read by graphql-js.
    const opts = operation(cases[6]![2]);
    expect(coercedQuickly(EXTRA, opts, { ids: ['1'] })).toBeUndefined();
    expect(coerceVariables(EXTRA, opts, { ids: ['1'] }).coerced).toEqual({ ids: ['1'], n: 5 });
    // A scalar's own conversion runs: an integer ID becomes its text, an enum its value.
    expect(coercedQuickly(EXTRA, opts, { ids: [7], n: 1, o: { color: 'GREEN' } })).toEqual({ o: { first: 10, color: 'GREEN' }, ids: ['7'], n: 1 });
  });
});
