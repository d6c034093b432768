// The embedded store's template data directory for tests: initialised once (initdb takes
// seconds) and cached on disk per PGlite version; each test store starts from a copy of it.

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';

function pgliteVersion(): string {
  const url = new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/** Where the template lives: a data directory as `openStore({ dataDir })` expects it. */
export function templateDir(): string {
  return join(tmpdir(), 'tessera-test', `embedded-template-pglite-${pgliteVersion()}`);
}

/** Builds the template unless it is there; safe when several test runs start at once. */
export async function ensureTemplate(): Promise<string> {
  const dir = templateDir();
  if (existsSync(join(dir, 'ready'))) return dir;
  const building = `${dir}.${process.pid}.${Date.now()}`;
  mkdirSync(building, { recursive: true });
  const store = await openStore({ dataDir: building });
  await store.close();
  mkdirSync(join(building, 'ready'));
  try {
    // Another run may have finished first; its template is as good as ours.
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  if (!existsSync(join(dir, 'ready'))) throw new Error(`test template was not built at ${dir}`);
  return dir;
}
