// `tessera function create|list|update|delete|deliveries|redeliver` end to end: `tessera serve`
// as a child process (embedded store, calls to this machine allowed), the commands run as child
// processes, a real receiver checking the signature with the secret `create` printed once.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, startServe } from '../cli/run.js';
import type { ServeChild } from '../cli/run.js';
import { sleep } from '../helpers/wait.js';
import { Receiver, SCHEMA } from './harness.js';

let dir: string;
let serve: ServeChild;
let env: NodeJS.ProcessEnv;
let receiver: Receiver;

const cli = (args: string[]) => runCli(args, { env, cwd: dir });

beforeAll(async () => {
  receiver = await Receiver.start();
  dir = await mkdtemp(join(tmpdir(), 'tessera-cli-functions-'));
  const dataDir = join(dir, 'data');
  serve = await startServe(['serve'], cleanEnv({ TESSERA_DATA_DIR: dataDir, TESSERA_LOG_LEVEL: 'warn', TESSERA_FUNCTIONS_ALLOW_PRIVATE: 'true' }));
  env = cleanEnv({ TESSERA_URL: serve.url, TESSERA_DATA_DIR: dataDir });
  await writeFile(join(dir, 'schema.graphql'), SCHEMA);
  expect((await cli(['app', 'create', 'blog', '--schema', 'schema.graphql'])).code).toBe(0);
});
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await receiver?.down();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tessera function', () => {
  it('creates an EVENT function, prints its secret once, and its events arrive signed with it', async () => {
    const created = await cli(['function', 'create', 'blog', 'audit', '--kind', 'event', '--endpoint', receiver.url, '--operation', 'createPost,deletePost', '--header', 'X-Api-Key: k-31f', '--timeout-ms', '2000']);
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^created EVENT function "audit" → http:\/\/127\.0\.0\.1:\d+\/hook on createPost, deletePost \(timeout 2000 ms, order 0, headers X-Api-Key\)\n/);
    const secret = /signing secret \(shown once; verify Tessera-Signature with it\): (tfs_\S+)/.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    receiver.secret = secret as string;

    const listed = await cli(['function', 'list', 'blog', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([{ name: 'audit', kind: 'EVENT', url: receiver.url, operations: ['createPost', 'deletePost'], headers: [{ name: 'X-Api-Key' }], timeoutMs: 2000, enabled: true, order: 0 }]);
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toContain('k-31f');

    // A write through the app's API, with the platform key.
    const key = (await cli(['token', 'create', 'blog', 'tests'])).stdout.trim().split(/\s+/).at(-1) as string;
    const apps = JSON.parse((await cli(['app', 'list', '--json'])).stdout) as { id: string; name: string }[];
    const appId = apps.find((a) => a.name === 'blog')?.id as string;
    const write = await fetch(`${serve.url}/graphql/${appId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: 'mutation { createPost(input: { title: "from the CLI test" }) { changedPost { id } } }' }),
    });
    expect(((await write.json()) as { errors?: unknown }).errors).toBeUndefined();
    const [body] = await receiver.waitFor(1);
    expect(body.event.after.title).toBe('from the CLI test');
    expect(receiver.received[0]?.verified).toBe(true);
    expect(receiver.received[0]?.headers['x-api-key']).toBe('k-31f');

    let deliveries = await cli(['function', 'deliveries', 'blog', 'audit', '--json']);
    for (let i = 0; i < 100 && !deliveries.stdout.includes('"DELIVERED"'); i++) {
      await sleep(50);
      deliveries = await cli(['function', 'deliveries', 'blog', 'audit', '--json']);
    }
    const [delivery] = JSON.parse(deliveries.stdout) as { id: string; status: string; attempts: number }[];
    expect(delivery).toMatchObject({ id: body.id, status: 'DELIVERED', attempts: 1 });
    const table = await cli(['function', 'deliveries', 'blog', 'audit']);
    expect(table.stdout).toMatch(/^ID\s+OPERATION\s+STATUS\s+ATTEMPTS/);
    expect(table.stdout).toContain(body.id);

    const redelivered = await cli(['function', 'redeliver', 'blog', body.id]);
    expect(redelivered.stdout).toBe(`delivery ${body.id} is due again\n`);
    await receiver.waitFor(2);
    expect(receiver.received[1]?.eventId).toBe(body.id);
  });

  it('updates, rotates the secret, and deletes', async () => {
    const disabled = await cli(['function', 'update', 'blog', 'audit', '--disable', '--rotate-secret']);
    expect(disabled.stdout).toMatch(/^updated EVENT function "audit" .*disabled/);
    expect(disabled.stdout).toMatch(/new signing secret \(shown once\): tfs_\S+\n$/);
    const plain = await cli(['function', 'update', 'blog', 'audit', '--enable', '--no-headers']);
    expect(plain.stdout).not.toMatch(/secret/);
    expect(plain.stdout).not.toMatch(/headers/);
    const bad = await cli(['function', 'update', 'blog', 'audit', '--operation', 'createNothing']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/^tessera: .*createNothing/);
    expect((await cli(['function', 'delete', 'blog', 'audit'])).stdout).toBe('deleted function "audit"\n');
    const again = await cli(['function', 'delete', 'blog', 'audit']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/has no function named "audit"/);
    expect((await cli(['function', 'list', 'blog'])).stdout).toMatch(/^no functions/);
  });
});
