// Parse Server as a peer in the `peers` benchmark. Parse keeps its own table layout (text
// `objectId` keys, pointers as text columns, relations in join tables, its classes in
// `_SCHEMA`), and it needs a database of its own: its row-count estimate reads `pg_class` by
// table name alone, which the app's schema, with a table `Post` of its own, would confuse. So the
// peer gets a database, its classes made through its schema API, and a copy of the benchmark's
// rows: the same users, posts and comments, with objectIds numbered in the order of Tessera's
// uuids so that both servers page through the same rows in the same order, and the indexes
// Tessera's tables have. Requests use the master key, as Tessera's use an admin token.

import type pg from 'pg';
import { compile, ident, sql } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';
import { post, postJson } from './client.js';
import type { Credentials } from './client.js';
import { createBenchDatabase, directPool } from './database.js';
import { FILTER_MINIMA } from './dataShapes.js';
import type { Fixtures } from './dataShapes.js';
import { cycle, filteredRows, graphqlBody, installPackages, pageRows, peerModules, postRow, startPeerWorker, takeOnce } from './peers.js';
import type { Json, Peer, PeerContext, WrittenRow } from './peers.js';
import type { ParseWorkerData } from './parseWorker.js';

const PACKAGES = { 'parse-server': '9.10.0' } as const;

const APP_ID = 'bench';
const MASTER_KEY = 'bench-master-key';

/** The benchmark app's types as Parse classes (the user type as `Person`: Parse's `_User` is its own). */
const CLASSES: Record<string, Record<string, Json>> = {
  Person: { displayName: { type: 'String' } },
  Post: {
    title: { type: 'String', required: true },
    score: { type: 'Number' },
    published: { type: 'Boolean' },
    author: { type: 'Pointer', targetClass: 'Person' },
    comments: { type: 'Relation', targetClass: 'Comment' },
  },
  Comment: {
    text: { type: 'String', required: true },
    post: { type: 'Pointer', targetClass: 'Post' },
    author: { type: 'Pointer', targetClass: 'Person' },
  },
};

const GET_POST = `query GetPost($id: ID!) {
  post(id: $id) { objectId title score published }
}`;

const PAGE = `query PostPage($after: String) {
  posts(first: 20, after: $after, order: [objectId_ASC]) { edges { cursor node { objectId title score } } pageInfo { hasNextPage endCursor } }
}`;

const FILTERED = `query TopPosts($min: Float!) {
  posts(first: 20, where: { score: { greaterThanOrEqualTo: $min }, published: { equalTo: true } }, order: [score_DESC, objectId_DESC]) {
    edges { node { title author { displayName } comments(first: 3, order: [objectId_ASC]) { edges { node { text } } } } }
  }
}`;

/** The cursor of the row `skip` rows into the posts in order: Parse's cursors are offsets. */
const CURSOR_AT = `query CursorAt($skip: Int!) {
  posts(skip: $skip, first: 1, order: [objectId_ASC]) { edges { cursor } }
}`;

const CREATE = `mutation CreatePost($input: CreatePostInput!) {
  createPost(input: $input) { post { objectId title score published } }
}`;

const UPDATE = `mutation UpdatePost($input: UpdatePostInput!) {
  updatePost(input: $input) { post { objectId title score published } }
}`;

const DELETE = `mutation DeletePost($input: DeletePostInput!) {
  deletePost(input: $input) { post { objectId title score published } }
}`;

/** objectIds in the order of Tessera's uuids: a prefix and the row's rank in hexadecimal, 10 characters. */
function objectIds(prefix: string, table: string, schema: string) {
  return sql`SELECT id, ${prefix} || lpad(to_hex(row_number() OVER (ORDER BY id)), ${10 - prefix.length}::int, '0') AS oid FROM ${ident(schema, table)}`;
}

/** One table's rows from Tessera's as arrays, one per column, and the statement that inserts them into Parse's. */
interface Copy {
  read: ReturnType<typeof sql>;
  write: string;
}

