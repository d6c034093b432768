// The `tessera` command end to end: `tessera serve` as a child on an ephemeral port (embedded
// store, generated platform key) and every client command run against it as a child process.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, startServe } from './run.js';
import type { CliResult, ServeChild } from './run.js';

const V1 = 'type Post @model {\n  title: String!\n  body: Text\n}\n';
const V2 = 'type Post @model {\n  title: String!\n  body: Text\n  rating: Int\n}\n';
const V3 = 'type Post @model {\n  title: String!\n  rating: Int\n}\n';
const INVALID = 'type Post @model {\n  title: Strin\n  author: User @relation(name: "Lonely")\n}\n';

let dir: string;
let serve: ServeChild;
let env: NodeJS.ProcessEnv;

const cli = (...args: string[]) => runCli(args, { env, cwd: dir });
const linesOf = (text: string) => text.trimEnd().split('\n');

/** A failure is exactly one `tessera: …` line on stderr and a non-zero exit. */
function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/^tessera: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-cli-'));
  const dataDir = join(dir, 'data');
  serve = await startServe(['serve'], cleanEnv({ TESSERA_DATA_DIR: dataDir, TESSERA_LOG_LEVEL: 'warn' }));
  // Client commands find the key in the same data directory's key file.
  env = cleanEnv({ TESSERA_URL: serve.url, TESSERA_DATA_DIR: dataDir });
  await Promise.all(
    Object.entries({ 'v1.graphql': V1, 'v2.graphql': V2, 'v3.graphql': V3, 'bad.graphql': INVALID }).map(([name, text]) =>
      writeFile(join(dir, name), text),
    ),
  );
});

afterAll(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tessera serve', () => {
  it('prints its real URL and a generated platform key once, kept with mode 0600', async () => {
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serve.url).not.toMatch(/:0$/);
    const keyFile = join(dir, 'data', 'admin-key');
    const key = (await readFile(keyFile, 'utf8')).trim();
    expect(key).toMatch(/^tsk_/);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    // The key and the banner go to stderr, once; stdout carries JSON log lines only.
    expect(serve.stderr().split(key).length - 1).toBe(1);
    expect(serve.stdout()).not.toContain(key);
    expect(serve.stderr()).toContain(`platform key    ${keyFile}`);
    const health = await fetch(`${serve.url}/healthz`);
    expect(health.status).toBe(200);
    for (const line of serve.stdout().split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line), line).not.toThrow();
    // No warnings (deprecations included) on a clean start.
    expect(serve.stderr()).not.toMatch(/warning|deprecat/i);
  });
});

