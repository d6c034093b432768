// The operations shown in docs/api.md are valid against the demo app's generated schema, so
// the reference cannot drift from what the generator builds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildAppSchema } from '../../src/graphql/index.js';
import { parseSchema } from '../../src/model/index.js';

const root = join(import.meta.dirname, '../..');
const schema = buildAppSchema(parseSchema(readFileSync(join(root, 'examples/blog/schema.graphql'), 'utf8')));
const doc = readFileSync(join(root, 'docs/api.md'), 'utf8');
const operations = [...doc.matchAll(/```graphql\n([\s\S]*?)```/g)]
  .map((m) => m[1] ?? '')
  .filter((block) => /^(\{|query\b|mutation\b)/.test(block.trim()));

describe('docs/api.md', () => {
  it('has example operations', () => {
    expect(operations.length).toBeGreaterThanOrEqual(5);
  });

  it.each(operations.map((op) => [op.trim().split('\n')[0], op]))('%s … validates', (_, op) => {
    expect(validate(schema, parse(op ?? '')).map((e) => e.message)).toEqual([]);
  });
});