function copies(schema: string): Copy[] {
  const users = objectIds('u', 'User', schema);
  const posts = objectIds('', 'Post', schema);
  const comments = objectIds('c', 'Comment', schema);
  const t = (name: string) => ident(schema, name);
  return [
    {
      read: sql`SELECT array_agg(u.oid) a1, array_agg(x."createdAt"::text) a2, array_agg(x."modifiedAt"::text) a3, array_agg(x."displayName") a4
        FROM ${t('User')} x JOIN (${users}) u USING (id)`,
      write: `INSERT INTO "Person" ("objectId", "createdAt", "updatedAt", "displayName") SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[])`,
    },
    {
      read: sql`SELECT array_agg(p.oid) a1, array_agg(x."createdAt"::text) a2, array_agg(x."modifiedAt"::text) a3, array_agg(x.title) a4,
          array_agg(x.score) a5, array_agg(x.published) a6, array_agg(u.oid) a7
        FROM ${t('Post')} x JOIN (${posts}) p USING (id) LEFT JOIN (${users}) u ON u.id = x."authorId"`,
      write: `INSERT INTO "Post" ("objectId", "createdAt", "updatedAt", title, score, published, author)
        SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::float8[], $6::boolean[], $7::text[])`,
    },
    {
      read: sql`SELECT array_agg(c.oid) a1, array_agg(x."createdAt"::text) a2, array_agg(x."modifiedAt"::text) a3, array_agg(x.text) a4,
          array_agg(p.oid) a5, array_agg(u.oid) a6
        FROM ${t('Comment')} x JOIN (${comments}) c USING (id) LEFT JOIN (${posts}) p ON p.id = x."postId" LEFT JOIN (${users}) u ON u.id = x."authorId"`,
      write: `INSERT INTO "Comment" ("objectId", "createdAt", "updatedAt", text, post, author)
        SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[], $6::text[])`,
    },
  ];
}

/** After the copy: the relation's join rows, the indexes Tessera's tables have (and the join table's by owner), fresh statistics. */
const AFTER_COPY = [
  `INSERT INTO "_Join:comments:Post" ("owningId", "relatedId") SELECT post, "objectId" FROM "Comment" WHERE post IS NOT NULL`,
  `CREATE INDEX ON "Post" (title)`,
  `CREATE INDEX ON "Post" (score)`,
  `CREATE INDEX ON "Post" (author, "objectId")`,
  `CREATE INDEX ON "Comment" (post, "objectId")`,
  `CREATE INDEX ON "Comment" (author, "objectId")`,
  `CREATE INDEX ON "_Join:comments:Post" ("owningId", "relatedId")`,
  `VACUUM ANALYZE`,
];

async function copyRows(from: pg.Pool, to: pg.Pool, schema: string): Promise<void> {
  for (const copy of copies(schema)) {
    const row = (await from.query<Record<string, unknown[]>>(compile(copy.read))).rows[0] ?? {};
    const columns = Object.keys(row).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
    await to.query(copy.write, columns.map((c) => row[c] ?? []));
  }
  for (const statement of AFTER_COPY) await to.query(statement);
}

/** The uuid ↔ objectId maps of the copied rows. */
async function idMaps(from: pg.Pool, schema: string) {
  const map = async (prefix: string, table: string) => {
    const rows = (await from.query<{ id: string; oid: string }>(compile(objectIds(prefix, table, schema)))).rows;
    return { oid: new Map(rows.map((r) => [r.id, r.oid])), uuid: new Map(rows.map((r) => [r.oid, r.id])) };
  };
  return { users: await map('u', 'User'), posts: await map('', 'Post') };
}

