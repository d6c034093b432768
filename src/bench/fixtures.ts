// Reads the benchmark's fixtures from the seeded database: random post and user ids, and a
// cursor near the end of the posts connection, taken from the API as a client would.

import type pg from 'pg';
import { encodeId } from '../compile/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';
import type { BenchApp } from './benchApp.js';
import { postJson } from './client.js';
import { LAST_PAGE_CURSORS } from './dataShapes.js';
import type { Fixtures, RowsToDelete } from './dataShapes.js';

async function randomIds(pool: pg.Pool, appId: string, type: string, n: number): Promise<string[]> {
  const statement = compile(sql`SELECT id FROM ${ident(appSchemaName(appId), type)} ORDER BY random() LIMIT ${n}::int`);
  const result = await pool.query<{ id: string }>(statement);
  return result.rows.map((r) => r.id);
}

interface CursorsReply {
  data?: { viewer: { allPosts: { edges: { cursor: string }[] } } };
}

async function deepCursor(app: BenchApp): Promise<string> {
  const reply = (await postJson(app.endpoint, app.token, LAST_PAGE_CURSORS, {})) as CursorsReply;
  const cursor = reply.data?.viewer.allPosts.edges[0]?.cursor;
  if (!cursor) throw new Error(`no cursor near the end of allPosts: ${JSON.stringify(reply)}`);
  return cursor;
}

export async function loadFixtures(pool: pg.Pool, app: BenchApp): Promise<Fixtures> {
  const posts = await randomIds(pool, app.id, 'Post', 1000);
  return {
    postIds: posts.map((uuid) => encodeId('Post', uuid)),
    postUuids: posts,
    userUuids: await randomIds(pool, app.id, 'User', 200),
    deepCursor: await deepCursor(app),
  };
}

/** A post's title, score and published flag as its table holds them; undefined when there is no such post. */
export async function storedPost(pool: pg.Pool, appId: string, uuid: string): Promise<[unknown, unknown, unknown] | undefined> {
  const statement = compile(sql`SELECT title, score, published FROM ${ident(appSchemaName(appId), 'Post')} WHERE id = ${uuid}::uuid`);
  const row = (await pool.query<{ title: unknown; score: unknown; published: unknown }>(statement)).rows[0];
  return row && [row.title, row.score, row.published];
}

/** Inserts `n` posts for a delete shape to take and returns their uuids. */
export async function postsToDelete(pool: pg.Pool, appId: string, n: number): Promise<string[]> {
  const table = ident(appSchemaName(appId), 'Post');
  const statement = compile(sql`INSERT INTO ${table} (title, score, published) SELECT 'To delete ' || g, g % 1000, true FROM generate_series(1, ${n}::int) g RETURNING id`);
  const ids = (await pool.query<{ id: string }>(statement)).rows.map((r) => r.id);
  await pool.query(compile(sql`ANALYZE ${table}`).text);
  return ids;
}

/**
 * Inserts `n` posts for the delete shape to take, a third each for the API, the direct server
 * and the driver, and returns their uuids in those three parts.
 */
export async function rowsToDelete(pool: pg.Pool, appId: string, n: number): Promise<RowsToDelete> {
  const ids = await postsToDelete(pool, appId, n);
  const third = Math.floor(ids.length / 3);
  return { api: ids.slice(0, third), server: ids.slice(third, 2 * third), driver: ids.slice(2 * third) };
}
