// The benchmark's app: its schema, created through the management API with an admin token,
// and the compiler context the direct-SQL baseline plans its statements with.

import { AppContext } from '../compile/index.js';
import { appSchema } from '../graphql/index.js';
import { withDefaults } from '../model/index.js';
import { findApp, liveSchema, openStore } from '../store/index.js';
import type { BenchServer } from './benchServer.js';
import { postJson } from './client.js';

export const BENCH_SCHEMA = `
type User @model {
  displayName: String
  posts: [Post] @relation(name: "PostAuthor")
  comments: [Comment] @relation(name: "CommentAuthor")
}

type Post @model {
  title: String! @index
  score: Int @index
  published: Boolean
  author: User @relation(name: "PostAuthor")
  comments: [Comment] @relation(name: "PostComments")
}

type Comment @model {
  text: String!
  post: Post @relation(name: "PostComments")
  author: User @relation(name: "CommentAuthor")
}
`;

export interface BenchApp {
  id: string;
  token: string;
  endpoint: string;
}

interface AdminReply<T> {
  data?: T;
  errors?: unknown[];
}

async function manage<T>(server: BenchServer, query: string, variables: Record<string, unknown>): Promise<T> {
  const reply = (await postJson(`${server.base}/admin/graphql`, server.key, query, variables)) as AdminReply<T>;
  if (reply.errors || !reply.data) throw new Error(`management API: ${JSON.stringify(reply.errors)}`);
  return reply.data;
}

export async function createBenchApp(server: BenchServer): Promise<BenchApp> {
  const created = await manage<{ createApp: { app: { id: string; endpoint: string } } }>(
    server,
    'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id endpoint } } }',
    { i: { name: 'bench', schema: BENCH_SCHEMA } },
  );
  const id = created.createApp.app.id;
  const issued = await manage<{ createAdminToken: { token: string } }>(
    server,
    'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }',
    { i: { appId: id, name: 'bench' } },
  );
  return { id, token: issued.createAdminToken.token, endpoint: `${server.base}/graphql/${id}` };
}

/** The app's compiler context, built as the server's app registry builds it. */
export async function appContext(databaseUrl: string, appId: string): Promise<AppContext> {
  const store = await openStore({ databaseUrl });
  try {
    const row = await findApp(store, appId);
    const live = await liveSchema(store, appId);
    if (!row || !live) throw new Error(`app ${appId} is not in the catalog`);
    const schema = appSchema(appId, live.version, live.model);
    return new AppContext({ id: appId, version: live.version, model: live.model, settings: withDefaults(row.settings), schema });
  } finally {
    await store.close();
  }
}
