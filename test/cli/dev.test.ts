// `tessera dev`: the embedded store in the data directory and the demo app "blog", created
// from the packaged example schema on the first start only.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startServe, waitForText } from './run.js';

const KEY = 'dev-test-platform-key-0123';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-dev-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function apps(url: string): Promise<{ id: string; name: string; endpoint: string }[]> {
  const response = await fetch(`${url}/admin/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ query: '{ apps { id name endpoint } }' }),
  });
  return ((await response.json()) as { data: { apps: { id: string; name: string; endpoint: string }[] } }).data.apps;
}

describe('tessera dev', () => {
  it('creates the demo app once, from any working directory, and prints where everything is', async () => {
    // DATABASE_URL is ignored by dev: the embedded store is always used.
    const env = cleanEnv({ TESSERA_DATA_DIR: dir, TESSERA_ADMIN_KEY: KEY, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    const first = await startServe(['dev'], env, { cwd: tmpdir() });
    try {
      const [blog, ...others] = await apps(first.url);
      expect(others).toEqual([]);
      expect(blog?.name).toBe('blog');
      const out = first.stderr();
      expect(out).toContain(`management API  ${first.url}/admin/graphql`);
      expect(out).toContain(`web console     ${first.url}/console`);
      expect(out).toContain(`demo app "blog"  ${blog?.endpoint}`);
      expect(out).toContain(`health          ${first.url}/healthz`);
      expect(out).toContain('platform key    from TESSERA_ADMIN_KEY');
      // Seeded with sample data, and the printed query works as pasted (anonymously).
      const tryIt = /^ {2}try it {10}curl -s (\S+) -H 'content-type: application\/json' -d '(.+)'$/m.exec(out);
      expect(tryIt?.[1]).toBe(blog?.endpoint);
      const answer = await fetch(tryIt?.[1] as string, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tryIt?.[2] as string });
      const posts = ((await answer.json()) as { data: { viewer: { allPosts: { edges: { node: { title: string } }[] } } } }).data.viewer.allPosts.edges;
      expect(posts.map((e) => e.node.title)).toEqual(['Just a hobby', 'The first bug', 'Bernoulli numbers, step by step']);
      const login = await fetch(blog?.endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation { loginUser(input: { username: "ada", password: "demo-password" }) { user { displayName posts { aggregations { count } } } } }' }),
      });
      expect(((await login.json()) as { data: unknown }).data).toEqual({ loginUser: { user: { displayName: 'Ada', posts: { aggregations: { count: 3 } } } } });
      await waitForText(first.stderr, 'DATABASE_URL is ignored');
    } finally {
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
    }

    const second = await startServe(['dev'], env);
    try {
      expect((await apps(second.url)).map((a) => a.name)).toEqual(['blog']);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  });
});
