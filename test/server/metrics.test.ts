// The operator's metrics on both stores, read from /metrics as Prometheus scrapes them: GraphQL
// operations by type and outcome over HTTP and WebSocket, their durations, the store's
// connections and the build. Each store gets a fresh server, so the counts are exact.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

/** The samples of one metric: label text (`a="b",c="d"`, sorted as exported) to value. */
async function samples(base: string, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match && match[1] === name) found.set(match[2] ?? '', Number(match[3]));
  }
  return found;
}

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe.each(STORE_KINDS)('metrics (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, 'type Note @model @permission(scope: EVERYONE, read: true) { text: String slug: String @unique }');
  });
  afterAll(async () => server?.close());

  it('counts GraphQL operations over HTTP by type and outcome, never by app', async () => {
    await app.data('mutation { createNote(input: { text: "a" }) { changedNote { id } } }');
    await app.data('{ viewer { allNotes { edges { node { text } } } } }');
    await app.data('{ viewer { allNotes { edges { node { text } } } } }');
    const anonymous = await app.gql('mutation { createNote(input: { text: "b" }) { changedNote { id } } }', {}, {});
    const denied = anonymous.body.errors[0].extensions.code;
    expect(['FORBIDDEN', 'UNAUTHENTICATED']).toContain(denied);
    const broken = await app.gql('{ allNotes { ');
    expect(broken.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const unknownField = await app.gql('{ nothingHere }');
    expect(unknownField.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const operations = await samples(server.base, 'tessera_graphql_operations_total');
    expect(operations.get('type="query",outcome="ok"')).toBe(2);
    expect(operations.get('type="mutation",outcome="ok"')).toBe(1);
    expect(operations.get(`type="mutation",outcome="${denied}"`)).toBe(1);
    // A document that does not parse or validate has no operation type yet.
    expect(operations.get('type="unknown",outcome="GRAPHQL_VALIDATION_FAILED"')).toBe(2);
    const durations = await samples(server.base, 'tessera_graphql_duration_seconds_count');
    expect(durations.get('type="query"')).toBe(2);
    expect(durations.get('type="mutation"')).toBe(2);
    const text = await (await fetch(`${server.base}/metrics`)).text();
    expect(text).not.toContain(app.id);
  });

  it('counts WebSocket operations too: a query once, a subscription once when it starts', async () => {
    const before = await samples(server.base, 'tessera_graphql_operations_total');
    const c = client(app.endpoint, app.token);
    const query = subscribe(c, '{ viewer { allNotes { edges { node { text } } } } }');
    await query.take(1);
    const sub = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
    await waitForSubscriptions(server.base, 1);
    await app.data('mutation { createNote(input: { text: "c" }) { changedNote { id } } }');
    await sub.take(1);
    await sub.close();
    await c.dispose();
    const after = await samples(server.base, 'tessera_graphql_operations_total');
    const delta = (labels: string) => (after.get(labels) ?? 0) - (before.get(labels) ?? 0);
    expect(delta('type="query",outcome="ok"')).toBe(1);
    expect(delta('type="subscription",outcome="ok"')).toBe(1);
    // The mutation above came over HTTP; the event it caused is not an operation.
    expect(delta('type="mutation",outcome="ok"')).toBe(1);
  });

  it('times database statements and transactions, telling failed ones apart', async () => {
    const created = await app.data('mutation { createNote(input: { text: "d" }) { changedNote { id } } }');
    const id = created.createNote.changedNote.id;
    await app.data('mutation { createNote(input: { text: "e", slug: "same" }) { changedNote { id } } }');
    const before = await samples(server.base, 'tessera_db_statement_duration_seconds_count');
    // A plain write is one statement; one whose payload reads the type's table again (here
    // through the viewer) runs in a transaction.
    const conflict = await app.gql('mutation { createNote(input: { text: "f", slug: "same" }) { changedNote { id } } }');
    expect(conflict.body.errors[0].extensions.code).toBe('CONFLICT');
    const again = 'viewer { allNotes(first: 1) { edges { node { id } } } }';
    await app.data(`mutation($id: ID!) { updateNote(input: { id: $id, text: "d2" }) { ${again} } }`, { id });
    const taken = await app.gql(`mutation($id: ID!) { updateNote(input: { id: $id, slug: "same" }) { ${again} } }`, { id });
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
    const after = await samples(server.base, 'tessera_db_statement_duration_seconds_count');
    const delta = (labels: string) => (after.get(labels) ?? 0) - (before.get(labels) ?? 0);
    // Two updates, one transaction each: one committed, one rolled back by the duplicate.
    expect(delta('kind="transaction",outcome="ok"')).toBe(1);
    expect(delta('kind="transaction",outcome="error"')).toBe(1);
    // The duplicate create's one statement and the duplicate update's UPDATE.
    expect(delta('kind="statement",outcome="error"')).toBe(2);
    expect(delta('kind="statement",outcome="ok"')).toBeGreaterThanOrEqual(2);
  });

  it('counts realtime events, their deliveries and the delay to deliver them', async () => {
    const before = await samples(server.base, 'tessera_realtime_deliveries_total');
    const c = client(app.endpoint, app.token);
    const first = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { text } } }');
    const second = subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { mutation } }');
    await waitForSubscriptions(server.base, 2);
    await app.data('mutation { createNote(input: { text: "f" }) { changedNote { id } } }');
    await Promise.all([first.take(1), second.take(1)]);
    await first.close();
    await second.close();
    await c.dispose();
    const after = await samples(server.base, 'tessera_realtime_deliveries_total');
    expect((after.get('') ?? 0) - (before.get('') ?? 0)).toBe(2);
    expect((await samples(server.base, 'tessera_realtime_events_total')).get('')).toBeGreaterThanOrEqual(1);
    expect((await samples(server.base, 'tessera_realtime_event_delay_seconds_count')).get('')).toBeGreaterThanOrEqual(1);
  });

  it("reports the store's connections and the build", async () => {
    // Between requests nothing holds a connection or waits for one, once the background work
    // (the functions worker polls each second, the realtime directory beats) has let go of its
    // own: a scrape can land in the middle of one of those, a leaked connection never lets go.
    let pool = await samples(server.base, 'tessera_db_pool_connections');
    for (const deadline = Date.now() + 5_000; pool.get('state="used"') !== 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pool = await samples(server.base, 'tessera_db_pool_connections');
    }
    expect([...pool.keys()].sort()).toEqual(['state="idle"', 'state="used"', 'state="waiting"']);
    expect(pool.get('state="used"')).toBe(0);
    expect(pool.get('state="waiting"')).toBe(0);
    expect(pool.get('state="idle"')).toBeGreaterThanOrEqual(1);
    const build = await samples(server.base, 'tessera_build_info');
    expect(build.get(`version="${version}",node="${process.version}",store="${kind}"`)).toBe(1);
  });
});
