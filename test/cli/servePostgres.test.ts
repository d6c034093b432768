// `tessera serve` with DATABASE_URL: the PostgreSQL store, the note about sharing one platform
// key between instances, a client command against it, and a clean exit on SIGTERM.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { cleanEnv, runCli, startServe, waitForText } from './run.js';

describe.runIf(STORES.includes('postgres'))('tessera serve on PostgreSQL', () => {
  let dir: string;
  let database: TestStore;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-serve-pg-'));
    // A fresh database of its own; the test store's connection is closed (and the database
    // dropped) only at the end.
    database = await openTestStore('postgres', { catalog: false });
  });
  afterAll(async () => {
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves from DATABASE_URL and exits 0 on SIGTERM', async () => {
    const env = cleanEnv({ DATABASE_URL: database.databaseUrl ?? '', TESSERA_DATA_DIR: dir, TESSERA_LOG_LEVEL: 'warn' });
    const serve = await startServe(['serve'], env);
    try {
      expect(serve.stderr()).toContain('store           PostgreSQL (DATABASE_URL)');
      await waitForText(serve.stderr, 'same TESSERA_ADMIN_KEY');
      expect((await fetch(`${serve.url}/readyz`)).status).toBe(200);
      const schema = join(dir, 'schema.graphql');
      await writeFile(schema, 'type Note @model { text: String! }\n');
      const created = await runCli(['app', 'create', 'notes', '--schema', schema], {
        env: cleanEnv({ TESSERA_URL: serve.url, TESSERA_DATA_DIR: dir }),
      });
      expect(created.stderr).toBe('');
      expect(created.stdout).toMatch(/^created app notes /);
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  });
});