describe('client commands', () => {
  it('app create prints the id and endpoint', async () => {
    const result = await cli('app', 'create', 'shop', '--schema', 'v1.graphql');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^created app shop \(id [a-z][a-z0-9]{11}, schema version 1\)\nendpoint: http:\/\/127\.0\.0\.1:\d+\/graphql\/[a-z0-9]{12}\n$/);
  });

  it('app create prints every schema problem as FILE:line:column', async () => {
    const result = await cli('app', 'create', 'broken', '--schema', 'bad.graphql');
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^bad\.graphql:2:10: .*Strin/),
      expect.stringMatching(/^bad\.graphql:3:\d+: .*Lonely/),
      'tessera: bad.graphql is not a valid schema (2 problems)',
    ]);
  });

  it('app list prints a table', async () => {
    const result = await cli('app', 'list');
    expect(result.code).toBe(0);
    const [header, row, ...rest] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+VERSION\s+ENDPOINT$/);
    expect(row).toMatch(/^[a-z0-9]{12}\s+shop\s+1\s+http:\/\/\S+\/graphql\/[a-z0-9]{12}$/);
    expect(rest).toEqual([]);
  });

  it('schema push --dry-run prints the plan and the version it would create', async () => {
    const result = await cli('schema', 'push', 'shop', 'v2.graphql', '--dry-run');
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines).toContainEqual(expect.stringMatching(/^  addField +.*rating/));
    expect(lines.at(-1)).toBe('dry run: would create version 2');
  });

  it('schema push refuses destructive steps, listing them', async () => {
    const result = await cli('schema', 'push', 'shop', 'v3.graphql');
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(/^! dropField +.*body/),
      'tessera: refused 1 destructive step; nothing was applied (push again with --allow-destructive to apply)',
    ]);
    const dry = await cli('schema', 'push', 'shop', 'v3.graphql', '--dry-run');
    expect(dry.stdout).toMatch(/dry run: would create version 2 \(1 destructive step: push with --allow-destructive\)\n$/);
  });

  it('schema push applies, then reports no changes', async () => {
    const applied = await cli('schema', 'push', 'shop', 'v2.graphql');
    expect(applied.code).toBe(0);
    expect(linesOf(applied.stdout)).toContainEqual(expect.stringMatching(/^  addField +.*rating/));
    expect(linesOf(applied.stdout).at(-1)).toBe('applied version 2');
    const again = await cli('schema', 'push', 'shop', 'v2.graphql');
    expect(again.stdout).toBe('no changes (live version 2)\n');
  });

  it('schema push --allow-destructive applies destructive steps, marked', async () => {
    const result = await cli('schema', 'push', 'shop', 'v3.graphql', '--allow-destructive');
    expect(result.code).toBe(0);
    expect(linesOf(result.stdout)).toContainEqual(expect.stringMatching(/^! dropField +.*body/));
    expect(linesOf(result.stdout).at(-1)).toBe('applied version 3');
  });

  it('schema push prints schema problems as FILE:line:column', async () => {
    const result = await cli('schema', 'push', 'shop', 'bad.graphql');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^bad\.graphql:2:10: /);
    expect(result.stderr).toMatch(/\ntessera: bad\.graphql is not a valid schema \(2 problems\)\n$/);
  });

  it('schema pull prints the live schema as pushed', async () => {
    const result = await cli('schema', 'pull', 'shop');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(V3);
  });

  it('token create prints the token alone on stdout', async () => {
    const result = await cli('token', 'create', 'shop', 'ci');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tat_[A-Za-z0-9_-]{43}\n$/);
    expect(result.stderr).toContain('shown only this once');
  });

  it('token list names the tokens (never prints them), token revoke ends one', async () => {
    await cli('token', 'create', 'shop', 'deploy');
    const listed = await cli('token', 'list', 'shop');
    expect(listed.code).toBe(0);
    expect(linesOf(listed.stdout)[0]).toMatch(/^NAME\s+CREATED$/);
    expect(listed.stdout).toContain('deploy');
    expect(listed.stdout).not.toContain('tat_');
    const json = JSON.parse((await cli('token', 'list', 'shop', '--json')).stdout) as { name: string }[];
    expect(json.map((t) => t.name)).toEqual(['ci', 'deploy']);
    expect((await cli('token', 'revoke', 'shop', 'deploy')).stdout).toBe('revoked admin token "deploy"\n');
    expectOneLineError(await cli('token', 'revoke', 'shop', 'deploy'), /no admin token named "deploy"/);
    expect((JSON.parse((await cli('token', 'list', 'shop', '--json')).stdout) as { name: string }[]).map((t) => t.name)).toEqual(['ci']);
  });

  it('app list --json and app settings print for scripts; settings change with name=value', async () => {
    const apps = JSON.parse((await cli('app', 'list', '--json')).stdout) as { name: string; schemaVersion: number }[];
    expect(apps.find((a) => a.name === 'shop')?.schemaVersion).toBeGreaterThan(1);
    const shown = await cli('app', 'settings', 'shop');
    expect(shown.stdout).toContain('maxDepth = 15\n');
    const changed = await cli('app', 'settings', 'shop', 'maxDepth=12', 'introspection=false', 'corsOrigins=https://a.example,https://b.example', '--json');
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ maxDepth: 12, introspection: false, corsOrigins: ['https://a.example', 'https://b.example'] });
    expect(JSON.parse((await cli('app', 'settings', 'shop', 'corsOrigins=null', 'introspection=true', '--json')).stdout)).toMatchObject({ corsOrigins: null, introspection: true });
    expectOneLineError(await cli('app', 'settings', 'shop', 'maxDepth=lots'), /maxDepth takes a whole number/);
    expectOneLineError(await cli('app', 'settings', 'shop', 'colour=blue'), /no setting named "colour"/);
    expectOneLineError(await cli('app', 'settings', 'shop', 'maxDepth=1000'), /maxDepth/);
  });

  it('app delete needs --yes, then removes the app', async () => {
    await writeFile(join(dir, 'gone.graphql'), V1);
    await cli('app', 'create', 'gone', '--schema', 'gone.graphql');
    expectOneLineError(await cli('app', 'delete', 'gone'), /run again with --yes/);
    expect((await cli('app', 'delete', 'gone', '--yes')).stdout).toBe('deleted app gone\n');
    expectOneLineError(await cli('app', 'delete', 'gone', '--yes'), /no app named or with id "gone"/);
  });

  it('init writes a schema and a .env that tessera reads, and never overwrites them', async () => {
    const project = join(dir, 'project');
    const result = await cli('init', 'project');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('cd project');
    const schema = await readFile(join(project, 'schema.graphql'), 'utf8');
    expect(schema).toContain('type List @model');
    expectOneLineError(await cli('init', 'project'), /schema\.graphql and \.env already exist/);
    // The starter schema is a valid app, and the .env in the working directory is read.
    await writeFile(join(project, '.env'), `TESSERA_URL=${serve.url}\nTESSERA_ADMIN_KEY=${(await readFile(join(dir, 'data', 'admin-key'), 'utf8')).trim()}\n`);
    const created = await runCli(['app', 'create', 'todo', '--schema', 'schema.graphql'], { env: cleanEnv(), cwd: project });
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('created app todo');
  });

  it('completion prints a bash script that completes commands and options', async () => {
    const script = (await cli('completion')).stdout;
    const complete = (words: string) =>
      new Promise<string>((resolve, reject) => {
        const program = `${script}\nCOMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _tessera; echo "\${COMPREPLY[*]}"`;
        const child = spawn('bash', ['-c', program]);
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(out.trim()));
      });
    expect(await complete('tessera ap')).toBe('app');
    expect(await complete('tessera app d')).toBe('delete');
    expect(await complete('tessera schema pull blog --a')).toBe('--api --admin-key');
  });

  it('takes the key and URL from flags too', async () => {
    const key = (await readFile(join(dir, 'data', 'admin-key'), 'utf8')).trim();
    const result = await runCli(['app', 'list', '--url', serve.url, '--admin-key', key], { env: cleanEnv(), cwd: tmpdir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('shop');
  });
});

