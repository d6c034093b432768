// Apps on several PostgreSQL servers (DESIGN §12): a second server of the test's own is added
// as a cluster; apps placed there keep their data, DDL and subscriptions there; a second
// instance and a restarted one serve them; a cluster going down affects only its own apps, and
// a statement that finds its pooled connection dead is answered as for a cluster that is down.

import { randomBytes } from 'node:crypto';
import { connect, createServer as createTcpServer } from 'node:net';
import type { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { SecretBox } from '../../src/secrets/index.js';
import { createServer, generatePlatformKey } from '../../src/server/index.js';
import { sql } from '../../src/sql/index.js';
import { Clusters, openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { startSecondPostgres } from '../helpers/secondPostgres.js';
import type { SecondPostgres } from '../helpers/secondPostgres.js';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { admin, jsonOf } from '../server/harness.js';
import type { Json } from '../server/harness.js';

const SCHEMA = `
type Note @model {
  text: String!
  author: User @relation(name: "NoteAuthor")
}
type User @model { notes: [Note] @relation(name: "NoteAuthor") }
`;

interface Instance {
  base: string;
  key: string;
  close(): Promise<void>;
}

/** A server as `tessera serve` makes it: the catalog's store, its clusters (URLs sealed under `secret`), the management API. */
async function startInstance(databaseUrl: string, key: string, secret: string): Promise<Instance> {
  const store = await openStore({ databaseUrl });
  const clusters = new Clusters(store, { sealer: new SecretBox(secret) });
  const app = createServer({ store, clusters, admin: createAdminService(clusters), adminKey: key, logLevel: 'silent' as never });
  app.addHook('onClose', async () => store.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { base: `http://127.0.0.1:${address.port}`, key, close: () => app.close() };
}

async function gql(base: string, appId: string, token: string | undefined, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${base}/graphql/${appId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: (await jsonOf(response)) as Json };
}

async function createApp(server: Instance, name: string, cluster?: string): Promise<{ id: string; cluster: string; token: string }> {
  const created = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id cluster } } }', { i: { name, schema: SCHEMA, ...(cluster ? { cluster } : {}) } });
  if (created.body.errors) throw new Error(JSON.stringify(created.body.errors));
  const { id, cluster: placed } = created.body.data.createApp.app;
  const token = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: id, name: 'tests' } });
  return { id, cluster: placed, token: token.body.data.createAdminToken.token };
}

/** Whether the app's schema exists in the database at `url`. */
async function schemaOn(url: string, appId: string): Promise<boolean> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    const { rows } = await c.query<{ present: boolean }>('SELECT to_regnamespace($1) IS NOT NULL AS present', [`app_${appId}`]);
    return rows[0]?.present === true;
  } finally {
    await c.end();
  }
}

const codes = (body: Json): string[] => (body.errors ?? []).map((e: Json) => e.extensions?.code);

interface Relay {
  /** The database URL, through the relay. */
  url: string;
  /**
   * The server goes dark as one whose host is lost: new connections are cut at once, and open
   * ones go silent, their clients hearing nothing until they send (the connection then ends).
   */
  dark(): void;
  /** New connections reach the server again (silent ones stay silent). */
  light(): void;
  close(): Promise<void>;
}