export async function startParse(context: PeerContext): Promise<Peer> {
  const modules = peerModules('parse-server');
  await installPackages(modules, PACKAGES);
  const db = await createBenchDatabase();
  const pool = directPool(db.url);
  let worker: Awaited<ReturnType<typeof startPeerWorker>> | undefined;
  try {
    const data: ParseWorkerData = { databaseUrl: db.url, modules, appId: APP_ID, masterKey: MASTER_KEY };
    // Parse's logger writes files into ./logs unless told otherwise before it loads.
    worker = await startPeerWorker(new URL('./parseWorker.js', import.meta.url), data, { PARSE_SERVER_LOGS_FOLDER: 'null' });
    const base = `http://127.0.0.1:${worker.port}`;
    const credentials: Credentials = { 'x-parse-application-id': APP_ID, 'x-parse-master-key': MASTER_KEY };
    for (const [className, fields] of Object.entries(CLASSES)) {
      const reply = await post(`${base}/parse/schemas/${className}`, credentials, JSON.stringify({ className, fields }));
      if (reply.status !== 200) throw new Error(`Parse Server refused the class ${className}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
    }
    const schema = appSchemaName(context.app.id);
    await copyRows(context.pool, pool, schema);
    const ids = await idMaps(context.pool, schema);
    const endpoint = `${base}/graphql`;
    const uuidOf = (oid: string) => ids.posts.uuid.get(oid) ?? `not a copied post: ${oid}`;
    const oidOf = (map: Map<string, string>, uuid: string) => {
      const oid = map.get(uuid);
      if (oid === undefined) throw new Error(`no Parse objectId for ${uuid}`);
      return oid;
    };
    const started = worker;
    return {
      name: `Parse Server ${PACKAGES['parse-server']}`,
      short: 'Parse',
      endpoint,
      credentials,
      thread: worker.thread,
      idField: 'objectId',
      database: db.name,
      async reads(fixtures: Fixtures) {
        const count = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM "Post"')).rows[0]?.n);
        // Tessera's deep page starts after the row 40 from the end; so does this one.
        const reply = (await postJson(endpoint, credentials, CURSOR_AT, { skip: count - 40 })) as { data?: { posts: { edges: { cursor: string }[] } } };
        const deepCursor = reply.data?.posts.edges[0]?.cursor;
        if (!deepCursor) throw new Error(`Parse Server gave no cursor near the end of posts: ${JSON.stringify(reply)}`);
        const page = (d: unknown) => pageRows((d as Json).posts, (n) => uuidOf(n.objectId));
        return {
          getPost: {
            query: GET_POST,
            variables: fixtures.postUuids.map((uuid) => ({ id: oidOf(ids.posts.oid, uuid) })),
            normalise: (d) => postRow(uuidOf((d as Json).post.objectId), (d as Json).post),
          },
          firstPage: { query: PAGE, variables: [{}], normalise: page },
          filtered: { query: FILTERED, variables: FILTER_MINIMA.map((min) => ({ min })), normalise: (d) => filteredRows((d as Json).posts, 'author', 'comments') },
          deepPage: { query: PAGE, variables: [{ after: deepCursor }], normalise: page },
        };
      },
      async writes(fixtures: Fixtures, deletes: number) {
        const user = cycle(fixtures.userUuids.map((uuid) => oidOf(ids.users.oid, uuid)));
        const postId = cycle(fixtures.postUuids.map((uuid) => oidOf(ids.posts.oid, uuid)));
        const toDelete = await pool.query<{ oid: string }>(
          `INSERT INTO "Post" ("objectId", "createdAt", "updatedAt", title, score, published)
           SELECT 'd' || lpad(to_hex(g), 9, '0'), now(), now(), 'To delete ' || g, g % 1000, true FROM generate_series(1, $1::int) g RETURNING "objectId" AS oid`,
          [deletes],
        );
        await pool.query('ANALYZE "Post"');
        const take = takeOnce(toDelete.rows.map((r) => r.oid), '(g) deletePost on Parse Server');
        return {
          createPost: {
            body: (i) => graphqlBody(CREATE, { input: { fields: { title: `Bench post ${i}`, score: i % 1000, published: true, author: { link: user(i) } } } }),
            field: 'createPost',
            payload: 'post',
          },
          updatePost: { body: (i) => graphqlBody(UPDATE, { input: { id: postId(i), fields: { score: i % 1000 } } }), field: 'updatePost', payload: 'post' },
          deletePost: { body: () => graphqlBody(DELETE, { input: { id: take() } }), field: 'deletePost', payload: 'post' },
        };
      },
      async stored(oid: string) {
        const row = (await pool.query<Json>('SELECT title, score, published FROM "Post" WHERE "objectId" = $1', [oid])).rows[0];
        return row && ([row.title, row.score, row.published] as WrittenRow);
      },
      async close() {
        await started.close();
        await pool.end();
        await db.drop();
      },
    };
  } catch (err) {
    await worker?.close().catch(() => undefined);
    await pool.end();
    await db.drop();
    throw err;
  }
}
