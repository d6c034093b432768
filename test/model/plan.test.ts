// Golden tests for the migration planner: each `plans/<case>.from.graphql` → `<case>.to.graphql`
// pair is planned and the plan printed to `<case>.plan.txt` (regenerate with `vitest -u`).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDestructive, parseSchema, planMigration } from '../../src/model/index.js';
import type { MigrationPlan } from '../../src/model/index.js';

const dir = join(import.meta.dirname, 'plans');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.from.graphql'))
  .map((f) => f.replace('.from.graphql', ''))
  .sort();

function printPlan(plan: MigrationPlan): string {
  if (plan.steps.length === 0) return '(no changes)\n';
  return plan.steps.map((s) => `${s.destructive ? '!' : ' '} ${s.step.kind.padEnd(17)} ${s.description}`).join('\n') + '\n';
}

const read = (name: string) => readFileSync(join(dir, name), 'utf8');

describe('migration plans (golden)', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  it.each(cases)('%s', async (name) => {
    const plan = planMigration(parseSchema(read(`${name}.from.graphql`)), parseSchema(read(`${name}.to.graphql`)));
    await expect(printPlan(plan)).toMatchFileSnapshot(join(dir, `${name}.plan.txt`));
  });

  it('plans a new app from nothing, never destructively', async () => {
    const blog = readFileSync(join(import.meta.dirname, '../../examples/blog/schema.graphql'), 'utf8');
    const plan = planMigration(null, parseSchema(blog));
    expect(isDestructive(plan)).toBe(false);
    expect(plan.from).toBeNull();
    const kinds = plan.steps.map((s) => s.step.kind);
    // Types exist before the relations that point at them.
    expect(kinds.lastIndexOf('createType')).toBeLessThan(kinds.indexOf('addRelation'));
    await expect(printPlan(plan)).toMatchFileSnapshot(join(dir, 'blog-create.plan.txt'));
  });
});

describe('planner rules', () => {
  const base = 'type Post @model { title: String! rating: Int }';

  it('plans nothing for the same schema', () => {
    expect(planMigration(parseSchema(base), parseSchema(base)).steps).toEqual([]);
  });

  it('plans nothing for reordered fields and types', () => {
    const a = parseSchema('type A @model { x: Int y: Int } type B @model { z: Int }');
    const b = parseSchema('type B @model { z: Int } type A @model { y: Int x: Int }');
    expect(planMigration(a, b).steps).toEqual([]);
  });

  it('keeps a renamed field once the rename has been applied', () => {
    const v1 = parseSchema(base);
    const v2 = parseSchema('type Post @model { headline: String! @renamed(from: "title") rating: Int }');
    expect(planMigration(v1, v2).steps.map((s) => s.step)).toEqual([{ kind: 'renameField', type: 'Post', from: 'title', to: 'headline' }]);
    // Pushing the same schema again, the stale @renamed is harmless.
    expect(planMigration(v2, v2).steps).toEqual([]);
  });

  it('marks dropping a field destructive and adding one not', () => {
    const withRating = parseSchema(base);
    const without = parseSchema('type Post @model { title: String! }');
    expect(isDestructive(planMigration(withRating, without))).toBe(true);
    expect(isDestructive(planMigration(without, withRating))).toBe(false);
  });

  it('treats a relation whose name changed but whose ends did not as a rename', () => {
    const a = parseSchema('type User @model { posts: [Post] @relation(name: "A") } type Post @model { author: User @relation(name: "A") }');
    const b = parseSchema('type User @model { posts: [Post] @relation(name: "B") } type Post @model { author: User @relation(name: "B") }');
    expect(planMigration(a, b).steps.map((s) => s.step)).toEqual([{ kind: 'renameRelation', from: 'A', to: 'B' }]);
  });
});

describe('planner and stored models', () => {
  it('plans nothing when the live model comes back with its object keys reordered', () => {
    const schema = 'type User @model { friends: [User] @relation(name: "Friendship") } type Friendship @join(relation: "Friendship") { status: String @default(value: "new") }';
    const model = parseSchema(schema);
    const shuffle = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(shuffle) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffle(x)])) : v;
    const roundTripped = shuffle(JSON.parse(JSON.stringify(model))) as typeof model;
    expect(JSON.stringify(roundTripped)).not.toBe(JSON.stringify(model));
    expect(planMigration(roundTripped, parseSchema(schema)).steps).toEqual([]);
  });
});
