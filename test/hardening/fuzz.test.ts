// Property-based fuzzing of the data API over HTTP, on both stores: random valid app schemas,
// random valid operations built from each app's introspected API, and random invalid requests
// (wrong types, huge and odd strings, deep nesting, mangled documents and envelopes, garbage
// credentials), as the admin, anonymously, and a few at once. No reply may be a 5xx or carry an
// INTERNAL or unmasked error, the server must stay up, and its heap must come back to its level
// (give or take the bounded schema cache).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import type { GraphQLSchema, IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { Choose, warmUpArbitraries } from './fuzz/choose.js';
import { Tally, checkReply } from './fuzz/checks.js';
import type { Reply } from './fuzz/checks.js';
import { invalidRequest, postRequest } from './fuzz/invalidGen.js';
import type { FuzzRequest } from './fuzz/invalidGen.js';
import { IdPool, randomOperation } from './fuzz/operationGen.js';
import { randomSchema } from './fuzz/schemaGen.js';

/** Schemas per store, and requests per schema (TESSERA_FUZZ_RUNS / TESSERA_FUZZ_REQUESTS). */
const RUNS = Number(process.env.TESSERA_FUZZ_RUNS ?? 20);
const REQUESTS = Number(process.env.TESSERA_FUZZ_REQUESTS ?? 40);
/**
 * How far the heap may stay above its level once the apps are deleted and garbage is collected.
 * What stays is the GraphQL schema cache (src/graphql/schemaCache.ts): it keeps the schemas of
 * the last 200 app versions, deleted apps' included, about 0.4 MiB each here; anything growing
 * per request would show far beyond that.
 */
const HEAP_SLACK_BYTES = (8 + 0.75 * RUNS) * 1024 * 1024;

/** The garbage collector, exposed at run time (vitest's workers are not started with --expose-gc). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return process.memoryUsage().heapUsed;
}

/** Header values must be ByteStrings for fetch; the server sees the same bytes a client could send. */
function byteString(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}

async function send(endpoint: string, request: FuzzRequest): Promise<Reply> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, byteString(v)]));
  const response = await fetch(`${endpoint}${request.search ?? ''}`, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

async function manage(server: TestServer, query: string, variables: Record<string, unknown>): Promise<Record<string, any>> {
  const reply = await admin(server, query, variables);
  if (reply.body.errors) throw new Error(`management API: ${JSON.stringify(reply.body.errors)}`);
  return reply.body.data as Record<string, any>;
}

interface FuzzApp {
  id: string;
  endpoint: string;
  token: string;
  schema: GraphQLSchema;
}

async function createApp(server: TestServer, sdl: string): Promise<FuzzApp> {
  const name = `fuzz${Math.random().toString(36).slice(2, 10)}`;
  const reply = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name, schema: sdl } });
  if (reply.body.errors) throw new Error(`a generated schema was refused: ${JSON.stringify(reply.body.errors)}\n${sdl}`);
  const id = reply.body.data.createApp.app.id as string;
  const issued = await manage(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: id, name: 'fuzz' } });
  const endpoint = `${server.base}/graphql/${id}`;
  const token = issued.createAdminToken.token as string;
  const introspection = await send(endpoint, postRequest('introspection', { query: getIntrospectionQuery() }, token));
  const schema = buildClientSchema((JSON.parse(introspection.text) as { data: IntrospectionQuery }).data);
  return { id, endpoint, token, schema };
}

/** One property run: a random schema, its app, random requests against it, the app deleted. */
async function fuzzOneApp(server: TestServer, c: Choose, tally: Tally): Promise<void> {
  const spec = randomSchema(c);
  const app = await createApp(server, spec.sdl);
  const ids = new IdPool();
  try {
    // A few objects first, so that ids in later operations can name real ones.
    for (let i = 0; i < 4; i++) {
      const request = postRequest('valid', randomOperation(c, app.schema, ids, true), app.token);
      ids.add((checkReply(request, await send(app.endpoint, request), tally) as { data?: unknown }).data);
    }
    for (let sent = 4; sent < REQUESTS; ) {
      // Mostly one at a time, sometimes a few at once (the embedded store serialises them).
      const batch = c.chance(0.2) ? c.int(2, 4) : 1;
      const requests = Array.from({ length: batch }, () => {
        const operation = randomOperation(c, app.schema, ids);
        if (c.chance(0.45)) return invalidRequest(c, app.schema, operation, app.token);
        const anonymous = c.chance(0.25);
        return postRequest(anonymous ? 'valid, anonymous' : 'valid', operation, anonymous ? undefined : app.token);
      });
      const replies = await Promise.all(requests.map((r) => send(app.endpoint, r)));
      replies.forEach((reply, i) => ids.add((checkReply(requests[i] as FuzzRequest, reply, tally) as { data?: unknown }).data));
      sent += batch;
    }
  } finally {
    await manage(server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: app.id } });
  }
}

describe.each(STORE_KINDS)('fuzzing the data API (%s store)', (kind) => {
  let server: TestServer;
  const errorLines: string[] = [];

  beforeAll(async () => {
    // Only errors are kept: a log of every request would itself grow the heap being watched.
    server = await startTestServer(kind, { logLevel: 'error', logDestination: { write: (line) => void errorLines.push(line.slice(0, 4000)) } });
  });
  afterAll(async () => {
    // What the server logged about a failure is the first thing to read when one is found.
    if (errorLines.length > 0) console.log(`server errors (${kind}):\n${errorLines.join('\n')}`);
    await server?.close();
  });

  it('answers random valid and invalid operations of random schemas without a 5xx or an unmasked error, and stays up', async () => {
    const gc = collector();
    const tally = new Tally();
    // A first app warms up what is built once per process (schemas, compiled rules, pools).
    warmUpArbitraries();
    await fc.assert(fc.asyncProperty(fc.gen(), (g) => fuzzOneApp(server, new Choose(g), new Tally())), { numRuns: 1, endOnFailure: true });
    const before = await settledHeap(gc);
    const started = performance.now();
    await fc.assert(fc.asyncProperty(fc.gen(), (g) => fuzzOneApp(server, new Choose(g), tally)), { numRuns: RUNS, endOnFailure: true });
    const seconds = (performance.now() - started) / 1000;
    const after = await settledHeap(gc);
    console.log(
      `fuzz (${kind}): ${RUNS} schemas in ${seconds.toFixed(1)} s; ${tally.summary()}; ` +
        `heap after GC ${(before / 2 ** 20).toFixed(1)} MiB before, ${(after / 2 ** 20).toFixed(1)} MiB after; rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(errorLines).toEqual([]);
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    // The generator reaches the success path too, not only refusals. Runs are seeded at random:
    // 14–18 % of requests answered cleanly in recent runs, so the bound leaves room below that.
    expect(tally.clean).toBeGreaterThan(tally.requests * 0.08);
    expect(after - before).toBeLessThan(HEAP_SLACK_BYTES);
  }, 240_000);
});
