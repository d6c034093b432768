// The client commands and --help start without the server's modules (the HTTP server, the
// compiler, the stores and their drivers): only `tessera dev` and `tessera serve` load them.
// Each command runs as a child process with a hook that records every module it resolves.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from './run.js';

const RECORDER = pathToFileURL(join(import.meta.dirname, 'recordModules.mjs')).href;

/** What only the server needs: none of it may load for a client command. */
const SERVER_ONLY = [/\/dist\/server\//, /\/dist\/compile\//, /\/dist\/store\//, /\/dist\/realtime\//, /\/node_modules\/fastify\//, /\/node_modules\/pg\//, /\/node_modules\/@electric-sql\/pglite\//];

let dir: string;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-cli-startup-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs `tessera …args` and gives back its exit code, its stderr and the modules it resolved. */
async function modulesOf(args: string[]): Promise<{ code: number | null; stderr: string; modules: string[] }> {
  runs += 1;
  const file = join(dir, `modules-${runs}.txt`);
  const { code, stderr } = await runCli(args, { env: cleanEnv({ MODULES_FILE: file }), cwd: dir, nodeArgs: ['--import', RECORDER] });
  const modules = (await readFile(file, 'utf8')).trim().split('\n');
  return { code, stderr, modules };
}

describe('tessera starts light', () => {
  it.each([
    [['--help']],
    [['--version']],
    [['serve', '--help']],
    [['app', 'list', '--url', 'http://127.0.0.1:9', '--admin-key', 'tsk_not_used']],
    [['token', 'create', 'shop', 'ci', '--url', 'http://127.0.0.1:9', '--admin-key', 'tsk_not_used']],
  ])('tessera %j loads none of the server', async (args) => {
    const { modules, stderr } = await modulesOf(args);
    // The recorder saw the command itself load, so an empty list cannot pass.
    expect(modules.some((url) => url.endsWith('/dist/cli/index.js'))).toBe(true);
    expect(modules.filter((url) => SERVER_ONLY.some((pattern) => pattern.test(url)))).toEqual([]);
    expect(stderr).not.toMatch(/Error:|at .*\.js:\d+/);
  });

  it('loads the server for serve, which fails here on a port that is not a number', async () => {
    const { code, modules } = await modulesOf(['serve', '--port', 'abc', '--data-dir', join(dir, 'data')]);
    expect(code).not.toBe(0);
    expect(modules.some((url) => /\/dist\/server\/index\.js$/.test(url))).toBe(true);
  });
});
