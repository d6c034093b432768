// Bulk data for the data API benchmark, written straight into the app's tables with
// INSERT … SELECT generate_series (seconds, where the API would take minutes), then vacuumed
// and analysed so the planner and the visibility map see a settled database.

import pg from 'pg';
import { compile, ident, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { appSchemaName } from '../store/index.js';

export interface SeedSizes {
  users: number;
  posts: number;
  comments: number;
}

function sizeFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(n) || n < 100) throw new Error(`${name} must be an integer ≥ 100, got "${text}"`);
  return n;
}

export function seedSizes(): SeedSizes {
  return {
    users: sizeFromEnv('TESSERA_BENCH_USERS', 2_000),
    posts: sizeFromEnv('TESSERA_BENCH_POSTS', 200_000),
    comments: sizeFromEnv('TESSERA_BENCH_COMMENTS', 300_000),
  };
}

/** `ids[1 + floor(random() * n)]`: a random element of an array column aggregated once. */
function pick(ids: SqlFragment): SqlFragment {
  return sql`${ids}[1 + floor(random() * cardinality(${ids}))::int]`;
}

export async function seed(databaseUrl: string, appId: string, sizes: SeedSizes): Promise<void> {
  const table = (name: string) => ident(appSchemaName(appId), name);
  const users = sql`(SELECT array_agg(id) AS ids FROM ${table('User')}) u`;
  const posts = sql`(SELECT array_agg(id) AS ids FROM ${table('Post')}) p`;
  const statements: SqlFragment[] = [
    // One session, so the seeded random() makes the same data on every run.
    sql`SELECT setseed(0.42)`,
    sql`INSERT INTO ${table('User')} (username, password, "displayName")
        SELECT 'user' || g, 'not-a-password-hash', 'User ' || g FROM generate_series(1, ${sizes.users}::int) g`,
    sql`INSERT INTO ${table('Post')} (title, score, published, "authorId")
        SELECT 'Post number ' || g, floor(random() * 1000)::int, random() < 0.5, ${pick(sql`u.ids`)}
        FROM generate_series(1, ${sizes.posts}::int) g, ${users}`,
    sql`INSERT INTO ${table('Comment')} (text, "postId", "authorId")
        SELECT 'Comment number ' || g, ${pick(sql`p.ids`)}, ${pick(sql`u.ids`)}
        FROM generate_series(1, ${sizes.comments}::int) g, ${users}, ${posts}`,
    sql`VACUUM (ANALYZE) ${table('User')}, ${table('Post')}, ${table('Comment')}`,
  ];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const statement of statements) await client.query(compile(statement));
  } finally {
    await client.end();
  }
}