describe('errors are one line on stderr and a non-zero exit', () => {
  it.each([
    [['app', 'list', '--admin-key', 'tsk_wrong'], /refused the platform key/],
    [['app', 'list', '--url', 'http://127.0.0.1:9'], /cannot reach the Tessera server at http:\/\/127\.0\.0\.1:9/],
    [['app', 'list', '--url', 'not a url'], /invalid server URL/],
    [['schema', 'pull', 'nosuchapp'], /no app named or with id "nosuchapp"/],
    [['schema', 'push', 'shop', 'missing.graphql'], /cannot read schema file missing\.graphql: no such file/],
    [['app', 'create', 'x'], /required option '--schema <file>' not specified/],
    [['app', 'create', '1bad', '--schema', 'v1.graphql'], /App name must start with a letter/],
    [['token', 'create', 'shop'], /missing required argument 'name'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['app', 'list', '--colour'], /unknown option '--colour'/],
    [['serve', '--port', 'abc'], /--port must be a port number/],
  ])('tessera %j', async (args, pattern) => {
    expectOneLineError(await cli(...args), pattern);
  });

  it('says where to put the key when there is none', async () => {
    const result = await runCli(['app', 'list'], { env: cleanEnv({ TESSERA_URL: serve.url }), cwd: tmpdir() });
    expectOneLineError(result, /no platform key: pass --admin-key, set TESSERA_ADMIN_KEY/);
  });
});

describe('--help', () => {
  it('explains the whole command', async () => {
    const result = await cli('--help');
    expect(result.code).toBe(0);
    for (const command of ['dev', 'serve', 'app', 'schema', 'token']) expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(result.stdout).toContain('TESSERA_URL');
  });

  it.each([
    [['dev'], ['--port', '--host', 'embedded', 'blog']],
    [['serve'], ['--port', '--host', 'DATABASE_URL', 'SIGTERM']],
    [['app', 'create'], ['<name>', '--schema <file>', '--url', '--admin-key', 'Example']],
    [['app', 'list'], ['--url', '--admin-key']],
    [['schema', 'push'], ['<app>', '<file>', '--dry-run', '--allow-destructive', 'destructive']],
    [['schema', 'pull'], ['<app>', 'Example']],
    [['token', 'create'], ['<app>', '<name>', 'shown once']],
  ])('tessera %j --help', async (command, expected) => {
    const result = await cli(...command, '--help');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^Usage: tessera ${command.join(' ')}`));
    for (const text of expected) expect(result.stdout).toContain(text);
  });

  it('prints the version', async () => {
    const result = await cli('--version');
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('a busy port', () => {
  it('is reported at once, before a key file, a data directory or a store is made', async () => {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const dataDir = join(await mkdtemp(join(tmpdir(), 'tessera-busy-')), 'data');
    try {
      const result = await runCli(['serve', '--port', String(port)], { env: cleanEnv({ TESSERA_DATA_DIR: dataDir }) });
      // "At once": before anything else happens — no data directory (so no key file and no
      // store) was made. Measured by what exists, not by a clock a loaded machine can stretch.
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      blocker.close();
    }
  });
});
