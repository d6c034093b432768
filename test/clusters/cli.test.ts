// `tessera cluster add|list` and `tessera app create --cluster` against `tessera serve` on
// PostgreSQL, with a second PostgreSQL server of the test's own; a restarted `tessera serve`
// (same data directory, so the same secret key) serves the app placed there.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { startSecondPostgres } from '../helpers/secondPostgres.js';
import type { SecondPostgres } from '../helpers/secondPostgres.js';
import { cleanEnv, runCli, startServe } from '../cli/run.js';
import type { ServeChild } from '../cli/run.js';

describe.runIf(STORES.includes('postgres'))('tessera cluster (postgres)', () => {
  let dir: string;
  let database: TestStore;
  let east: SecondPostgres;
  let serve: ServeChild | undefined;

  const serveEnv = () => cleanEnv({ DATABASE_URL: database.databaseUrl ?? '', TESSERA_DATA_DIR: dir, TESSERA_LOG_LEVEL: 'warn' });
  const cli = (args: string[]) => runCli(args, { env: cleanEnv({ TESSERA_URL: serve?.url ?? '', TESSERA_DATA_DIR: dir }) });
  const stop = async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    serve = undefined;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-cluster-cli-'));
    [database, east] = await Promise.all([openTestStore('postgres', { catalog: false }), startSecondPostgres()]);
    serve = await startServe(['serve'], serveEnv());
  }, 120_000);

  afterAll(async () => {
    await stop();
    await east?.close();
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('adds a cluster, lists it, places an app on it, and serves it again after a restart', async () => {
    const added = await cli(['cluster', 'add', 'east', east.url]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('added cluster east');
    const refused = await cli(['cluster', 'add', 'Bad Name', east.url]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/BAD_USER_INPUT|lowercase letter/);

    const schema = join(dir, 'schema.graphql');
    await writeFile(schema, 'type Note @model { text: String! }\n');
    const created = await cli(['app', 'create', 'notes', '--schema', schema, '--cluster', 'east']);
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^created app notes \(id [a-z0-9]{12}, schema version 1, on cluster east\)/);
    const id = /id ([a-z0-9]{12})/.exec(created.stdout)![1]!;

    const listed = await cli(['cluster', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'main', apps: 0, reachable: true },
      { name: 'east', apps: 1, reachable: true },
    ]);
    const table = await cli(['cluster', 'list']);
    expect(table.stdout).toMatch(/^NAME\s+APPS\s+STATE\n/);
    expect(table.stdout).toMatch(/east\s+1\s+reachable/);
    // The URL (and its password, had it one) is never printed back.
    expect(table.stdout + listed.stdout).not.toContain(east.url);

    const token = (await cli(['token', 'create', 'notes', 'ci'])).stdout.trim();
    const write = await fetch(`${serve!.url}/graphql/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'mutation { createNote(input: { text: "kept" }) { changedNote { id } } }' }),
    });
    expect(write.status).toBe(200);

    const moved = await cli(['app', 'move', 'notes', '--cluster', 'main']);
    expect(moved.stderr).toBe('');
    expect(moved.stdout).toMatch(/^moved app notes to cluster main \(\d+ ms\)\n$/);
    const back = await cli(['app', 'move', 'notes', '--cluster', 'east']);
    expect(back.stdout).toMatch(/^moved app notes to cluster east /);
    const nowhere = await cli(['app', 'move', 'notes', '--cluster', 'west']);
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toContain('No cluster named "west"');

    await stop();
    serve = await startServe(['serve'], serveEnv());
    const read = await fetch(`${serve.url}/graphql/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ viewer { allNotes { edges { node { text } } } } }' }),
    });
    expect(await read.json()).toEqual({ data: { viewer: { allNotes: { edges: [{ node: { text: 'kept' } }] } } } });
  });
});
