// Applying migration plans, part three: relations as foreign-key columns and join tables, their
// delete behaviour, self relations, renames that keep links, drops, and join fields.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TesseraError } from '../../src/errors/index.js';
import { ident, sql } from '../../src/sql/index.js';
import { sqlState } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { columnsOf, constraintsOf, createTestApp, indexesOf, insertRow, migrateTestApp, rowsOf, tablesOf } from './appFixtures.js';
import type { TestApp } from './appFixtures.js';

const BLOG = `
type User @model {
  posts: [Post] @relation(name: "PostAuthor")
  likes: [Post] @relation(name: "PostLikes")
  tagged: [Tag] @relation(name: "UserTags")
}
type Post @model {
  title: String!
  author: User @relation(name: "PostAuthor")
  likedBy: [User] @relation(name: "PostLikes")
}
type Tag @model { name: String!  owner: [User] @relation(name: "UserTags") }
`;

async function user(store: Store, app: TestApp, name: string): Promise<string> {
  return insertRow(store, app, 'User', { username: name, password: 'x' });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

for (const kind of STORES) {
  describe(`applyPlan: relations (${kind})`, () => {
    let t: TestStore;
    let store: Store;

    beforeAll(async () => {
      t = await openTestStore(kind);
      store = t.store;
    });
    afterAll(() => t?.close());

    it('stores one-to-many as an indexed foreign key that is cleared when the target goes', async () => {
      const app = await createTestApp(store, BLOG);
      expect((await columnsOf(store, app, 'Post')).authorId).toEqual({ type: 'uuid', nullable: true, default: null });
      expect((await constraintsOf(store, app, 'Post')).Post_authorId_fkey).toBe(
        `FOREIGN KEY ("authorId") REFERENCES ${app.schema}."User"(id) ON DELETE SET NULL`,
      );
      expect(Object.keys(await indexesOf(store, app, 'Post'))).toContain('Post_authorId_idx');
      const ann = await user(store, app, 'ann');
      await insertRow(store, app, 'Post', { title: 'p', authorId: ann });
      await store.query(sql`DELETE FROM ${ident(app.schema, 'User')} WHERE id = ${ann}`);
      expect(await rowsOf(store, app, 'Post', ['title', 'authorId'])).toEqual([{ title: 'p', authorId: null }]);
    });

    it('stores one-to-one as a unique foreign key', async () => {
      const app = await createTestApp(
        store,
        `type Country @model { name: String!  capitalCity: City @relation(name: "CountryCapital") }
         type City @model { name: String!  capitalOf: Country @relation(name: "CountryCapital") }`,
      );
      const [table, column] = ['City', 'capitalOfId'];
      expect((await indexesOf(store, app, table))[`${table}_${column}_key`]).toMatch(/^CREATE UNIQUE INDEX/);
      const country = await insertRow(store, app, 'Country', { name: 'France' });
      await insertRow(store, app, 'City', { name: 'Paris', [column]: country });
      expect(sqlState(await failure(insertRow(store, app, 'City', { name: 'Lyon', [column]: country })))).toBe('23505');
    });

    it('stores many-to-many in a join table whose edges go with either end', async () => {
      const app = await createTestApp(store, BLOG);
      expect(await columnsOf(store, app, 'PostLikes')).toEqual({
        id: { type: 'uuid', nullable: false, default: 'gen_random_uuid()' },
        createdAt: { type: 'timestamp(3) with time zone', nullable: false, default: 'now()' },
        modifiedAt: { type: 'timestamp(3) with time zone', nullable: false, default: 'now()' },
        userId: { type: 'uuid', nullable: false, default: null },
        postId: { type: 'uuid', nullable: false, default: null },
      });
      expect(await constraintsOf(store, app, 'PostLikes')).toEqual({
        PostLikes_pkey: 'PRIMARY KEY (id)',
        PostLikes_userId_fkey: `FOREIGN KEY ("userId") REFERENCES ${app.schema}."User"(id) ON DELETE CASCADE`,
        PostLikes_postId_fkey: `FOREIGN KEY ("postId") REFERENCES ${app.schema}."Post"(id) ON DELETE CASCADE`,
      });
      const indexes = await indexesOf(store, app, 'PostLikes');
      expect(indexes.PostLikes_userId_postId_key).toMatch(/UNIQUE INDEX .* \("userId", "postId"\)$/);
      expect(indexes.PostLikes_postId_idx).toMatch(/\("postId"\)$/);

      const [ann, bob] = [await user(store, app, 'ann'), await user(store, app, 'bob')];
      const post = await insertRow(store, app, 'Post', { title: 'p' });
      await insertRow(store, app, 'PostLikes', { userId: ann, postId: post });
      await insertRow(store, app, 'PostLikes', { userId: bob, postId: post });
      expect(sqlState(await failure(insertRow(store, app, 'PostLikes', { userId: ann, postId: post })))).toBe('23505');
      await store.query(sql`DELETE FROM ${ident(app.schema, 'User')} WHERE id = ${ann}`);
      expect(await rowsOf(store, app, 'PostLikes', ['userId'])).toEqual([{ userId: bob }]);
      await store.query(sql`DELETE FROM ${ident(app.schema, 'Post')} WHERE id = ${post}`);
      expect(await rowsOf(store, app, 'PostLikes', ['userId'])).toEqual([]);
    });

    it('keeps one self many-to-many edge whichever way round it is added, with its join fields', async () => {
      const app = await createTestApp(
        store,
        `type User @model { friends: [User] @relation(name: "Friendship") }
         enum Closeness { NEAR FAR }
         type Friendship @join(relation: "Friendship") { status: String  closeness: Closeness }`,
      );
      expect(Object.keys(await columnsOf(store, app, 'Friendship'))).toEqual([
        'id', 'createdAt', 'modifiedAt', 'user1Id', 'user2Id', 'status', 'closeness',
      ]);
      const indexes = await indexesOf(store, app, 'Friendship');
      expect(indexes.Friendship_user1Id_user2Id_key).toMatch(/LEAST\("user1Id", "user2Id"\), GREATEST\("user1Id", "user2Id"\)/);
      expect(Object.keys(indexes)).toEqual(['Friendship_pkey', 'Friendship_user1Id_user2Id_key', 'Friendship_user2Id_idx']);
      expect(Object.keys(await constraintsOf(store, app, 'Friendship'))).toContain('Friendship_closeness_check');
      const [a, b] = [await user(store, app, 'a'), await user(store, app, 'b')];
      await insertRow(store, app, 'Friendship', { user1Id: a, user2Id: b, status: 'new' });
      expect(sqlState(await failure(insertRow(store, app, 'Friendship', { user1Id: b, user2Id: a })))).toBe('23505');
    });

    it('renames, drops and adds relations, keeping the links of a renamed one', async () => {
      const app = await createTestApp(store, BLOG);
      const ann = await user(store, app, 'ann');
      const post = await insertRow(store, app, 'Post', { title: 'p', authorId: ann });
      await insertRow(store, app, 'PostLikes', { userId: ann, postId: post });
      const kinds = await migrateTestApp(
        store,
        app,
        `type User @model {
           posts: [Post] @relation(name: "PostAuthors")
           likes: [Post] @relation(name: "PostFans")
           friends: [User] @relation(name: "Friendship")
         }
         type Post @model {
           title: String!
           author: [User] @relation(name: "PostAuthors")
           likedBy: [User] @relation(name: "PostFans")
           comments: [Comment] @relation(name: "PostComments")
         }
         type Comment @model { text: String!  post: Post @relation(name: "PostComments") }
         type Tag @model { name: String! }`,
      );
      expect(kinds).toEqual(['renameRelation', 'dropRelation', 'dropRelation', 'createType', 'addRelation', 'addRelation', 'addRelation']);
      expect(await tablesOf(store, app)).toEqual(['Comment', 'File', 'Friendship', 'Post', 'PostAuthors', 'PostFans', 'Role', 'Tag', 'User', 'UserRoles']);
      expect(await rowsOf(store, app, 'PostFans', ['userId', 'postId'])).toEqual([{ userId: ann, postId: post }]);
      expect(Object.keys(await indexesOf(store, app, 'PostFans'))).toEqual(['PostFans_pkey', 'PostFans_postId_idx', 'PostFans_userId_postId_key']);
      expect(Object.keys(await constraintsOf(store, app, 'PostFans'))).toEqual(['PostFans_pkey', 'PostFans_postId_fkey', 'PostFans_userId_fkey']);
      expect(Object.keys(await columnsOf(store, app, 'Post'))).not.toContain('authorId');
      expect(Object.keys(await columnsOf(store, app, 'Comment'))).toContain('postId');
    });

    it('keeps enum checks of join fields in step when their relation is renamed in the same push', async () => {
      const before = `type User @model { friends: [User] @relation(name: "Friendship") }
        enum Level { LOW HIGH }
        type Friendship @join(relation: "Friendship") { level: Level }`;
      const app = await createTestApp(store, before);
      const [a, b] = [await user(store, app, 'a'), await user(store, app, 'b')];
      await insertRow(store, app, 'Friendship', { user1Id: a, user2Id: b, level: 'LOW' });
      const kinds = await migrateTestApp(
        store,
        app,
        `type User @model { friends: [User] @relation(name: "Buddies") }
         enum Level { LOW HIGH TOP }
         type Buddies @join(relation: "Buddies") { level: Level }`,
      );
      expect(kinds).toEqual(['renameRelation', 'alterEnum']);
      expect(Object.keys(await constraintsOf(store, app, 'Buddies'))).toContain('Buddies_level_check');
      const c = await user(store, app, 'c');
      await insertRow(store, app, 'Buddies', { user1Id: a, user2Id: c, level: 'TOP' });
      expect(await rowsOf(store, app, 'Buddies', ['level'])).toEqual([{ level: 'LOW' }, { level: 'TOP' }]);
    });

    it('renames the foreign-key column of a renamed relation field', async () => {
      const app = await createTestApp(store, BLOG);
      const ann = await user(store, app, 'ann');
      await insertRow(store, app, 'Post', { title: 'p', authorId: ann });
      const renamed = BLOG.replace('author: User @relation(name: "PostAuthor")', 'writer: User @relation(name: "PostAuthor") @renamed(from: "author")');
      expect(await migrateTestApp(store, app, renamed)).toEqual(['renameField']);
      expect(await rowsOf(store, app, 'Post', ['writerId'])).toEqual([{ writerId: ann }]);
      const names = [...Object.keys(await indexesOf(store, app, 'Post')), ...Object.keys(await constraintsOf(store, app, 'Post'))];
      expect(names.sort()).toEqual(['Post_pkey', 'Post_pkey', 'Post_writerId_fkey', 'Post_writerId_idx']);
    });

    it("keeps each row's link time: set when the row is made or a relation column pointed elsewhere, over the relation columns the table holds now", async () => {
      const app = await createTestApp(store, BLOG);
      const post = ident(app.schema, 'Post');
      const linked = async (): Promise<bigint> => {
        const { rows } = await store.query<{ at: string | null }>(sql`SELECT ${ident('tessera$linked')}::text AS at FROM ${post}`);
        return BigInt(rows[0]?.at ?? -1);
      };
      // The writing transaction's id, read in the same transaction as the write.
      const write = (statement: ReturnType<typeof sql>) =>
        store.transaction(async (tx) => {
          await tx.query(statement);
          return BigInt((await tx.query<{ id: string }>(sql`SELECT pg_current_xact_id()::text AS id`)).rows[0]?.id ?? -2);
        });
      expect((await columnsOf(store, app, 'Post'))['tessera$linked']).toEqual({ type: 'xid8', nullable: true, default: 'pg_current_xact_id()' });
      // Tables without a relation column (Tag: a many-to-many only) and join tables have none.
      expect(Object.keys(await columnsOf(store, app, 'Tag'))).not.toContain('tessera$linked');
      expect(Object.keys(await columnsOf(store, app, 'PostLikes'))).not.toContain('tessera$linked');
      const [ann, bob] = [await user(store, app, 'ann'), await user(store, app, 'bob')];
      const made = await write(sql`INSERT INTO ${post} (title, "authorId") VALUES ('p', ${ann})`);
      expect(await linked()).toBe(made);
      await write(sql`UPDATE ${post} SET title = 'edited', "authorId" = ${ann}`);
      expect(await linked()).toBe(made);
      const handed = await write(sql`UPDATE ${post} SET "authorId" = ${bob}`);
      expect(handed).toBeGreaterThan(made);
      expect(await linked()).toBe(handed);
      await write(sql`UPDATE ${post} SET "authorId" = NULL`);
      expect(await linked()).toBe(handed);

      // A second relation column added, the first dropped: the trigger follows.
      const kinds = await migrateTestApp(
        store,
        app,
        BLOG.replace('author: User @relation(name: "PostAuthor")', 'editor: User @relation(name: "PostEditor")').replace(
          'posts: [Post] @relation(name: "PostAuthor")',
          'edits: [Post] @relation(name: "PostEditor")',
        ),
      );
      expect(kinds).toEqual(['dropRelation', 'addRelation']);
      expect(Object.keys(await columnsOf(store, app, 'Post'))).not.toContain('authorId');
      const edited = await write(sql`UPDATE ${post} SET "editorId" = ${ann}`);
      expect(await linked()).toBe(edited);
    });

    it('adds and drops join fields', async () => {
      const app = await createTestApp(
        store,
        `type User @model { friends: [User] @relation(name: "Friendship") }
         type Friendship @join(relation: "Friendship") { status: String  since: DateTime }`,
      );
      const [a, b] = [await user(store, app, 'a'), await user(store, app, 'b')];
      await insertRow(store, app, 'Friendship', { user1Id: a, user2Id: b, status: 'x' });
      const kinds = await migrateTestApp(
        store,
        app,
        `type User @model { friends: [User] @relation(name: "Friendship") }
         type Friendship @join(relation: "Friendship") { status: Int  closeness: Float @default(value: 0.5) }`,
      );
      expect(kinds).toEqual(['dropJoinField', 'dropJoinField', 'addJoinField', 'addJoinField']);
      const columns = await columnsOf(store, app, 'Friendship');
      expect([columns.status?.type, columns.closeness?.type, columns.since]).toEqual(['integer', 'double precision', undefined]);
      expect(await rowsOf(store, app, 'Friendship', ['status', 'closeness'])).toEqual([{ status: null, closeness: 0.5 }]);

      const err = await failure(
        migrateTestApp(
          store,
          app,
          `type User @model { friends: [User] @relation(name: "Friendship") }
           type Friendship @join(relation: "Friendship") { status: Int  closeness: Float @default(value: 0.5)  level: Int! }`,
        ),
      );
      expect(err).toBeInstanceOf(TesseraError);
      expect((err as TesseraError).message).toBe('Cannot add required field Friendship.level: Friendship already has rows; add @default(value: …)');
    });
  });
}
