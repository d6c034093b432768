// What `tessera serve` loads: modules only some servers need (Fastify's schema compilers and
// Ajv, response compression, the mail client, OpenTelemetry's propagator) are loaded when first
// used, so a server that needs none of them starts without them. Read from Node's own record of
// the modules it loads (NODE_DEBUG=module,esm) while the server answers queries and writes.
// Fastify's default compilers, loaded on first use, still validate and serialise a route that
// declares schemas. Not test/cli/recordModules.mjs: its resolve hook sees only ESM imports on
// Node 20, and Ajv is loaded by Fastify's own `require` calls.

import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazySchemaCompilers } from '../../src/server/plugins/schemaCompilers.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { cleanEnv, startServe } from '../cli/run.js';
import type { ServeChild } from '../cli/run.js';

const ADMIN_KEY = 'startup-modules-admin-key-0123456789';

/** Packages a server that sends no mail, compresses nothing and traces nothing must not load. */
const NOT_LOADED = ['node_modules/ajv/', 'node_modules/@fastify/ajv-compiler/', 'node_modules/nodemailer/', 'node_modules/@fastify/compress/', 'node_modules/@opentelemetry/core/'];

describe.runIf(STORES.includes('postgres'))('modules a server loads (postgres)', () => {
  let dir: string;
  let database: TestStore;
  let serve: ServeChild | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-modules-'));
    database = await openTestStore('postgres', { catalog: false });
    serve = await startServe(['serve'], cleanEnv({ DATABASE_URL: database.databaseUrl ?? '', TESSERA_DATA_DIR: dir, TESSERA_ADMIN_KEY: ADMIN_KEY, TESSERA_LOG_LEVEL: 'warn', NODE_DEBUG: 'module,esm' }));
  }, 120_000);

  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const graphql = async (path: string, token: string, query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${serve!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    return body.data!;
  };

  it('answers reads and writes without the modules it does not need', async () => {
    const created = await graphql('/admin/graphql', ADMIN_KEY, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', {
      i: { name: 'modules', schema: 'type Note @model { text: String }' },
    });
    const appId = (created.createApp as { app: { id: string } }).app.id;
    // The platform key is an admin credential on every app.
    expect(await graphql(`/graphql/${appId}`, ADMIN_KEY, 'mutation { createNote(input: { text: "a" }) { changedNote { text } } }')).toEqual({ createNote: { changedNote: { text: 'a' } } });
    expect(await graphql(`/graphql/${appId}`, ADMIN_KEY, '{ viewer { allNotes { edges { node { text } } } } }')).toEqual({ viewer: { allNotes: { edges: [{ node: { text: 'a' } }] } } });

    const record = serve!.stderr();
    // The record names what the server did load, so it can tell a module's absence.
    expect(record).toContain('node_modules/fastify/');
    expect(record).toContain('node_modules/graphql/');
    expect(NOT_LOADED.filter((name) => record.includes(name))).toEqual([]);
  });
});

describe("Fastify's schema compilers, loaded on first use", () => {
  it('validate a request body and serialise an answer by their schemas', async () => {
    const app = Fastify({ schemaController: lazySchemaCompilers });
    app.post(
      '/echo',
      {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } },
        },
      },
      async (request) => ({ n: (request.body as { n: number }).n, secret: 'not in the schema' }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/echo`;
      const post = (body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const ok = await post({ n: 3 });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ n: 3 });
      const refused = await post({ n: 'three' });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { code: string }).code).toBe('FST_ERR_VALIDATION');
    } finally {
      await app.close();
    }
  });
});
