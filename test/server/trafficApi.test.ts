// An app's traffic through the management API, on both stores, after real clients used the
// app over HTTP and WebSocket: the latest operations newest first, with who asked and how each
// ended but nothing of what was sent; operations per minute with errors, failures and
// latencies; one app's traffic never shown under another; bad windows refused with a code.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { client, subscribe } from '../realtime/harness.js';
import { admin, startTestServer } from './harness.js';
import type { TestServer } from './harness.js';

const SCHEMA = 'type Note @model @permission(scope: EVERYONE, read: true) @permission(scope: AUTHENTICATED, create: true) { text: String }';
const SECRET = 'text-no-log-may-hold';
const TRAFFIC = `query($id: ID!, $minutes: Int!, $last: Int!) { app(id: $id) {
  recentOperations(last: $last) { at transport type name outcome durationMs status requestId caller userId }
  traffic(minutes: $minutes) { minute operations errors failures p50Ms p95Ms }
} }`;

describe.each(STORE_KINDS)('app traffic through the management API (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;
  let userId: string;
  const requestIds: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, SCHEMA);
    other = await createTestApp(server, SCHEMA);
    const send = async (query: string, variables: Record<string, unknown>, headers: Record<string, string>) => {
      const response = await fetch(app.endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
      requestIds.push(response.headers.get('x-request-id') ?? '');
      return { status: response.status, body: (await response.json()) as { data?: { createUser?: { token: string; changedUser: { id: string } } } } };
    };
    const signup = await send('mutation SignUp($i: CreateUserInput!) { createUser(input: $i) { token changedUser { id } } }', { i: { username: 'ann', password: 'correct horse battery' } }, {});
    userId = signup.body.data!.createUser!.changedUser.id;
    const token = signup.body.data!.createUser!.token;
    await send('mutation AddNote($t: String) { createNote(input: { text: $t }) { changedNote { id } } }', { t: SECRET }, { authorization: `Bearer ${token}` });
    await send('query ListNotes { viewer { allNotes { edges { node { text } } } } }', {}, {});
    await send('{ noSuchField }', {}, {});
    await send('{ __typename }', {}, { authorization: 'Bearer not-a-token' });
    const c = client(app.endpoint, token);
    await subscribe(c, 'query OverSocket { viewer { allNotes { edges { node { id } } } } }').take(1);
    await c.dispose();
  });
  afterAll(async () => server?.close());

  const read = async (id: string, minutes = 5, last = 50) => {
    const reply = await admin(server, TRAFFIC, { id, minutes, last });
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.app;
  };

  it('lists the latest operations newest first: what they were, who asked, how they ended', async () => {
    const { recentOperations: log } = await read(app.id);
    expect(log.map((l: { name: string | null; outcome: string }) => [l.name, l.outcome])).toEqual([
      ['OverSocket', 'ok'],
      [null, 'UNAUTHENTICATED'],
      [null, 'GRAPHQL_VALIDATION_FAILED'],
      ['ListNotes', 'ok'],
      ['AddNote', 'ok'],
      ['SignUp', 'ok'],
    ]);
    const [socket, refused, invalid, list, add, signup] = log;
    expect(socket).toMatchObject({ transport: 'websocket', type: 'query', status: null, caller: 'user', userId });
    expect(refused).toMatchObject({ transport: 'http', type: 'unknown', status: 401, caller: 'anonymous', userId: null });
    // application/json answers a validation error with 200 (GraphQL over HTTP's legacy media type).
    expect(invalid).toMatchObject({ type: 'unknown', status: 200, caller: 'anonymous' });
    expect(list).toMatchObject({ type: 'query', status: 200, caller: 'anonymous' });
    expect(add).toMatchObject({ type: 'mutation', status: 200, caller: 'user', userId });
    expect(signup).toMatchObject({ type: 'mutation', caller: 'anonymous' });
    // The request ids are the ones the clients got in x-request-id, in the order they were sent.
    expect([signup, add, list, invalid, refused].map((l: { requestId: string }) => l.requestId)).toEqual(requestIds);
    for (const line of log) {
      expect(line.durationMs).toBeGreaterThan(0);
      expect(Date.now() - Date.parse(line.at)).toBeLessThan(120_000);
    }
    expect(await read(app.id, 5, 2).then((d) => d.recentOperations.map((l: { name: string | null }) => l.name))).toEqual(['OverSocket', null]);
  });

  it('never keeps what a client sent', async () => {
    const reply = await admin(server, TRAFFIC, { id: app.id, minutes: 5, last: 50 });
    expect(JSON.stringify(reply.body)).not.toContain(SECRET);
    expect(JSON.stringify(reply.body)).not.toContain('correct horse');
    expect(JSON.stringify(reply.body)).not.toContain('not-a-token');
  });

  it('counts operations per minute, with errors and latencies, one entry per minute', async () => {
    const { traffic } = await read(app.id, 5);
    expect(traffic).toHaveLength(5);
    const minutes = traffic.map((m: { minute: string }) => Date.parse(m.minute));
    for (let i = 1; i < minutes.length; i += 1) expect(minutes[i] - minutes[i - 1]).toBe(60_000);
    const total = (key: string) => traffic.reduce((n: number, m: Record<string, number>) => n + m[key]!, 0);
    expect(total('operations')).toBe(6);
    expect(total('errors')).toBe(2);
    expect(total('failures')).toBe(0);
    const busy = traffic.filter((m: { operations: number }) => m.operations > 0);
    for (const m of busy) expect(m.p95Ms).toBeGreaterThanOrEqual(m.p50Ms);
    for (const m of traffic.filter((m: { operations: number }) => m.operations === 0)) expect([m.p50Ms, m.p95Ms]).toEqual([null, null]);
  });

  it("never shows one app's traffic under another", async () => {
    const { recentOperations, traffic } = await read(other.id);
    expect(recentOperations).toEqual([]);
    expect(traffic.every((m: { operations: number }) => m.operations === 0)).toBe(true);
  });

  it('refuses windows out of bounds with BAD_USER_INPUT', async () => {
    for (const [minutes, last] of [[0, 10], [1441, 10], [5, 0], [5, 101]]) {
      const reply = await admin(server, TRAFFIC, { id: app.id, minutes, last });
      expect(reply.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});
