// Applying migration plans, part one: a new app's schema, column types, type-level steps,
// derived names across renames, steps without DDL, and failures that roll the whole plan back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TesseraError, isTesseraError } from '../../src/errors/index.js';
import { parseSchema, planMigration } from '../../src/model/index.js';
import type { MigrationPlan } from '../../src/model/index.js';
import { sql } from '../../src/sql/index.js';
import { derivedName, sqlState } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import {
  applyTestPlan,
  columnsOf,
  constraintsOf,
  createTestApp,
  indexesOf,
  insertRow,
  migrateTestApp,
  rowsOf,
  tablesOf,
} from './appFixtures.js';
import type { TestApp } from './appFixtures.js';

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

/** Everything DDL can change about an app's tables, for "nothing changed" checks. */
async function snapshot(store: Store, app: TestApp) {
  const tables = await tablesOf(store, app);
  const out: Record<string, unknown> = {};
  for (const table of tables) {
    out[table] = [await columnsOf(store, app, table), await indexesOf(store, app, table), await constraintsOf(store, app, table)];
  }
  return out;
}

for (const kind of STORES) {
  describe(`applyPlan: apps and types (${kind})`, () => {
    let t: TestStore;
    let store: Store;

    beforeAll(async () => {
      t = await openTestStore(kind);
      store = t.store;
    });
    afterAll(() => t?.close());

    it('creates a new app: schema, built-in tables and the admin role', async () => {
      const app = await createTestApp(store, 'type Post @model { title: String! }');
      expect(await tablesOf(store, app)).toEqual(['File', 'Post', 'Role', 'User', 'UserRoles']);
      expect(await columnsOf(store, app, 'User')).toEqual({
        id: { type: 'uuid', nullable: false, default: 'gen_random_uuid()' },
        createdAt: { type: 'timestamp(3) with time zone', nullable: false, default: 'now()' },
        modifiedAt: { type: 'timestamp(3) with time zone', nullable: false, default: 'now()' },
        username: { type: 'text', nullable: false, default: null },
        password: { type: 'text', nullable: false, default: null },
        lastLogin: { type: 'timestamp(3) with time zone', nullable: true, default: null },
        email: { type: 'text', nullable: true, default: null },
        emailVerified: { type: 'boolean', nullable: false, default: 'false' },
      });
      expect(await indexesOf(store, app, 'User')).toEqual({
        User_pkey: expect.stringContaining('(id)'),
        User_username_key: expect.stringMatching(/^CREATE UNIQUE INDEX "User_username_key" .* \(lower\(username\)\)$/),
        User_email_key: expect.stringMatching(/^CREATE UNIQUE INDEX "User_email_key" .* \(lower\(email\)\)$/),
      });
      expect(await rowsOf(store, app, 'Role', ['name'])).toEqual([{ name: 'admin' }]);

      await insertRow(store, app, 'User', { username: 'Alice', password: 'x' });
      const dup = await failure(insertRow(store, app, 'User', { username: 'alice', password: 'y' }));
      expect(sqlState(dup)).toBe('23505');

      expect(await columnsOf(store, app, 'UserRoles')).toMatchObject({
        userId: { type: 'uuid', nullable: false },
        roleId: { type: 'uuid', nullable: false },
        accessLevel: { type: 'text', nullable: true },
      });
      expect(await constraintsOf(store, app, 'UserRoles')).toEqual({
        UserRoles_pkey: 'PRIMARY KEY (id)',
        UserRoles_userId_fkey: `FOREIGN KEY ("userId") REFERENCES ${app.schema}."User"(id) ON DELETE CASCADE`,
        UserRoles_roleId_fkey: `FOREIGN KEY ("roleId") REFERENCES ${app.schema}."Role"(id) ON DELETE CASCADE`,
        UserRoles_accessLevel_check: expect.stringMatching(/'admin'.*'readwrite'.*'readonly'/),
      });
    });

    it('maps every field type to its column, with NOT NULL, defaults and enum checks', async () => {
      const app = await createTestApp(
        store,
        `enum Mood { HAPPY SAD }
         type Address { street: String }
         type Sample @model {
           key: ID
           name: String! @default(value: "anon")
           body: Text
           count: Int @default(value: 7)
           ratio: Float @default(value: 0.5)
           flag: Boolean! @default(value: true)
           at: DateTime @default(value: "2020-01-02T03:04:05.678Z")
           data: JSON @default(value: {a: [1, "x"]})
           mood: Mood @default(value: SAD)
           moods: [Mood]
           tags: [String]!
           address: Address
         }`,
      );
      const columns = await columnsOf(store, app, 'Sample');
      const types = Object.fromEntries(Object.entries(columns).map(([name, c]) => [name, [c.type, c.nullable]]));
      expect(types).toEqual({
        id: ['uuid', false],
        createdAt: ['timestamp(3) with time zone', false],
        modifiedAt: ['timestamp(3) with time zone', false],
        key: ['text', true],
        name: ['text', false],
        body: ['text', true],
        count: ['integer', true],
        ratio: ['double precision', true],
        flag: ['boolean', false],
        at: ['timestamp(3) with time zone', true],
        data: ['jsonb', true],
        mood: ['text', true],
        moods: ['jsonb', true],
        tags: ['jsonb', false],
        address: ['jsonb', true],
      });
      expect(await constraintsOf(store, app, 'Sample')).toEqual({
        Sample_pkey: 'PRIMARY KEY (id)',
        Sample_mood_check: expect.stringMatching(/mood.*'HAPPY'.*'SAD'/),
      });
      await insertRow(store, app, 'Sample', { tags: '[]' });
      const [row] = await rowsOf(store, app, 'Sample', ['name', 'count', 'ratio', 'flag', 'at', 'data', 'mood', 'tags']);
      expect(row).toEqual({
        name: 'anon',
        count: 7,
        ratio: 0.5,
        flag: true,
        at: new Date('2020-01-02T03:04:05.678Z'),
        data: { a: [1, 'x'] },
        mood: 'SAD',
        tags: [],
      });
      const bad = await failure(insertRow(store, app, 'Sample', { tags: '[]', mood: 'ANGRY' }));
      expect(sqlState(bad)).toBe('23514');
    });

    it('renames a type with its rows, keeping index and constraint names derived from it', async () => {
      const app = await createTestApp(
        store,
        `type Article @model { headline: String! @index  slug: String @unique  writer: User @relation(name: "ArticleWriter") }
         type User @model { articles: [Article] @relation(name: "ArticleWriter") }`,
      );
      const userId = await insertRow(store, app, 'User', { username: 'ann', password: 'x' });
      await insertRow(store, app, 'Article', { headline: 'Hello', writerId: userId });
      const kinds = await migrateTestApp(
        store,
        app,
        `type Post @model @renamed(from: "Article") {
           title: String! @index @renamed(from: "headline")
           slug: String @unique
           author: User @relation(name: "ArticleWriter") @renamed(from: "writer")
         }
         type User @model { posts: [Post] @relation(name: "ArticleWriter") @renamed(from: "articles") }`,
      );
      expect(kinds).toEqual(['renameType', 'renameField', 'renameField', 'renameField', 'setPlural']);
      expect(await tablesOf(store, app)).toEqual(['File', 'Post', 'Role', 'User', 'UserRoles']);
      expect(await rowsOf(store, app, 'Post', ['title', 'authorId'])).toEqual([{ title: 'Hello', authorId: userId }]);
      expect(Object.keys(await indexesOf(store, app, 'Post'))).toEqual(['Post_authorId_idx', 'Post_pkey', 'Post_slug_key', 'Post_title_idx']);
      expect(Object.keys(await constraintsOf(store, app, 'Post'))).toEqual(['Post_authorId_fkey', 'Post_pkey']);
      const stale = await store.query(sql`
        SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
         WHERE n.nspname = ${app.schema} AND (conname LIKE '%Article%' OR conname LIKE '%headline%' OR conname LIKE '%writer%')
        UNION ALL SELECT indexname FROM pg_indexes WHERE schemaname = ${app.schema} AND indexname LIKE '%Article%'`);
      expect(stale.rows).toEqual([]);
    });

    it('shortens long derived names with a hash and still finds them after a rename', async () => {
      const long = `T${'x'.repeat(50)}`;
      const app = await createTestApp(store, `type ${long} @model { someRatherLongFieldName: String @index }`);
      const name = derivedName(long, ['someRatherLongFieldName'], 'idx');
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
      expect(Object.keys(await indexesOf(store, app, long))).toContain(name);
      const renamed = `U${'y'.repeat(50)}`;
      await migrateTestApp(store, app, `type ${renamed} @model @renamed(from: "${long}") { someRatherLongFieldName: String @index }`);
      expect(Object.keys(await indexesOf(store, app, renamed)).sort()).toEqual(
        [derivedName(renamed, [], 'pkey'), derivedName(renamed, ['someRatherLongFieldName'], 'idx')].sort(),
      );
    });

    it('creates and drops types', async () => {
      const app = await createTestApp(store, 'type Post @model { title: String }');
      expect(await migrateTestApp(store, app, 'type Tag @model { name: String! @unique }')).toEqual(['dropType', 'createType']);
      expect(await tablesOf(store, app)).toEqual(['File', 'Role', 'Tag', 'User', 'UserRoles']);
      expect(Object.keys(await indexesOf(store, app, 'Tag'))).toEqual(['Tag_name_key', 'Tag_pkey']);
    });

    it('runs no DDL for enums, embedded types, permissions and plurals', async () => {
      const app = await createTestApp(
        store,
        `enum Mood { HAPPY SAD }
         type Geo { lat: Float lng: Float }
         type Person @model { name: String!  geo: Geo }`,
      );
      const before = await snapshot(store, app);
      const kinds = await migrateTestApp(
        store,
        app,
        `enum Size { S M }
         type Geo { lat: Float }
         type Opening { day: Int }
         type Person @model(plural: "Persons") @permission(scope: EVERYONE, read: true) { name: String!  geo: Geo }`,
      );
      expect(new Set(kinds)).toEqual(new Set(['createEnum', 'dropEnum', 'alterEmbedded', 'createEmbedded', 'setPlural', 'updatePermissions']));
      expect(await snapshot(store, app)).toEqual(before);
      const dropEmbedded = await migrateTestApp(store, app, 'type Person @model { name: String!  tag: String }');
      expect(dropEmbedded).toContain('dropEmbedded');
    });

    it('rolls the whole plan back when a step fails on the data', async () => {
      const app = await createTestApp(store, 'type Item @model { sku: String }');
      await insertRow(store, app, 'Item', { sku: 'a' });
      await insertRow(store, app, 'Item', { sku: 'a' });
      const before = await snapshot(store, app);
      const err = await failure(
        migrateTestApp(store, app, 'type Item @model { sku: String @unique  name: String @index }\ntype Tag @model { name: String }'),
      );
      expect(err).toBeInstanceOf(TesseraError);
      expect((err as TesseraError).code).toBe('CONFLICT');
      expect((err as TesseraError).message).toContain('Item.sku');
      expect(await snapshot(store, app)).toEqual(before);
      expect(await rowsOf(store, app, 'Item', ['sku'])).toEqual([{ sku: 'a' }, { sku: 'a' }]);
    });

    it('reports a plan that does not fit the database as an internal error, and rolls back', async () => {
      const app = await createTestApp(store, 'type Item @model { sku: String }');
      const before = await snapshot(store, app);
      const to = parseSchema('type Item @model { sku: String  name: String }\ntype Tag @model { name: String }');
      const plan: MigrationPlan = {
        from: app.model,
        to,
        steps: [
          ...planMigration(app.model, to).steps,
          // The column exists by now: the database refuses, which is not the developer's doing.
          { step: { kind: 'addField', type: 'Item', field: 'name' }, description: 'Add field Item.name again', destructive: false },
        ],
      };
      const err = await failure(applyTestPlan(store, app, plan));
      expect(isTesseraError(err)).toBe(false);
      expect((err as Error).message).toContain('Add field Item.name again');
      expect(sqlState(err)).toBe('42701');
      expect(await snapshot(store, app)).toEqual(before);
      const tag = await store.query(sql`SELECT to_regclass(${`${app.schema}.Tag`}) AS t`);
      expect(tag.rows[0]).toEqual({ t: null });
    });
  });
}
