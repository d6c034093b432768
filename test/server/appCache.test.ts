// The app cache on both stores: with a budget that holds one app, many apps answer in turn and
// the ones let go are loaded again unseen; an app let go while its request waits on a function
// still answers that request; apps of one schema share it (and its validated documents) without
// seeing each other's data or limits; schema changes reach a cached app at once; the metrics
// count apps, schemas, loads and evictions.

import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/model/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { admin, startTestServer } from './harness.js';
import type { Json, TestServer } from './harness.js';

const NOTES = 'type Note @model { text: String! }';
const NOTES_AND_EXTRA = `${NOTES}\ntype Extra @model { n: Int }`;
const ALL_NOTES = '{ viewer { allNotes { edges { node { text } } } } }';
const CREATE_NOTE = 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { id } } }';

const codeOf = (body: Json): string | undefined => body.errors?.[0]?.extensions?.code;

/** The server's app cache figures from /metrics. */
async function cacheMetrics(server: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^tessera_app_cache_(\w+) (\S+)$/gm)) out[m[1] as string] = Number(m[2]);
  return out;
}

async function textsOf(app: TestApp): Promise<string[]> {
  const data = await app.data(ALL_NOTES);
  return data.viewer.allNotes.edges.map((e: Json) => e.node.text);
}

/** An app's endpoint for a RESOLVER function that holds each call until the test answers it. */
class HeldEndpoint {
  readonly #waiting: ServerResponse[] = [];
  readonly #arrivals: (() => void)[] = [];
  #server: Server | undefined;

