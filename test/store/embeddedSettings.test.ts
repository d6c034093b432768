// The embedded store's PostgreSQL settings (small buffers, docs/performance.md) take effect on
// every way it opens: a data directory it creates (in a worker thread), one it reopens, and
// in memory; the durability settings stay PGlite's.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { embeddedDatabaseDir, ensureCatalog, openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { EMBEDDED_SETTINGS } from '../../src/store/embedded.js';

async function settingsOf(store: Store): Promise<Record<string, string>> {
  const shown: Record<string, string> = {};
  for (const name of Object.keys(EMBEDDED_SETTINGS)) {
    // SHOW takes no parameters; the names are the module's own constants.
    const { rows } = await store.query<Record<string, string>>(sql`SELECT current_setting(${name}) AS value`);
    shown[name] = rows[0]?.value ?? '';
  }
  return shown;
}

describe('embedded store settings', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('sets small buffers on a data directory it creates, keeps its data, and sets them again on reopening', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tessera-settings-'));
    dirs.push(dataDir);
    const created = await openStore({ dataDir });
    try {
      expect(EMBEDDED_SETTINGS.shared_buffers).toBe('16MB');
      expect(await settingsOf(created)).toEqual(EMBEDDED_SETTINGS);
      await ensureCatalog(created);
      await created.query(sql`CREATE TABLE kept (note text)`);
      await created.query(sql`INSERT INTO kept VALUES ('written before closing')`);
    } finally {
      await created.close();
    }

    const reopened = await openStore({ dataDir });
    try {
      expect(await settingsOf(reopened)).toEqual(EMBEDDED_SETTINGS);
      expect((await reopened.query(sql`SELECT note FROM kept`)).rows).toEqual([{ note: 'written before closing' }]);
      // Durability is PGlite's own: full-page writes and synchronous commit stay on.
      const { rows } = await reopened.query(sql`SELECT current_setting('full_page_writes') AS fpw, current_setting('synchronous_commit') AS sync`);
      expect(rows).toEqual([{ fpw: 'on', sync: 'on' }]);
    } finally {
      await reopened.close();
    }
  });

  it('sets them on an in-memory store too', async () => {
    const store = await openStore({ memory: true });
    try {
      expect(await settingsOf(store)).toEqual(EMBEDDED_SETTINGS);
    } finally {
      await store.close();
    }
  });

  it('fails with a message naming the directory when the database cannot be created there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tessera-settings-'));
    dirs.push(dataDir);
    // A file where initdb must make a directory.
    mkdirSync(embeddedDatabaseDir(dataDir));
    writeFileSync(join(embeddedDatabaseDir(dataDir), 'global'), 'not a directory');
    await expect(openStore({ dataDir })).rejects.toThrow(`cannot create the embedded database in ${embeddedDatabaseDir(dataDir)}: file system error`);
  });
});
