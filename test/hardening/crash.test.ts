// Crash safety of the real server process on both stores: concurrent writers create parents with
// two nested children each, the process is killed with SIGKILL in the middle of the load, and a
// new process on the same data starts without repair. Every write the server acknowledged is
// there, whole; nothing is half there (no parent without its two children, no orphan child);
// and the restarted server takes writes again. Two kill cycles per store.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startServe } from '../cli/run.js';
import type { ServeChild } from '../cli/run.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';
import { ensureTemplate } from '../helpers/template.js';

const SCHEMA = `
type Parent @model { label: String! children: [Child] @relation(name: "Family") }
type Child @model { label: String! parent: Parent @relation(name: "Family") }
`;
const CREATE = `mutation($label: String!) {
  createParent(input: { label: $label, children: [{ label: "first" }, { label: "second" }] }) { changedParent { id } }
}`;
const ADMIN_KEY = `tsk_crash_${'k'.repeat(24)}`;
const WRITERS = 8;
/** How long the writers run before the kill: long enough for some hundreds of acknowledged writes. */
const LOAD_MS = 1500;

interface Json {
  data?: any;
  errors?: unknown[];
}

async function post(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as Json;
}

async function must(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const reply = await post(url, token, query, variables);
  if (reply.errors) throw new Error(`${query}: ${JSON.stringify(reply.errors)}`);
  return reply.data;
}

/** Writers creating parents until the server dies under them; the ids it acknowledged. */
async function writeUntilKilled(serve: ServeChild, endpoint: string, token: string, round: number): Promise<{ acknowledged: Set<string>; failed: number }> {
  const acknowledged = new Set<string>();
  let failed = 0;
  let dead = false;
  const writer = async (w: number) => {
    for (let i = 0; !dead; i++) {
      try {
        const reply = await post(endpoint, token, CREATE, { label: `r${round}-w${w}-${i}` });
        const id = reply.data?.createParent?.changedParent?.id as string | undefined;
        if (id && !reply.errors) acknowledged.add(id);
        else failed += 1;
      } catch {
        // The connection died with the process: this write was never acknowledged.
        dead = true;
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
  serve.child.kill('SIGKILL');
  await serve.exited;
  dead = true;
  await Promise.all(writers);
  return { acknowledged, failed };
}

interface Family {
  id: string;
  children: { aggregations: { count: number } };
}

/** Every parent with its number of children, and the number of children without a parent. */
async function census(endpoint: string, token: string): Promise<{ parents: Map<string, number>; orphans: number; children: number }> {
  const parents = new Map<string, number>();
  let after: string | null = null;
  for (;;) {
    const data = await must(
      endpoint,
      token,
      `query($after: String) { viewer { allParents(first: 500, after: $after) {
        edges { node { id children(first: 1) { aggregations { count } } } } pageInfo { hasNextPage endCursor } } } }`,
      { after },
    );
    const page = data.viewer.allParents;
    for (const edge of page.edges as { node: Family }[]) parents.set(edge.node.id, edge.node.children.aggregations.count);
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  const counts = await must(endpoint, token, `{ viewer {
    orphans: allChildren(first: 1, where: { parentId: { isNull: true } }) { aggregations { count } }
    all: allChildren(first: 1) { aggregations { count } } } }`);
  return { parents, orphans: counts.viewer.orphans.aggregations.count, children: counts.viewer.all.aggregations.count };
}

function env(kind: StoreKind, dataDir: string, database: TestStore | undefined): NodeJS.ProcessEnv {
  return cleanEnv({
    TESSERA_DATA_DIR: dataDir,
    TESSERA_ADMIN_KEY: ADMIN_KEY,
    TESSERA_LOG_LEVEL: 'warn',
    ...(kind === 'postgres' ? { DATABASE_URL: database?.databaseUrl ?? '' } : {}),
  });
}

describe.each(STORES)('crash safety of the %s store under kill -9', (kind) => {
  let dataDir: string;
  let database: TestStore | undefined;
  let serve: ServeChild | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tessera-crash-'));
    // The embedded database starts as a copy of the tests' template (initdb takes seconds).
    if (kind === 'embedded') cpSync(await ensureTemplate(), dataDir, { recursive: true });
    else database = await openTestStore('postgres', { catalog: false });
  });
  afterAll(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write whole, nothing half-written, and restarts without repair', async () => {
    serve = await startServe(['serve'], env(kind, dataDir, database));
    const created = await must(`${serve.url}/admin/graphql`, ADMIN_KEY, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', {
      i: { name: 'crash', schema: SCHEMA },
    });
    const appId = created.createApp.app.id as string;
    const acknowledged = new Set<string>();
    const report: string[] = [];
    for (let round = 1; round <= 2; round++) {
      const endpoint = `${serve.url}/graphql/${appId}`;
      const result = await writeUntilKilled(serve, endpoint, ADMIN_KEY, round);
      for (const id of result.acknowledged) acknowledged.add(id);
      expect(result.acknowledged.size).toBeGreaterThan(20);

      const started = performance.now();
      serve = await startServe(['serve'], env(kind, dataDir, database));
      const restartMs = performance.now() - started;
      const after = `${serve.url}/graphql/${appId}`;
      const { parents, orphans, children } = await census(after, ADMIN_KEY);
      const missing = [...acknowledged].filter((id) => !parents.has(id));
      const partial = [...parents].filter(([, count]) => count !== 2);
      report.push(
        `round ${round}: ${result.acknowledged.size} acknowledged, ${result.failed} refused; after restart (${restartMs.toFixed(0)} ms) ` +
          `${parents.size} parents (${parents.size - acknowledged.size} unacknowledged but whole), ${children} children, ${orphans} orphans, ${missing.length} missing, ${partial.length} partial`,
      );
      expect(missing).toEqual([]);
      expect(partial).toEqual([]);
      expect(orphans).toBe(0);
      expect(children).toBe(2 * parents.size);
      // The restarted server takes writes again.
      await must(after, ADMIN_KEY, CREATE, { label: `after-${round}` });
    }
    console.log(`crash (${kind}): ${report.join('; ')}`);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
  }, 120_000);
});
