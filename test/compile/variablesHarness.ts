// What the variable coercer's tests share (compile/variables.test.ts, security/variables.test.ts):
// an app model whose generated schema has every kind of input (custom scalars, enums, embedded
// values, where and order inputs), and the check that the fast path answers what graphql-js's
// getVariableValues answers.

import fc from 'fast-check';
import { getVariableValues, parse } from 'graphql';
import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { coerceVariables, coercedQuickly } from '../../src/compile/variables.js';
import { parseSchema } from '../../src/model/index.js';

export const APP_MODEL = parseSchema(`
enum Mood { HAPPY SAD }
type Address { street: String city: String }
type Post @model {
  title: String! @index
  body: Text
  score: Int
  rating: Float
  published: Boolean
  mood: Mood
  tags: [String]
  at: DateTime
  extra: JSON
  address: Address
  author: User @relation(name: "PostAuthor")
}
type User @model { posts: [Post] @relation(name: "PostAuthor") }
`);

export function operation(text: string): OperationDefinitionNode {
  return parse(text).definitions[0] as OperationDefinitionNode;
}

/** Who answered: graphql-js refused the variables, or accepted them and the fast path answered, or graphql-js alone did. */
export type Agreement = 'refused' | 'fast' | 'graphql-js';

/**
 * The coercer agrees with graphql-js on `inputs`: the same errors when graphql-js refuses (the
 * fast path declining); when it accepts, graphql-js's values with the same own keys in the same
 * order, in an object without a prototype (a left-out `$toString` reads as undefined), from the
 * fast path too when it answers. Neither entry point may throw: a refusal is an answer.
 */
export function agrees(schema: GraphQLSchema, op: OperationDefinitionNode, inputs: Record<string, unknown>): Agreement {
  const expected = getVariableValues(schema, op.variableDefinitions ?? [], inputs, { maxErrors: 25 });
  const quick = coercedQuickly(schema, op, inputs);
  const answered = coerceVariables(schema, op, inputs);
  if (expected.errors) {
    expect(quick).toBeUndefined();
    expect(answered.errors?.map((e) => e.message)).toEqual(expected.errors.map((e) => e.message));
    return 'refused';
  }
  expect(answered.errors).toBeUndefined();
  for (const got of quick === undefined ? [answered.coerced] : [answered.coerced, quick]) {
    expect(Reflect.ownKeys(got as object)).toEqual(Reflect.ownKeys(expected.coerced));
    expect(Object.getPrototypeOf(got)).toBeNull();
    expect(isDeepStrictEqual({ ...got }, expected.coerced)).toBe(true);
    expect(JSON.stringify(got)).toBe(JSON.stringify(expected.coerced));
  }
  return quick === undefined ? 'graphql-js' : 'fast';
}

/** Well-formed values of each scalar an app schema has, with the forms a client may send (DateTime without a time, a number as an ID). */
export const SCALAR_VALUES: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  ID: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
  String: fc.string({ maxLength: 6 }),
  Text: fc.string({ maxLength: 6 }),
  Int: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  Float: fc.double({ noNaN: true }),
  Boolean: fc.boolean(),
  DateTime: fc.oneof(
    fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2017', '2017-03', '2017-03-05T10:00', '2017-03-05T10:00:00+02:00', 'not a date'),
  ),
  JSON: fc.jsonValue({ maxDepth: 2 }),
};
