// The cost of users and rules: login throughput next to the bare Argon2id hash rate on the
// same machine, refresh-token rotation next to login, and one first page read three ways on
// PostgreSQL through the real server, in interleaved rounds: with an admin token, with user
// tokens (the same read, the same answer), and under a RELATION rule — as throughput and as
// CPU per request (server thread and database backends), which a shared machine blurs less.

import { parse } from 'graphql';
import type pg from 'pg';
import { hashPassword } from '../accounts/index.js';
import { planQuery } from '../compile/index.js';
import type { AppContext } from '../compile/index.js';
import { appSchemaName } from '../store/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { appContext } from './benchApp.js';
import { startBenchServer } from './benchServer.js';
import { post, postJson } from './client.js';
import { cpuWindow } from './cpu.js';
import { createBenchDatabase, directPool } from './database.js';
import { explainSummary } from './explain.js';
import { load, row } from './measure.js';
import type { Measured } from './measure.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true) {
  docs: [Doc] @relation(name: "DocOwner")
  opens: [Open] @relation(name: "OpenOwner")
}
type Doc @model @permission(scope: RELATION, userFields: ["owner"], read: true) {
  title: String!
  owner: User @relation(name: "DocOwner")
}
type Open @model @permission(scope: EVERYONE, read: true) {
  title: String!
  owner: User @relation(name: "OpenOwner")
}
`;

const USERS = 100;
const ROWS = 50_000;
const SECONDS = Number(process.env.TESSERA_BENCH_SECONDS ?? 5);
/** Rounds of the three reads, taken in turn; each gets SECONDS in all. */
const ROUNDS = 6;

interface Json {
  data?: Record<string, Record<string, unknown>>;
  errors?: unknown[];
}

/**
 * The RELATION-ruled page as a user's query compiles it, with the app-admin arm in the statement
 * and the role checked beside it (`rules`: what an app admin runs, and any user whose instance
 * does not know yet that they are not one) and without either (`nonAdmin`: every other user):
 * EXPLAIN ANALYZE as planned for the values, and as a prepared statement under a forced generic
 * plan (what a named statement falls into after five runs when that looks cheaper).
 */
async function explainRuled(pool: pg.Pool, app: AppContext, query: string, userId: string): Promise<void> {
  for (const variant of ['rules', 'nonAdmin'] as const) {
    const [planned] = planQuery({ app, document: parse(query), query, admin: false, userId, variant });
    if (planned?.text === undefined || planned.values === undefined) throw new Error(`no statement for ${variant}: ${String(planned?.error)}`);
    console.log(`RELATION-ruled page, ${variant} statement, EXPLAIN (ANALYZE, BUFFERS):`);
    for (const line of await explainSummary(pool, { text: planned.text, values: planned.values })) console.log(`  ${line}`);
    const client = await pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE ruled AS ${planned.text}`);
      const args = planned.values.map((v) => (v === null ? 'NULL' : `'${String(Array.isArray(v) ? `{${v.join(',')}}` : v).replace(/'/g, "''")}'`)).join(', ');
      const generic = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE) EXECUTE ruled(${args})`);
      console.log(`  forced generic plan:`);
      for (const line of generic.rows.map((r) => r['QUERY PLAN']).filter((l) => /Scan|Planning Time|Execution Time/.test(l))) console.log(`    ${line.replace(/\s+\(cost=[^)]*\)/, '')}`);
    } finally {
      await client.query('DEALLOCATE ALL').catch(() => undefined);
      await client.query('RESET plan_cache_mode').catch(() => undefined);
      client.release();
    }
  }
}

/** Rounds of one measure as one: requests over their whole time; p50 and p95 are the rounds' own, averaged by requests. */
function merged(runs: readonly Measured[]): Measured {
  const n = runs.reduce((sum, r) => sum + r.n, 0);
  const seconds = runs.reduce((sum, r) => sum + r.n / r.opsPerSec, 0);
  const weighted = (pick: (r: Measured) => number) => runs.reduce((sum, r) => sum + pick(r) * r.n, 0) / n;
  return { n, opsPerSec: n / seconds, p50: weighted((r) => r.p50), p95: weighted((r) => r.p95) };
}

export async function authSection(): Promise<void> {
  console.log(`Users and rules on PostgreSQL: ${USERS} users, ${ROWS.toLocaleString('en')} rows per type; ${SECONDS} s per run\n`);
  row('Argon2id hash (19 MiB, t=2, p=1), 4 in flight', await load(() => hashPassword('correct horse battery staple'), { concurrency: 4, ms: SECONDS * 1000 }));

  const db = await createBenchDatabase();
  const server = await startBenchServer(db.url, 'warn');
  try {
    const adminUrl = `${server.base}/admin/graphql`;
    const created = (await postJson(adminUrl, server.key, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'rules', schema: SCHEMA } })) as Json;
    const appId = String((created.data?.createApp?.app as { id: string }).id);
    const url = `${server.base}/graphql/${appId}`;
    const tokens: string[] = [];
    /** Each user's session, free for the next refresh (a session refreshes one request at a time). */
    const sessions: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const reply = (await postJson(url, '', 'mutation($i: CreateUserInput!) { createUser(input: $i) { token refreshToken } }', { i: { username: `user${i}`, password: 'correct horse battery staple' } })) as Json;
      tokens.push(String(reply.data?.createUser?.token));
      sessions.push(String(reply.data?.createUser?.refreshToken));
    }
    const pool = directPool(db.url, 2);
    try {
      const schema = appSchemaName(appId);
      for (const table of ['Doc', 'Open']) {
        const statement = sql`INSERT INTO ${ident(schema, table)} (title, "ownerId")
          SELECT 'row ' || g, (SELECT id FROM ${ident(schema, 'User')} ORDER BY id OFFSET (g % ${USERS}) LIMIT 1) FROM generate_series(1, ${ROWS}) g`;
        const { text, values } = compile(statement);
        await pool.query(text, values);
      }
      await pool.query('VACUUM ANALYZE');
      const someUser = await pool.query<{ id: string }>(compile(sql`SELECT id FROM ${ident(schema, 'User')} ORDER BY id LIMIT 1`));
      await explainRuled(pool, await appContext(db.url, appId), '{ viewer { allDocs(first: 20) { edges { node { id title } } } } }', String(someUser.rows[0]?.id));
    } finally {
      await pool.end();
    }

    const login = JSON.stringify({ query: 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }' });
    const loginBody = (i: number) => JSON.stringify({ ...JSON.parse(login), variables: { i: { username: `user${i % USERS}`, password: 'correct horse battery staple' } } });
    const check = async (reply: Promise<{ status: number; text: string }>) => {
      const r = await reply;
      if (r.status !== 200 || r.text.includes('"errors"')) throw new Error(`unexpected reply ${r.status} ${r.text.slice(0, 300)}`);
    };
    const logins = await load((i) => check(post(url, '', loginBody(i))), { concurrency: 4, ms: SECONDS * 1000 });
    row('loginUser over HTTP, 4 in flight', logins);

    const refreshQuery = 'mutation($i: RefreshUserTokenInput!) { refreshUserToken(input: $i) { token refreshToken } }';
    const rotate = async () => {
      const refreshToken = sessions.shift();
      if (refreshToken === undefined) throw new Error('no free session');
      const r = await post(url, '', JSON.stringify({ query: refreshQuery, variables: { i: { refreshToken } } }));
      const next = (JSON.parse(r.text) as Json).data?.refreshUserToken?.refreshToken;
      if (r.status !== 200 || typeof next !== 'string') throw new Error(`unexpected reply ${r.status} ${r.text.slice(0, 300)}`);
      sessions.push(next);
    };
    const refreshes = await load(rotate, { concurrency: 16, ms: SECONDS * 1000 });
    row('refreshUserToken (rotation) over HTTP, 16 in flight', refreshes);
    console.log(`refreshUserToken / loginUser: ${(refreshes.opsPerSec / logins.opsPerSec).toFixed(1)}`);

    const adminToken = String(
      ((await postJson(`${server.base}/admin/graphql`, server.key, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId, name: 'bench' } })) as Json).data
        ?.createAdminToken?.token,
    );
    const page = (field: string) => JSON.stringify({ query: `{ viewer { ${field}(first: 20) { edges { node { id title } } } } }` });
    // The same answer for both callers, checked before anything is timed.
    const [byAdmin, byUser] = await Promise.all([post(url, adminToken, page('allOpens')), post(url, tokens[0] as string, page('allOpens'))]);
    if (byAdmin.status !== 200 || byAdmin.text !== byUser.text) throw new Error(`admin and user answers differ: ${byAdmin.text.slice(0, 200)} / ${byUser.text.slice(0, 200)}`);
    // Interleaved rounds, so that a machine whose load changes during the run weighs on each alike.
    const shapes = {
      admin: () => check(post(url, adminToken, page('allOpens'))),
      user: (i: number) => check(post(url, tokens[i % USERS] as string, page('allOpens'))),
      rules: (i: number) => check(post(url, tokens[i % USERS] as string, page('allDocs'))),
    };
    type Shape = keyof typeof shapes;
    const runs: Record<Shape, Measured[]> = { admin: [], user: [], rules: [] };
    /** CPU seconds the server thread and the database's backends spent on each shape. */
    const cpu: Record<Shape, { server: number; postgres: number }> = { admin: { server: 0, postgres: 0 }, user: { server: 0, postgres: 0 }, rules: { server: 0, postgres: 0 } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const shape of Object.keys(shapes) as Shape[]) {
        const end = cpuWindow({ database: db.name, serverThread: server.thread });
        runs[shape].push(await load(shapes[shape], { concurrency: 16, ms: (SECONDS * 1000) / ROUNDS }));
        const spent = end();
        cpu[shape].server += spent.server;
        cpu[shape].postgres += spent.postgres;
      }
    }
    const [admin, user, rules] = [merged(runs.admin), merged(runs.user), merged(runs.rules)];
    row('first page, no rule, admin token, 16 in flight', admin);
    row('first page, no rule, user token, 16 in flight', user);
    row('first page, RELATION rule, user token, 16 in flight', rules);
    // CPU per request: what the machine's other load cannot blur (it takes time, not CPU, from the server).
    const perRequest = (shape: Shape, m: Measured) => ({ server: (cpu[shape].server / m.n) * 1e6, postgres: (cpu[shape].postgres / m.n) * 1e6 });
    for (const [shape, m] of [['admin', admin], ['user', user], ['rules', rules]] as const) {
      const c = perRequest(shape, m);
      console.log(`CPU per request, ${shape.padEnd(5)}: server ${c.server.toFixed(0).padStart(5)} µs, PostgreSQL ${c.postgres.toFixed(0).padStart(5)} µs`);
    }
    const cost = (shape: Shape, m: Measured) => {
      const c = perRequest(shape, m);
      return c.server + c.postgres;
    };
    console.log(`user token / admin token: ${(user.opsPerSec / admin.opsPerSec).toFixed(2)} (throughput), ${(cost('admin', admin) / cost('user', user)).toFixed(2)} (CPU per request)`);
    console.log(`RELATION rule / no rule (user token): ${(rules.opsPerSec / user.opsPerSec).toFixed(2)} (throughput), ${(cost('user', user) / cost('rules', rules)).toFixed(2)} (CPU per request)`);
  } finally {
    await server.close();
    await db.drop();
  }
}