/** A TCP relay to the PostgreSQL server of `databaseUrl`, on a port of its own. */
async function startRelay(databaseUrl: string): Promise<Relay> {
  const target = new URL(databaseUrl);
  const open = new Set<{ client: Socket; server: Socket }>();
  const silent = new Set<Socket>();
  let dark = false;
  const relay = createTcpServer((client) => {
    if (dark) {
      client.destroy();
      return;
    }
    const server = connect(Number(target.port || 5432), target.hostname);
    const pair = { client, server };
    open.add(pair);
    const end = () => {
      open.delete(pair);
      client.destroy();
      server.destroy();
    };
    for (const socket of [client, server]) socket.on('error', end).on('close', end);
    client.pipe(server);
    server.pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    dark() {
      dark = true;
      for (const pair of open) {
        const { client, server } = pair;
        open.delete(pair);
        client.unpipe(server);
        server.unpipe(client);
        server.removeAllListeners().on('error', () => undefined);
        server.destroy();
        client.removeAllListeners().on('error', () => undefined);
        client.on('data', () => client.destroy()).on('close', () => silent.delete(client));
        silent.add(client);
      }
    },
    light() {
      dark = false;
    },
    async close() {
      for (const { client, server } of open) {
        client.destroy();
        server.destroy();
      }
      for (const client of silent) client.destroy();
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}

describe.runIf(STORES.includes('postgres'))('clusters (postgres)', () => {
  let main: TestStore;
  let east: SecondPostgres;
  let one: Instance;
  let two: Instance;
  const key = generatePlatformKey();
  const secret = randomBytes(32).toString('base64url');
  let placed: { id: string; cluster: string; token: string };
  let home: { id: string; cluster: string; token: string };

  beforeAll(async () => {
    [main, east] = await Promise.all([openTestStore('postgres'), startSecondPostgres()]);
    one = await startInstance(main.databaseUrl!, key, secret);
  }, 120_000);

  afterAll(async () => {
    await two?.close();
    await one?.close();
    await east?.close();
    await main?.close();
  });

  it('lists main alone until a cluster is added, and refuses bad names, bad URLs and unreachable servers', async () => {
    expect((await admin(one, '{ clusters { name apps reachable } }')).body.data.clusters).toEqual([{ name: 'main', apps: 0, reachable: true }]);
    const add = (name: string, url: string) => admin(one, 'mutation($i: AddClusterInput!) { addCluster(input: $i) { cluster { name apps reachable } } }', { i: { name, url } });
    expect(codes((await add('main', east.url)).body)).toEqual(['BAD_USER_INPUT']);
    expect(codes((await add('East!', east.url)).body)).toEqual(['BAD_USER_INPUT']);
    expect(codes((await add('east', 'mysql://127.0.0.1/x')).body)).toEqual(['BAD_USER_INPUT']);
    const closedPort = (await add('nowhere', 'postgres://postgres@127.0.0.1:1/postgres')).body;
    expect(codes(closedPort)).toEqual(['BAD_USER_INPUT']);
    expect(JSON.stringify(closedPort)).not.toMatch(/stack|at \//);
    expect((await add('east', east.url)).body.data.addCluster.cluster).toEqual({ name: 'east', apps: 0, reachable: true });
    expect(codes((await add('east', east.url)).body)).toEqual(['CONFLICT']);
    expect((await admin(one, '{ clusters { name apps reachable } }')).body.data.clusters).toEqual([
      { name: 'main', apps: 0, reachable: true },
      { name: 'east', apps: 0, reachable: true },
    ]);
  });

  it('never shows the cluster URL, and keeps it sealed in the catalog', async () => {
    const { rows } = await main.store.query<{ url_sealed: string }>(sql`SELECT url_sealed FROM tessera.clusters`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.url_sealed).not.toContain('127.0.0.1');
  });

  it('places an app on the cluster asked for: its schema lives there, not on main', async () => {
    placed = await createApp(one, 'eastapp', 'east');
    expect(placed.cluster).toBe('east');
    expect(await schemaOn(east.url, placed.id)).toBe(true);
    expect(await schemaOn(main.databaseUrl!, placed.id)).toBe(false);
    const app = (await admin(one, 'query($id: ID!) { app(id: $id) { id name cluster schemaVersion } }', { id: 'eastapp' })).body.data.app;
    expect(app).toEqual({ id: placed.id, name: 'eastapp', cluster: 'east', schemaVersion: 1 });
  });

  it('places an app without a cluster on the one holding the fewest apps', async () => {
    home = await createApp(one, 'mainapp');
    expect(home.cluster).toBe('main');
    expect(await schemaOn(main.databaseUrl!, home.id)).toBe(true);
    expect(codes((await admin(one, 'mutation { createApp(input: { name: "x", schema: "type A @model { id: ID! @isUnique }", cluster: "west" }) { app { id } } }')).body)).toEqual(['NOT_FOUND']);
  });

  it('keeps app names unique across clusters, leaving nothing behind on a refusal', async () => {
    const again = await admin(one, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'eastapp', schema: SCHEMA, cluster: 'main' } });
    expect(codes(again.body)).toEqual(['CONFLICT']);
    const apps = (await admin(one, '{ apps { name cluster } }')).body.data.apps;
    expect(apps).toEqual([
      { name: 'eastapp', cluster: 'east' },
      { name: 'mainapp', cluster: 'main' },
    ]);
  });

  it('serves the app on the cluster: users, rows, relations, a migration', async () => {
    const signUp = await gql(one.base, placed.id, undefined, 'mutation { createUser(input: { username: "ana", password: "correct horse battery" }) { token changedUser { id } } }');
    expect(signUp.body.errors).toBeUndefined();
    const userToken: string = signUp.body.data.createUser.token;
    const userId: string = signUp.body.data.createUser.changedUser.id;
    const created = await gql(one.base, placed.id, placed.token, 'mutation($u: ID!) { createNote(input: { text: "on east", authorId: $u }) { changedNote { id text author { username } } } }', { u: userId });
    expect(created.body.data.createNote.changedNote).toMatchObject({ text: 'on east', author: { username: 'ana' } });
    const me = await gql(one.base, placed.id, userToken, '{ viewer { user { id username } } }');
    expect(me.body.data.viewer.user).toEqual({ id: userId, username: 'ana' });
    const authored = await gql(one.base, placed.id, placed.token, '{ viewer { allUsers { edges { node { username notes { edges { node { text } } } } } } } }');
    expect(authored.body.data.viewer.allUsers.edges).toEqual([{ node: { username: 'ana', notes: { edges: [{ node: { text: 'on east' } }] } } }]);
    const rows = await new pg.Pool({ connectionString: east.url, max: 1 });
    try {
      expect((await rows.query(`SELECT count(*)::int AS n FROM app_${placed.id}."Note"`)).rows[0].n).toBe(1);
    } finally {
      await rows.end();
    }
    const migrated = await admin(one, 'mutation($i: MigrateSchemaInput!) { migrateSchema(input: $i) { applied version } }', {
      i: { appId: placed.id, schema: SCHEMA.replace('text: String!', 'text: String!\n  done: Boolean') },
    });
    expect(migrated.body.data.migrateSchema).toEqual({ applied: true, version: 2 });
    const done = await gql(one.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text done } } } } }');
    expect(done.body.data.viewer.allNotes.edges).toEqual([{ node: { text: 'on east', done: null } }]);
  });

  it("refuses one app's tokens at another app, whatever cluster each lives on", async () => {
    const crossed = await gql(one.base, home.id, placed.token, '{ viewer { allNotes { edges { node { id } } } } }');
    expect(crossed.status).toBe(401);
    expect(codes(crossed.body)).toEqual(['UNAUTHENTICATED']);
  });

  it('delivers subscription events of an app on the cluster, to an instance that did not make the change', async () => {
    two = await startInstance(main.databaseUrl!, key, secret);
    const c = client(`${two.base}/graphql/${placed.id}`, placed.token);
    const events = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
    await waitForSubscriptions(two.base, 1);
    await gql(one.base, placed.id, placed.token, 'mutation { createNote(input: { text: "heard" }) { changedNote { id } } }');
    const [event] = await events.take(1);
    expect(event).toEqual({ data: { subscribeToNote: { value: { text: 'heard' } } } });
    await events.close();
    await c.dispose();
    const read = await gql(two.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text } } } } }');
    expect(read.body.data.viewer.allNotes.edges.map((e: Json) => e.node.text).sort()).toEqual(['heard', 'on east']);
  });

  it('answers UNAVAILABLE (503, Retry-After) for the apps of a cluster that is down, and only for them', async () => {
    await east.stop();
    try {
      const refused = await gql(one.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text } } } } }');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(codes(refused.body)).toEqual(['UNAVAILABLE']);
      expect(refused.body.errors[0].extensions.cluster).toBe('east');
      expect(JSON.stringify(refused.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
      const served = await gql(one.base, home.id, home.token, '{ viewer { allNotes { edges { node { text } } } } }');
      expect(served.status).toBe(200);
      const ready = await fetch(`${one.base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await jsonOf(ready)).toEqual({ status: 'ok', clusters: [{ name: 'main', status: 'ok' }, { name: 'east', status: 'unavailable' }] });
      const listed = (await admin(one, '{ clusters { name reachable } }')).body.data.clusters;
      expect(listed).toEqual([{ name: 'main', reachable: true }, { name: 'east', reachable: false }]);
      // A new app goes where it can be served.
      const next = await createApp(one, 'whiledown');
      expect(next.cluster).toBe('main');
    } finally {
      await east.start();
    }
    const back = await gql(one.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text } } } } }');
    expect(back.status).toBe(200);
    expect(back.body.data.viewer.allNotes.edges).toHaveLength(2);
  });

  it('starts while a cluster is down, and serves its apps (subscriptions included) once it is back', async () => {
    await east.stop();
    let three: Instance | undefined;
    try {
      three = await startInstance(main.databaseUrl!, key, secret);
      expect((await gql(three.base, home.id, home.token, '{ viewer { allNotes { edges { node { text } } } } }')).status).toBe(200);
      const refused = await gql(three.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text } } } } }');
      expect(refused.status).toBe(503);
      expect(refused.body.errors[0].extensions).toMatchObject({ code: 'UNAVAILABLE', cluster: 'east' });
      expect((await fetch(`${three.base}/readyz`)).status).toBe(200);
      // A subscription to an app of main starts the realtime hub's LISTEN on every cluster now,
      // the one that is down included: that one is tried again until it answers.
      const onMain = client(`${three.base}/graphql/${home.id}`, home.token);
      const mainEvents = subscribe(onMain, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
      await waitForSubscriptions(three.base, 1);
      await east.start();
      const back = await gql(three.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text } } } } }');
      expect(back.status).toBe(200);
      // Its LISTEN connection to the cluster is made once the cluster answers: events arrive.
      const c = client(`${three.base}/graphql/${placed.id}`, placed.token);
      const events = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
      await waitForSubscriptions(three.base, 2);
      let heard: Json[] = [];
      for (let i = 0; i < 40 && heard.length === 0; i++) {
        await gql(one.base, placed.id, placed.token, 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { id } } }', { t: `back ${i}` });
        heard = await events.take(1, 500).catch(() => []);
      }
      expect(heard[0]?.data.subscribeToNote.value.text).toMatch(/^back \d+$/);
      await events.close();
      await c.dispose();
      await mainEvents.close();
      await onMain.dispose();
    } finally {
      await east.start();
      await three?.close();
    }
  });

  it('serves the app after a restart, from the placement and sealed URL in the catalog', async () => {
    await one.close();
    one = await startInstance(main.databaseUrl!, key, secret);
    const read = await gql(one.base, placed.id, placed.token, '{ viewer { allNotes { edges { node { text } } } } }');
    expect(read.status).toBe(200);
    const texts = read.body.data.viewer.allNotes.edges.map((e: Json) => e.node.text as string);
    expect(texts.filter((t: string) => !t.startsWith('back ')).sort()).toEqual(['heard', 'on east']);
    // The traffic the closed instance counted for the app was kept in the catalog.
    const traffic = await admin(one, 'query($id: ID!) { app(id: $id) { traffic(minutes: 60) { operations } } }', { id: placed.id });
    const operations = traffic.body.data.app.traffic.reduce((sum: number, m: Json) => sum + m.operations, 0);
    expect(operations).toBeGreaterThanOrEqual(5);
  });

  it('moves an app to the other cluster and back while a writer runs: no acknowledged write is lost', async () => {
    const mover = await createApp(one, 'mover', 'main');
    expect(mover.cluster).toBe('main');
    const signUp = await gql(one.base, mover.id, undefined, 'mutation { createUser(input: { username: "bo", password: "correct horse battery" }) { token } }');
    const userToken: string = signUp.body.data.createUser.token;
    for (let i = 0; i < 20; i++) {
      const batch = await gql(one.base, mover.id, mover.token, `mutation { ${Array.from({ length: 10 }, (_, j) => `n${j}: createNote(input: { text: "seed ${i}-${j}" }) { changedNote { id } }`).join(' ')} }`);
      expect(batch.body.errors).toBeUndefined();
    }
    // Subscribed on the other instance before the move, heard after it.
    const c = client(`${two.base}/graphql/${mover.id}`, mover.token);
    const events = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
    await waitForSubscriptions(two.base, 1);

    const acknowledged: string[] = [];
    let running = true;
    const writer = (async () => {
      for (let n = 0; running; n++) {
        const text = `w${n}`;
        for (;;) {
          const reply = await gql(n % 2 === 0 ? one.base : two.base, mover.id, mover.token, 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { id } } }', { t: text });
          if (reply.status === 200 && !reply.body.errors) {
            acknowledged.push(text);
            break;
          }
          // A write held off by the move is refused as a whole, to be sent again.
          expect(reply.status).toBe(503);
          expect(codes(reply.body)).toEqual(['UNAVAILABLE']);
          expect(reply.headers.get('retry-after')).toBe('1');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    })();
    const move = (cluster: string) => admin(one, 'mutation($i: MoveAppInput!) { moveApp(input: $i) { app { id cluster schemaVersion } } }', { i: { appId: 'mover', cluster } });
    try {
      while (acknowledged.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      const there = await move('east');
      expect(there.body.errors).toBeUndefined();
      expect(there.body.data.moveApp.app).toEqual({ id: mover.id, cluster: 'east', schemaVersion: 1 });
      expect(await schemaOn(east.url, mover.id)).toBe(true);
      expect(await schemaOn(main.databaseUrl!, mover.id)).toBe(false);
      const atMove = acknowledged.length;
      while (acknowledged.length < atMove + 5) await new Promise((resolve) => setTimeout(resolve, 20));
      const back = await move('main');
      expect(back.body.data.moveApp.app.cluster).toBe('main');
      expect(await schemaOn(east.url, mover.id)).toBe(false);
      expect(await schemaOn(main.databaseUrl!, mover.id)).toBe(true);
      const atReturn = acknowledged.length;
      while (acknowledged.length < atReturn + 5) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      running = false;
      await writer;
    }
    const all = await gql(one.base, mover.id, mover.token, '{ viewer { allNotes(first: 1000) { edges { node { text } } } } }');
    const texts: string[] = all.body.data.viewer.allNotes.edges.map((e: Json) => e.node.text);
    const written = texts.filter((t) => t.startsWith('w')).sort();
    expect(written).toEqual([...acknowledged].sort());
    expect(texts.filter((t) => t.startsWith('seed'))).toHaveLength(200);
    // Users, their tokens and the app's admin token came along.
    const me = await gql(two.base, mover.id, userToken, '{ viewer { user { username } } }');
    expect(me.body.data.viewer.user).toEqual({ username: 'bo' });
    const login = await gql(one.base, mover.id, undefined, 'mutation { loginUser(input: { username: "bo", password: "correct horse battery" }) { token } }');
    expect(typeof login.body.data.loginUser.token).toBe('string');
    // The subscription made before the moves heard every acknowledged write, and still hears new ones.
    await gql(one.base, mover.id, mover.token, 'mutation { createNote(input: { text: "after the moves" }) { changedNote { id } } }');
    const received = await events.take(acknowledged.length + 1, 10_000);
    expect(received.map((e: Json) => e.data.subscribeToNote.value.text).sort()).toEqual([...acknowledged, 'after the moves'].sort());
    await events.close();
    await c.dispose();
  });

  it('refuses to move an app to a cluster that does not exist, leaving it where it is', async () => {
    const refused = await admin(one, 'mutation { moveApp(input: { appId: "eastapp", cluster: "west" }) { app { id } } }');
    expect(codes(refused.body)).toEqual(['NOT_FOUND']);
    const app = (await admin(one, '{ app(id: "eastapp") { cluster } }')).body.data.app;
    expect(app).toEqual({ cluster: 'east' });
  });

  it('forks an app beside its original, and deletes it from its cluster, freeing its name', async () => {
    const fork = await admin(one, 'mutation { forkApp(input: { appId: "eastapp", name: "eastfork" }) { app { id cluster } } }');
    expect(fork.body.errors).toBeUndefined();
    const forked = fork.body.data.forkApp.app;
    expect(forked.cluster).toBe('east');
    expect(await schemaOn(east.url, forked.id)).toBe(true);
    const deleted = await admin(one, 'mutation { deleteApp(input: { appId: "eastfork" }) { deleted } }');
    expect(deleted.body.data.deleteApp.deleted).toBe(true);
    expect(await schemaOn(east.url, forked.id)).toBe(false);
    const reused = await createApp(one, 'eastfork', 'main');
    expect(reused.cluster).toBe('main');
  });
});

describe.runIf(STORES.includes('postgres'))('a cluster whose connections go silent (postgres)', () => {
  let main: TestStore;
  let far: TestStore;
  let relay: Relay;
  let server: Instance;
  let app: { id: string; cluster: string; token: string };
  const secret = randomBytes(32).toString('base64url');
  const notes = '{ viewer { allNotes { edges { node { text } } } } }';
  const createNote = 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { text } } }';

  beforeAll(async () => {
    [main, far] = await Promise.all([openTestStore('postgres'), openTestStore('postgres')]);
    relay = await startRelay(far.databaseUrl!);
    server = await startInstance(main.databaseUrl!, generatePlatformKey(), secret);
    const added = await admin(server, 'mutation($i: AddClusterInput!) { addCluster(input: $i) { cluster { name } } }', { i: { name: 'east', url: relay.url } });
    expect(added.body.errors).toBeUndefined();
    app = await createApp(server, 'far', 'east');
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await relay?.close();
    await far?.close();
    await main?.close();
  });

  /** The answer is UNAVAILABLE for the cluster, never data nor an internal error. */
  const expectUnavailable = (reply: { status: number; headers: Headers; body: Json }) => {
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(codes(reply.body)).toEqual(['UNAVAILABLE']);
    expect(reply.body.errors[0].extensions.cluster).toBe('east');
  };

  /** Reads the app's notes once the cluster answers again: a connection lost meanwhile is answered UNAVAILABLE when taken. */
  const readWhenBack = async () => {
    for (let i = 0; ; i++) {
      const read = await gql(server.base, app.id, app.token, notes);
      if (read.status === 200 || i === 20) return read;
      expectUnavailable(read);
    }
  };

  it('answers UNAVAILABLE when the pooled connection a statement takes turns out to be dead, and serves again once the cluster answers', async () => {
    const written = await gql(server.base, app.id, app.token, createNote, { t: 'kept' });
    expect(written.body.errors).toBeUndefined();
    expect((await gql(server.base, app.id, app.token, notes)).status).toBe(200);
    // The connections in the pool are open as far as this instance knows: the next read takes one.
    relay.dark();
    expectUnavailable(await gql(server.base, app.id, app.token, notes));
    relay.light();
    const back = await readWhenBack();
    expect(back.status).toBe(200);
    expect(back.body.data.viewer.allNotes.edges).toEqual([{ node: { text: 'kept' } }]);
    // A write that takes such a connection is refused as a whole, whether it is one statement
    // or a transaction (a user's sign-up): it never reached the cluster.
    const writes: [string, Record<string, unknown>][] = [
      [createNote, { t: 'lost' }],
      ['mutation { createUser(input: { username: "lost", password: "correct horse battery" }) { changedUser { id } } }', {}],
    ];
    for (const [write, variables] of writes) {
      relay.dark();
      expectUnavailable(await gql(server.base, app.id, app.token, write, variables));
      relay.light();
      expect((await readWhenBack()).status).toBe(200);
    }
    const kept = await gql(server.base, app.id, app.token, '{ viewer { allNotes { edges { node { text } } } allUsers { edges { node { username } } } } }');
    expect(kept.body.data.viewer).toEqual({ allNotes: { edges: [{ node: { text: 'kept' } }] }, allUsers: { edges: [] } });
  });

  it('closes quietly while it is still trying to listen on a cluster that is down', async () => {
    const uncaught: unknown[] = [];
    const hear = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', hear);
    relay.dark();
    try {
      // Started, its LISTEN on the cluster has failed once and is due again in half a second.
      const other = await startInstance(main.databaseUrl!, server.key, secret);
      await other.close();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      process.off('uncaughtException', hear);
      relay.light();
    }
    expect(uncaught).toEqual([]);
  });
});

describe.runIf(STORES.includes('embedded'))('clusters (embedded)', () => {
  let test: TestStore;
  let server: Instance;

  beforeAll(async () => {
    test = await openTestStore('embedded');
    const store: Store = test.store;
    const key = generatePlatformKey();
    const clusters = new Clusters(store, { sealer: new SecretBox(randomBytes(32).toString('base64url')) });
    const app = createServer({ store, clusters, admin: createAdminService(clusters), adminKey: key, logLevel: 'silent' as never });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    server = { base: `http://127.0.0.1:${address.port}`, key, close: () => app.close() };
  });

  afterAll(async () => {
    await server?.close();
    await test?.close();
  });

  it('has main alone, places every app there, and refuses to add a cluster', async () => {
    expect((await admin(server, '{ clusters { name apps reachable } }')).body.data.clusters).toEqual([{ name: 'main', apps: 0, reachable: true }]);
    const app = await createApp(server, 'local');
    expect(app.cluster).toBe('main');
    const added = await admin(server, 'mutation { addCluster(input: { name: "east", url: "postgres://postgres@127.0.0.1:5432/postgres" }) { cluster { name } } }');
    expect(codes(added.body)).toEqual(['BAD_USER_INPUT']);
    expect(added.body.errors[0].message).toMatch(/PostgreSQL/);
    const moved = await admin(server, 'mutation { moveApp(input: { appId: "local", cluster: "main" }) { app { id } } }');
    expect(codes(moved.body)).toEqual(['BAD_USER_INPUT']);
    expect(codes((await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'x', schema: SCHEMA, cluster: 'east' } })).body)).toEqual(['NOT_FOUND']);
    expect((await admin(server, '{ clusters { name apps } }')).body.data.clusters).toEqual([{ name: 'main', apps: 1 }]);
  });
});