  static async start(): Promise<HeldEndpoint> {
    const endpoint = new HeldEndpoint();
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        endpoint.#waiting.push(response);
        endpoint.#arrivals.shift()?.();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    endpoint.#server = server;
    return endpoint;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server?.address() as AddressInfo).port}/resolve`;
  }

  /** Resolves once a call is waiting. */
  arrived(): Promise<void> {
    if (this.#waiting.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.#arrivals.push(resolve));
  }

  answer(json: unknown): void {
    this.#waiting.shift()?.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

describe.each(STORE_KINDS)('the app cache, with room for one app (%s)', (kind) => {
  let server: TestServer;
  const apps: { app: TestApp; text: string }[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { appCacheBytes: 1, functions: { secrets: new SecretBox(generateSecretKey()), allowPrivate: true } });
    for (let i = 0; i < 6; i++) {
      const app = await createTestApp(server, i % 2 === 0 ? NOTES : NOTES_AND_EXTRA);
      const text = `note of app ${i}`;
      await app.data(CREATE_NOTE, { t: text });
      apps.push({ app, text });
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers many apps in turn, each with its own data, loading again the ones it let go', async () => {
    const before = await cacheMetrics(server);
    for (let round = 0; round < 2; round++) {
      for (const { app, text } of apps) expect(await textsOf(app)).toEqual([text]);
    }
    const after = await cacheMetrics(server);
    // Every request found the app it asked for let go by the one before: twelve loads, and as many evictions.
    expect(after.loads_total! - before.loads_total!).toBe(12);
    expect(after.evictions_total! - before.evictions_total!).toBe(12);
    expect(after.apps).toBe(1);
    expect(after.schemas).toBe(1);
    expect(after.bytes).toBeGreaterThan(0);
    // The same app twice in a row is served from the cache.
    const last = apps[apps.length - 1]!.app;
    const loads = (await cacheMetrics(server)).loads_total!;
    await textsOf(last);
    expect((await cacheMetrics(server)).loads_total).toBe(loads);
  });

  it('answers a request whose app was let go while the request waited on a function', async () => {
    const endpoint = await HeldEndpoint.start();
    try {
      const { app } = apps[0]!;
      const created = await admin(server, 'mutation($i: CreateFunctionInput!) { createFunction(input: $i) { secret } }', { i: { appId: app.id, name: 'r', kind: 'RESOLVER', url: endpoint.url } });
      expect(created.body.errors).toBeUndefined();
      await app.migrate(`${NOTES}\nextend type Query { held: Note @function(name: "r") }`);
      const noteId = (await app.data(CREATE_NOTE, { t: 'read after the wait' })).createNote.changedNote.id;

      const pending = app.gql('{ held { id text } }');
      await endpoint.arrived();
      const evictions = (await cacheMetrics(server)).evictions_total!;
      // Other apps' requests let the waiting app go; a catalog change of it forgets it too.
      for (const { app: other, text } of apps.slice(1, 3)) expect(await textsOf(other)).toEqual([text]);
      expect((await cacheMetrics(server)).evictions_total).toBeGreaterThan(evictions);
      expect((await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: app.id, settings: { maxDepth: 20 } } })).body.errors).toBeUndefined();
      endpoint.answer({ data: { id: noteId } });
      // The @model result is read after the wait, with the app version the request started with.
      expect((await pending).body).toEqual({ data: { held: { id: noteId, text: 'read after the wait' } } });
      // And the next request loads the app again, with its custom field.
      const next = app.gql('{ held { text } }');
      await endpoint.arrived();
      endpoint.answer({ data: { id: noteId } });
      expect((await next).body).toEqual({ data: { held: { text: 'read after the wait' } } });
    } finally {
      await endpoint.close();
    }
  });
});

describe.each(STORE_KINDS)('apps sharing a schema in the app cache (%s)', (kind) => {
  let server: TestServer;
  let a: TestApp;
  let b: TestApp;
  let aNote = '';

  beforeAll(async () => {
    server = await startTestServer(kind);
    a = await createTestApp(server, NOTES);
    b = await createTestApp(server, NOTES);
    aNote = (await a.data(CREATE_NOTE, { t: 'only in a' })).createNote.changedNote.id;
    await b.data(CREATE_NOTE, { t: 'only in b' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('shares one schema between apps of the same model, and never their data', async () => {
    expect(await textsOf(a)).toEqual(['only in a']);
    expect(await textsOf(b)).toEqual(['only in b']);
    const metrics = await cacheMetrics(server);
    expect(metrics.apps).toBe(2);
    expect(metrics.schemas).toBe(1);
    // An id of one app's row names nothing in the other, though the document and schema are the same.
    const get = 'query($id: ID!) { getNote(id: $id) { text } }';
    expect((await a.data(get, { id: aNote })).getNote).toEqual({ text: 'only in a' });
    expect((await b.gql(get, { id: aNote })).body.data.getNote).toBeNull();
  });

  it('does not let a document validated for one app past the stricter limits of another', async () => {
    const deep = '{ viewer { allNotes { edges { node { text } } } } }';
    expect((await a.gql(deep)).body.errors).toBeUndefined();
    const set = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: b.id, settings: { maxDepth: 3 } } });
    expect(set.body.errors).toBeUndefined();
    const refused = await b.gql(deep);
    expect(codeOf(refused.body)).toBe('LIMIT_EXCEEDED');
    expect(refused.body.data).toBeUndefined();
    // The first app still runs it, from the documents it validated.
    expect((await a.gql(deep)).body.errors).toBeUndefined();
    const reset = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: b.id, settings: { maxDepth: DEFAULT_SETTINGS.maxDepth } } });
    expect(reset.body.errors).toBeUndefined();
    expect(await textsOf(b)).toEqual(['only in b']);
  });

  it('gives a migrated app its new schema at once, and leaves the apps that shared the old one on it', async () => {
    await a.migrate(NOTES_AND_EXTRA);
    const extra = '{ viewer { allExtras { edges { node { n } } } } }';
    expect((await a.gql(extra)).body).toEqual({ data: { viewer: { allExtras: { edges: [] } } } });
    const refused = await b.gql(extra);
    expect(codeOf(refused.body)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await textsOf(b)).toEqual(['only in b']);
    // Both loaded, each on its own schema. The catalog's notification of the migration may come
    // after the requests above and unload the migrated app once more: ask for both until it has.
    const deadline = Date.now() + 5_000;
    let schemas = 0;
    while (schemas !== 2 && Date.now() < deadline) {
      expect((await a.gql(extra)).body.errors).toBeUndefined();
      expect(codeOf((await b.gql(extra)).body)).toBe('GRAPHQL_VALIDATION_FAILED');
      schemas = (await cacheMetrics(server)).schemas ?? 0;
    }
    expect(schemas).toBe(2);
  });
});
