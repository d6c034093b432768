// A real server with one app of a given schema and an admin token for it: what the data API
// tests talk to, over HTTP, as a client would.

import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import type { StoreKind } from '../helpers/stores.js';

export { STORE_KINDS } from '../server/harness.js';
export type { Json } from '../server/harness.js';

export interface GraphQLResult {
  status: number;
  body: Json;
}

export interface TestApp {
  id: string;
  token: string;
  endpoint: string;
  server: TestServer;
  /** POSTs an operation with the admin token (or the given headers). */
  gql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphQLResult>;
  /** Like gql, but fails the test on any error and returns `data`. */
  data(query: string, variables?: Record<string, unknown>): Promise<Json>;
  /** Pushes a new schema version. */
  migrate(schema: string, allowDestructive?: boolean): Promise<void>;
}

export async function createTestApp(server: TestServer, schema: string, name = `app${Math.random().toString(36).slice(2, 10)}`): Promise<TestApp> {
  const created = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id endpoint } } }', { i: { name, schema } });
  if (created.body.errors) throw new Error(`createApp failed: ${JSON.stringify(created.body.errors)}`);
  return testAppOf(server, created.body.data.createApp.app.id as string);
}

/** An existing app (made by createApp, forkApp or an import) as tests use it, with an admin token of its own. */
export async function testAppOf(server: TestServer, id: string): Promise<TestApp> {
  const tokenReply = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: id, name: 'tests' } });
  const token: string = tokenReply.body.data.createAdminToken.token;
  const endpoint = `${server.base}/graphql/${id}`;
  const gql = async (query: string, variables: Record<string, unknown> = {}, headers?: Record<string, string>): Promise<GraphQLResult> => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(headers ?? { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  return {
    id,
    token,
    endpoint,
    server,
    gql,
    async data(query, variables) {
      const reply = await gql(query, variables);
      if (reply.body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(reply.body.errors)}`);
      return reply.body.data;
    },
    async migrate(schema, allowDestructive = false) {
      const reply = await admin(server, 'mutation($i: MigrateSchemaInput!) { migrateSchema(input: $i) { applied } }', { i: { appId: id, schema, allowDestructive } });
      if (reply.body.errors) throw new Error(`migrateSchema failed: ${JSON.stringify(reply.body.errors)}`);
    },
  };
}

/** `create<type>(input)` with the app's admin token; resolves to the new object's id. */
export async function createObject(app: TestApp, type: string, input: Record<string, unknown>): Promise<string> {
  const data = await app.data(`mutation($i: Create${type}Input!) { create${type}(input: $i) { changed${type} { id } } }`, { i: input });
  return data[`create${type}`][`changed${type}`].id as string;
}

/** `update<type>(input)` with the app's admin token. */
export async function updateObject(app: TestApp, type: string, input: Record<string, unknown>): Promise<void> {
  await app.data(`mutation($i: Update${type}Input!) { update${type}(input: $i) { changed${type} { id } } }`, { i: input });
}

/** `delete<type>(input: { id })` with the app's admin token. */
export async function deleteObject(app: TestApp, type: string, id: string): Promise<void> {
  await app.data(`mutation($i: Delete${type}Input!) { delete${type}(input: $i) { changed${type} { id } } }`, { i: { id } });
}

export async function startApiServer(kind: StoreKind): Promise<TestServer> {
  return startTestServer(kind);
}
