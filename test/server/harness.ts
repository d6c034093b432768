// A real Tessera server on an ephemeral port for the server tests: a test store of the given
// kind, the management service, a fresh platform key, and log lines captured for inspection.

import type { FastifyInstance } from 'fastify';
import { createAdminService } from '../../src/admin/index.js';
import { createServer, generatePlatformKey } from '../../src/server/index.js';
import type { ServerOptions } from '../../src/server/index.js';
import { compile } from '../../src/sql/index.js';
import type { SqlFragment } from '../../src/sql/index.js';
import type { StatementOptions, Store, Transaction } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { StoreKind, TestStore } from '../helpers/stores.js';

/** The store kinds the storage-dependent suites run against (TESSERA_TEST_STORES narrows them). */
export const STORE_KINDS = STORES;

export interface TestServer {
  base: string;
  key: string;
  store: Store;
  /** Postgres: the URL of the server's own database (another instance may share it). */
  databaseUrl?: string | undefined;
  app: FastifyInstance;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** What a counting server tells of the statements it sent. */
export interface Counted {
  statements: () => number;
  transactions: () => number;
  /** The text of each statement sent as recurring (StatementOptions.recurring), in transactions too, in order. */
  recurring: () => string[];
  /** For each of those, how it was sent besides: 'readOnly', 'standalone' (a write committed on its own) or '-'. */
  recurringAs: () => string[];
}

/**
 * A server whose store counts the statements and transactions the server sends, transactions
 * also on their own (the management service uses the store directly and is not counted).
 */
export async function startCountingServer(kind: StoreKind): Promise<TestServer & Counted> {
  const test = await openTestStore(kind);
  let count = 0;
  let transactions = 0;
  const recurring: string[] = [];
  const recurringAs: string[] = [];
  const record = (statement: SqlFragment, options: StatementOptions | undefined) => {
    if (!options?.recurring) return;
    recurring.push(compile(statement).text);
    recurringAs.push(options.readOnly ? 'readOnly' : options.standalone ? 'standalone' : '-');
  };
  const counting: Store = new Proxy(test.store, {
    get(target, prop, receiver) {
      if (prop === 'query' || prop === 'transaction') {
        return (...args: unknown[]) => {
          count += 1;
          if (prop === 'query') record(args[0] as SqlFragment, args[1] as StatementOptions | undefined);
          if (prop === 'transaction') {
            transactions += 1;
            // The transaction's own statements: recurring ones are recorded too.
            const fn = args[0] as (tx: Transaction) => Promise<unknown>;
            args[0] = (tx: Transaction) =>
              fn({
                query: (statement, options) => {
                  record(statement, options);
                  return tx.query(statement, options);
                },
                advisoryLock: (key) => tx.advisoryLock(key),
                notify: (channel, payload) => tx.notify(channel, payload),
              });
          }
          return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const { base, key, app } = await serveWrapped(counting, test.store);
  return {
    base,
    key,
    store: test.store,
    app,
    logs: [],
    statements: () => count,
    transactions: () => transactions,
    recurring: () => [...recurring],
    recurringAs: () => [...recurringAs],
    async close() {
      await app.close();
      await test.close();
    },
  };
}

/**
 * A silent server whose data paths run on `serving`, a wrapper of `store` that watches or holds
 * its statements; the management service uses `store` itself, so the changes a test makes through
 * it are neither counted nor held.
 */
export async function serveWrapped(serving: Store, store: Store, key = generatePlatformKey()): Promise<{ base: string; key: string; app: FastifyInstance }> {
  const app = createServer({ store: serving, admin: createAdminService(store), adminKey: key, logLevel: 'silent' as never });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { base: `http://127.0.0.1:${address.port}`, key, app };
}

/** The answer of the next statement matching `pattern`, read from the database and then held back. */
export interface Held {
  /** Settles once the statement has run: its answer is read, not yet handed on. */
  ran: Promise<void>;
  /** Hands the answer on. */
  release(): void;
}

export interface GatedServer extends TestServer {
  /** Holds back the answer of the next statement whose text matches `pattern`. */
  holdNext(pattern: RegExp): Held;
  /** How many statements so far had a text matching `pattern`. */
  count(pattern: RegExp): number;
}

/**
 * A server on `store` whose statements go through a gate; the management service uses the store
 * directly (the changes a test makes are never held back). Closes `owned` with itself.
 */
export async function gatedServer(store: Store, key: string, owned: { close(): Promise<void> }, databaseUrl?: string): Promise<GatedServer> {
  const texts: string[] = [];
  const holds: { pattern: RegExp; ran: () => void; gate: Promise<void> }[] = [];
  const gated: Store = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return async (statement: SqlFragment, options?: unknown) => {
          const text = compile(statement).text;
          texts.push(text);
          const at = holds.findIndex((h) => h.pattern.test(text));
          const hold = at >= 0 ? holds.splice(at, 1)[0] : undefined;
          const result = await target.query(statement, options as never);
          if (hold) {
            hold.ran();
            await hold.gate;
          }
          return result;
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const { base, app } = await serveWrapped(gated, store, key);
  return {
    base,
    key,
    store,
    databaseUrl,
    app,
    logs: [],
    holdNext(pattern) {
      let ran!: () => void;
      let release!: () => void;
      const started = new Promise<void>((resolve) => (ran = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      holds.push({ pattern, ran, gate });
      return { ran: started, release };
    },
    count: (pattern) => texts.filter((t) => pattern.test(t)).length,
    async close() {
      await app.close();
      await owned.close();
    },
  };
}

export async function startGatedServer(kind: StoreKind): Promise<GatedServer> {
  const test: TestStore = await openTestStore(kind);
  return gatedServer(test.store, generatePlatformKey(), test, test.databaseUrl);
}

export async function startTestServer(kind: StoreKind, options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const test = await openTestStore(kind);
  const store = test.store;
  const logs: Record<string, unknown>[] = [];
  const key = generatePlatformKey();
  const app = createServer({
    store,
    admin: createAdminService(store, { oidc: options.oidc, functions: options.functions }),
    adminKey: key,
    logLevel: 'info',
    logDestination: { write: (line) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server did not listen on a TCP port');
  return {
    base: `http://127.0.0.1:${address.port}`,
    key,
    store,
    databaseUrl: test.databaseUrl,
    app,
    logs,
    async close() {
      await app.close();
      await test.close();
    },
  };
}

// any: parsed JSON of many different shapes, which the tests look into freely; a wrong guess
// fails the assertion that makes it, which is what a test should do.
export type Json = any;

export interface GraphQLReply {
  status: number;
  headers: Headers;
  body: Json;
}

/** The JSON body of a response, typed loosely for the tests to look into. */
export async function jsonOf(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

/** POSTs an operation to the management API with the platform key. */
export async function admin(
  server: Pick<TestServer, 'base' | 'key'>,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLReply> {
  const response = await fetch(`${server.base}/admin/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}
