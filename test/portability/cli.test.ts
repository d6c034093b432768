// The CLI's export, import and fork against a real server, on both stores: `tessera app export`
// downloads and checks the archive, `app import` makes a new app of it (equal row for row),
// `app fork` copies an app; progress goes to stderr, and failures are one `tessera:` line.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../src/sql/index.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import { cleanEnv, runCli } from '../cli/run.js';
import { archiveLines, footprint, pack, tableRows } from './harness.js';

const SCHEMA = 'type Note @model { text: String  tags: [String]  parent: Note @relation(name: "Thread")  replies: [Note] @relation(name: "Thread") }';

describe.each(STORE_KINDS)('tessera app export|import|fork (%s)', (kind) => {
  let server: TestServer;
  let dir: string;
  let appId: string;
  let appName: string;
  const env = () => cleanEnv({ TESSERA_URL: server.base, TESSERA_ADMIN_KEY: server.key });

  beforeAll(async () => {
    server = await startTestServer(kind);
    dir = mkdtempSync(join(tmpdir(), 'tessera-cli-portability-'));
    const app = await createTestApp(server, SCHEMA);
    appId = app.id;
    appName = (await app.server.store.query<{ name: string }>(sql`SELECT name FROM tessera.apps WHERE id = ${app.id}`)).rows[0]!.name;
    const root = (await app.data('mutation { createNote(input: { text: "root" }) { changedNote { id } } }')).createNote.changedNote.id;
    for (let i = 0; i < 25; i++) await app.data('mutation($p: ID!) { createNote(input: { text: "x", tags: ["a"], parentId: $p }) { changedNote { id } } }', { p: root });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports to a file, imports it as a new app equal row for row, and reports rows on stderr', async () => {
    const out = join(dir, 'notes.tessera.gz');
    const exported = await runCli(['app', 'export', appName, '--out', out], { env: env() });
    // 26 notes and the built-in admin role.
    expect(exported.stderr).toMatch(/exported 27 rows \(\d[\d,]* rows\/s\)/);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(`exported app ${appName} (5 tables, 27 rows) to ${out}\n`);
    expect(archiveLines(readFileSync(out))[0]).toContain('"kind":"header"');

    const imported = await runCli(['app', 'import', out, '--name', `${appName}-copy`], { env: env() });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(/imported 27 rows/);
    const id = /\(id ([a-z0-9]{12}), 27 rows\)/.exec(imported.stdout)?.[1];
    expect(id).toBeDefined();
    expect(imported.stdout).toContain(`endpoint: ${server.base}/graphql/${id}`);
    expect(await tableRows(server, id!)).toEqual(await tableRows(server, appId));
  });

  it('without --out, writes <name>-<date>.tessera.gz in the working directory', async () => {
    const exported = await runCli(['app', 'export', appId], { env: env(), cwd: dir });
    expect(exported.code).toBe(0);
    const file = join(dir, `${appName}-${new Date().toISOString().slice(0, 10)}.tessera.gz`);
    expect(archiveLines(readFileSync(file)).length).toBeGreaterThan(26);
  });

  it('a truncated archive is refused with the line where it broke, and leaves nothing', async () => {
    const out = join(dir, 'full.tessera.gz');
    expect((await runCli(['app', 'export', appId, '--out', out], { env: env() })).code).toBe(0);
    const cut = join(dir, 'cut.tessera.gz');
    writeFileSync(cut, pack(archiveLines(readFileSync(out)).slice(0, 10)));
    const before = await footprint(server);
    const refused = await runCli(['app', 'import', cut, '--name', 'cutcopy'], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^tessera: The archive is not valid at line 11 \(byte \d+ uncompressed\): the archive ends without its end record: it is truncated\n$/m);
    expect(await footprint(server)).toEqual(before);
  });

  it('forks an app; names an unknown app; refuses a wrong key', async () => {
    const forked = await runCli(['app', 'fork', appId, '--name', `${appName}-try`], { env: env() });
    expect(forked.code).toBe(0);
    const id = /\(id ([a-z0-9]{12})\)/.exec(forked.stdout)?.[1];
    expect(await tableRows(server, id!)).toEqual(await tableRows(server, appId));
    const unknown = await runCli(['app', 'export', 'nosuchapp'], { env: env() });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no app named or with id "nosuchapp"/);
    const wrongKey = await runCli(['app', 'import', join(dir, 'full.tessera.gz')], { env: cleanEnv({ TESSERA_URL: server.base, TESSERA_ADMIN_KEY: 'tsk_wrong' }) });
    expect(wrongKey.stderr).toMatch(/refused the platform key/);
  });
});
