// The cost of users and rules: login throughput next to the bare Argon2id hash rate on the
// same machine, refresh-token rotation next to login, and a first page read under a RELATION
// rule next to the same read of a type everyone may read, on PostgreSQL through the real server.

import { hashPassword } from '../accounts/index.js';
import { appSchemaName } from '../store/index.js';
import { compile, ident, sql } from '../sql/index.js';
import { startBenchServer } from './benchServer.js';
import { post, postJson } from './client.js';
import { createBenchDatabase, directPool } from './database.js';
import { load, row } from './measure.js';

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

interface Json {
  data?: Record<string, Record<string, unknown>>;
  errors?: unknown[];
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

    const page = (field: string) => JSON.stringify({ query: `{ viewer { ${field}(first: 20) { edges { node { id title } } } } }` });
    const open = await load((i) => check(post(url, tokens[i % USERS] as string, page('allOpens'))), { concurrency: 16, ms: SECONDS * 1000 });
    const rules = await load((i) => check(post(url, tokens[i % USERS] as string, page('allDocs'))), { concurrency: 16, ms: SECONDS * 1000 });
    row('first page, type everyone may read, 16 in flight', open);
    row('first page under a RELATION rule, 16 in flight', rules);
    console.log(`RELATION rule / no rule: ${(rules.opsPerSec / open.opsPerSec).toFixed(2)}`);
  } finally {
    await server.close();
    await db.drop();
  }
}
