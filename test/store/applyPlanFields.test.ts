// Applying migration plans, part two: field steps (add, drop, rename, change type), required,
// defaults, indexes and unique constraints, and enum changes, each against stored rows.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TesseraError } from '../../src/errors/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { columnsOf, constraintsOf, createTestApp, indexesOf, insertRow, migrateTestApp, rowsOf } from './appFixtures.js';

/** The coded error a migration failed with (a non-coded failure fails the test). */
async function refusal(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TesseraError) return err;
    throw err;
  }
  throw new Error('expected the migration to be refused');
}

for (const kind of STORES) {
  describe(`applyPlan: fields (${kind})`, () => {
    let t: TestStore;
    let store: Store;

    beforeAll(async () => {
      t = await openTestStore(kind);
      store = t.store;
    });
    afterAll(() => t?.close());

    it('adds fields, filling existing rows with the default', async () => {
      const app = await createTestApp(store, 'type Post @model { title: String }');
      await insertRow(store, app, 'Post', { title: 'one' });
      const kinds = await migrateTestApp(
        store,
        app,
        'type Post @model { title: String  rating: Int  status: String! @default(value: "draft")  tags: [String] }',
      );
      expect(kinds).toEqual(['addField', 'addField', 'addField']);
      expect(await rowsOf(store, app, 'Post', ['title', 'rating', 'status', 'tags'])).toEqual([
        { title: 'one', rating: null, status: 'draft', tags: null },
      ]);
    });

    it('refuses a required field without a default on a table with rows', async () => {
      const app = await createTestApp(store, 'type Post @model { title: String }');
      // An empty table can take it.
      await migrateTestApp(store, app, 'type Post @model { title: String  summary: String! }');
      await insertRow(store, app, 'Post', { title: 'one', summary: 's' });
      const err = await refusal(migrateTestApp(store, app, 'type Post @model { title: String  summary: String!  subtitle: String! }'));
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.message).toBe('Cannot add required field Post.subtitle: Post already has rows; add @default(value: …)');
      expect(Object.keys(await columnsOf(store, app, 'Post'))).not.toContain('subtitle');
    });

    it('drops fields with their indexes', async () => {
      const app = await createTestApp(store, 'type Post @model { title: String  legacy: String @index }');
      await migrateTestApp(store, app, 'type Post @model { title: String }');
      expect(Object.keys(await columnsOf(store, app, 'Post'))).not.toContain('legacy');
      expect(Object.keys(await indexesOf(store, app, 'Post'))).toEqual(['Post_pkey']);
    });

    it('renames fields with their values and derived names', async () => {
      const app = await createTestApp(store, 'enum Mood { A B }\ntype Post @model { headline: String @unique  feel: Mood }');
      await insertRow(store, app, 'Post', { headline: 'Hi', feel: 'A' });
      const kinds = await migrateTestApp(
        store,
        app,
        'enum Mood { A B }\ntype Post @model { title: String @unique @renamed(from: "headline")  mood: Mood @renamed(from: "feel") }',
      );
      expect(kinds).toEqual(['renameField', 'renameField']);
      expect(await rowsOf(store, app, 'Post', ['title', 'mood'])).toEqual([{ title: 'Hi', mood: 'A' }]);
      expect(Object.keys(await indexesOf(store, app, 'Post'))).toEqual(['Post_pkey', 'Post_title_key']);
      expect(Object.keys(await constraintsOf(store, app, 'Post'))).toEqual(['Post_mood_check', 'Post_pkey']);
    });

    it('converts values when a field changes type', async () => {
      const app = await createTestApp(
        store,
        'type Reading @model { count: Int  score: Float  label: String  notes: Text  at: DateTime  flag: Boolean  one: [String]  n: Int }',
      );
      await insertRow(store, app, 'Reading', {
        count: 3,
        score: 2,
        label: 'x',
        notes: 'long',
        at: new Date('2020-05-06T07:08:09.010Z'),
        flag: true,
        one: JSON.stringify(['only']),
        n: 4,
      });
      await insertRow(store, app, 'Reading', {});
      const kinds = await migrateTestApp(
        store,
        app,
        'type Reading @model { count: Float  score: Int  label: Text  notes: String  at: String  flag: Int  one: String  n: [Int] }',
      );
      expect(kinds.every((k) => k === 'alterFieldType')).toBe(true);
      const types = Object.fromEntries(Object.entries(await columnsOf(store, app, 'Reading')).map(([n, c]) => [n, c.type]));
      expect(types).toMatchObject({ count: 'double precision', score: 'integer', label: 'text', at: 'text', flag: 'integer', one: 'text', n: 'jsonb' });
      expect(await rowsOf(store, app, 'Reading', ['count', 'score', 'label', 'notes', 'at', 'flag', 'one', 'n'])).toEqual([
        { count: 3, score: 2, label: 'x', notes: 'long', at: '2020-05-06T07:08:09.010Z', flag: 1, one: 'only', n: [4] },
        { count: null, score: null, label: null, notes: null, at: null, flag: null, one: null, n: null },
      ]);
    });

    it('refuses a type change that would lose or misread a stored value', async () => {
      const app = await createTestApp(store, 'type Reading @model { score: Float  code: String  many: [Int] }');
      await insertRow(store, app, 'Reading', { score: 2.5, code: '12', many: JSON.stringify([1, 2]) });

      const fraction = await refusal(migrateTestApp(store, app, 'type Reading @model { score: Int  code: String  many: [Int] }'));
      expect(fraction.code).toBe('BAD_USER_INPUT');
      expect(fraction.message).toMatch(/^Cannot change the type of Reading\.score from Float to Int/);
      expect(fraction.message).not.toMatch(/SQL|syntax|invalid input/i);

      const list = await refusal(migrateTestApp(store, app, 'type Reading @model { score: Float  code: String  many: Int }'));
      expect(list.message).toMatch(/^Cannot change the type of Reading\.many from \[Int\] to Int/);

      await migrateTestApp(store, app, 'type Reading @model { score: Float  code: Int  many: [Int] }');
      await insertRow(store, app, 'Reading', { code: 7 });
      expect(await rowsOf(store, app, 'Reading', ['code'])).toEqual([{ code: 12 }, { code: 7 }]);
    });

    it('checks stored values when a field becomes an enum', async () => {
      const app = await createTestApp(store, 'enum Size { S M }\ntype Shirt @model { size: String }');
      await insertRow(store, app, 'Shirt', { size: 'XL' });
      const err = await refusal(migrateTestApp(store, app, 'enum Size { S M }\ntype Shirt @model { size: Size }'));
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.message).toContain('Shirt.size');
      expect(err.message).toContain('"XL"');
      await migrateTestApp(store, app, 'enum Size { S M XL }\ntype Shirt @model { size: Size }');
      expect(Object.keys(await constraintsOf(store, app, 'Shirt'))).toContain('Shirt_size_check');
    });

    it('makes fields required, filling empty values from the default', async () => {
      const app = await createTestApp(store, 'type Task @model { title: String  owner: String  done: Boolean!  priority: Int @default(value: 1) }');
      await insertRow(store, app, 'Task', { owner: 'ann', done: false });
      const kinds = await migrateTestApp(
        store,
        app,
        'type Task @model { title: String! @default(value: "untitled")  owner: String!  done: Boolean  priority: Int @default(value: 3) }',
      );
      expect(kinds).toEqual(['setDefault', 'setRequired', 'setRequired', 'dropRequired', 'setDefault']);
      const columns = await columnsOf(store, app, 'Task');
      expect(columns.title).toEqual({ type: 'text', nullable: false, default: "'untitled'::text" });
      expect(columns.owner?.nullable).toBe(false);
      expect(columns.done?.nullable).toBe(true);
      expect(columns.priority?.default).toBe('3');
      await insertRow(store, app, 'Task', { owner: 'bob' });
      expect(await rowsOf(store, app, 'Task', ['title', 'owner', 'done', 'priority'])).toEqual([
        { title: 'untitled', owner: 'ann', done: false, priority: 1 },
        { title: 'untitled', owner: 'bob', done: null, priority: 3 },
      ]);

      await migrateTestApp(store, app, 'type Task @model { title: String!  owner: String!  done: Boolean  priority: Int }');
      const after = await columnsOf(store, app, 'Task');
      expect([after.title?.default, after.priority?.default]).toEqual([null, null]);
    });

    it('refuses to make a field required while rows have no value and no default', async () => {
      const app = await createTestApp(store, 'type Task @model { owner: String }');
      await insertRow(store, app, 'Task', {});
      const err = await refusal(migrateTestApp(store, app, 'type Task @model { owner: String! }'));
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.message).toBe('Cannot make Task.owner required: Task has rows with no value; add @default(value: …)');
      expect((await columnsOf(store, app, 'Task')).owner?.nullable).toBe(true);
    });

    it('adds and drops indexes and unique constraints', async () => {
      const app = await createTestApp(store, 'type Item @model { sku: String @unique  name: String @index  color: String }');
      expect(Object.keys(await indexesOf(store, app, 'Item'))).toEqual(['Item_name_idx', 'Item_pkey', 'Item_sku_key']);
      await insertRow(store, app, 'Item', { sku: 'a', color: 'red' });
      await insertRow(store, app, 'Item', { sku: 'a2', color: 'blue' });
      const kinds = await migrateTestApp(store, app, 'type Item @model { sku: String @index  name: String  color: String @unique }');
      expect(kinds).toEqual(['dropUnique', 'dropIndex', 'addIndex', 'addUnique']);
      const indexes = await indexesOf(store, app, 'Item');
      expect(Object.keys(indexes)).toEqual(['Item_color_key', 'Item_pkey', 'Item_sku_idx']);
      expect(indexes.Item_color_key).toMatch(/^CREATE UNIQUE INDEX/);
    });

    it('refuses a unique constraint over duplicate values', async () => {
      const app = await createTestApp(store, 'type Item @model { color: String }');
      await insertRow(store, app, 'Item', { color: 'red' });
      await insertRow(store, app, 'Item', { color: 'red' });
      const err = await refusal(migrateTestApp(store, app, 'type Item @model { color: String @unique }'));
      expect(err.code).toBe('CONFLICT');
      expect(err.message).toContain('Item.color');
    });

    it('changes enum checks, refusing to remove a value still stored', async () => {
      const app = await createTestApp(store, 'enum Mood { HAPPY SAD }\nenum Size { S M L }\ntype Entry @model { mood: Mood  size: Size }');
      await insertRow(store, app, 'Entry', { mood: 'SAD', size: 'S' });
      const err = await refusal(
        migrateTestApp(store, app, 'enum Mood { HAPPY SAD ANGRY }\nenum Size { M L }\ntype Entry @model { mood: Mood  size: Size }'),
      );
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.message).toContain('Entry.size');
      expect(err.message).toContain('S');

      const kinds = await migrateTestApp(
        store,
        app,
        'enum Mood { HAPPY SAD ANGRY }\nenum Size { S M }\nenum Color { RED }\ntype Entry @model { mood: Mood  size: Size  color: Color }',
      );
      expect(kinds).toEqual(['createEnum', 'alterEnum', 'alterEnum', 'addField']);
      await insertRow(store, app, 'Entry', { mood: 'ANGRY', size: 'M', color: 'RED' });
      const checks = await constraintsOf(store, app, 'Entry');
      expect(checks.Entry_size_check).not.toContain("'L'");
      expect(checks.Entry_mood_check).toContain("'ANGRY'");
      expect(checks.Entry_color_check).toContain("'RED'");
    });
  });
}
