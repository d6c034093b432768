// Holes found while proving the defaults, each with the attack that found it, through the real
// server on both stores: the old password of changeUserPassword guessed without limit by the
// holder of a stolen token, WebSocket logins counted under the proxy's address instead of the
// client's, the operator's own login limits, a `null` frame on the older WebSocket protocol
// that threw in the server's listener (found by the edge fuzzer), and made-up app ids filling
// the app cache.

import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AppRegistry } from '../../src/server/appRegistry.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { openTestStore } from '../helpers/stores.js';

const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';
const CHANGE = 'mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { changedUser { id } } }';

function codes(reply: GraphQLResult | { body: Json }): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions?.code as string);
}

describe.each(STORE_KINDS)('holes found while proving the defaults (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    // Behind a trusted proxy, with the operator's own, smaller limit per username.
    server = await startTestServer(kind, {
      trustProxy: true,
      loginLimits: {
        perUserAndAddress: { points: 10, seconds: 900 },
        perUser: { points: 20, seconds: 900 },
        perAddress: { points: 100, seconds: 3600 },
      },
    });
    app = await createTestApp(server, 'type Note @model { text: String }');
  });
  afterAll(async () => server?.close());

  async function signUp(username: string): Promise<{ id: string; token: string }> {
    const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username, password: 'right-pw-1' } });
    return { id: data.createUser.changedUser.id, token: data.createUser.token };
  }
  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('throttles old-password guesses through changeUserPassword, which share the login limits', async () => {
    const victim = await signUp('stolen');
    const asThief = { authorization: `Bearer ${victim.token}`, ...from('198.51.100.1') };
    for (let i = 0; i < 10; i++) expect(codes(await app.gql(CHANGE, { i: { id: victim.id, oldPassword: `guess-${i}`, newPassword: 'mine-now-1' } }, asThief))).toEqual(['UNAUTHENTICATED']);
    const blocked = await app.gql(CHANGE, { i: { id: victim.id, oldPassword: 'right-pw-1', newPassword: 'mine-now-1' } }, asThief);
    expect(blocked.status).toBe(429);
    expect(codes(blocked)).toEqual(['RATE_LIMITED']);
    // The same account's logins from that address are held at the same limit.
    expect(codes(await app.gql(LOGIN, { i: { username: 'stolen', password: 'right-pw-1' } }, from('198.51.100.1')))).toEqual(['RATE_LIMITED']);
    // The owner, elsewhere, still logs in and changes the password.
    const owner = await app.gql(LOGIN, { i: { username: 'stolen', password: 'right-pw-1' } }, from('203.0.113.9'));
    expect(codes(owner)).toEqual([]);
  });

  it("applies the operator's limit per username across addresses (20 here)", async () => {
    await signUp('target');
    for (let i = 0; i < 20; i++) expect(codes(await app.gql(LOGIN, { i: { username: 'target', password: `guess-${i}` } }, from(`192.0.2.${i + 1}`)))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await app.gql(LOGIN, { i: { username: 'target', password: 'right-pw-1' } }, from('192.0.2.200')))).toEqual(['RATE_LIMITED']);
  });

  it("counts WebSocket logins under the client's forwarded address, as HTTP does", async () => {
    await signUp('socketeer');
    const socketFrom = (address: string) =>
      createClient({
        url: app.endpoint.replace(/^http/, 'ws'),
        webSocketImpl: class extends WebSocket {
          constructor(url: string, protocols?: string | string[]) {
            super(url, protocols, { headers: from(address) });
          }
        },
        retryAttempts: 0,
        lazy: true,
      });
    const login = (client: ReturnType<typeof createClient>, password: string) =>
      new Promise<Json>((resolve, reject) => {
        let result: Json;
        client.subscribe({ query: LOGIN, variables: { i: { username: 'socketeer', password } } }, { next: (r) => void (result = r), error: reject, complete: () => resolve(result) });
      });
    const guesser = socketFrom('198.51.100.50');
    for (let i = 0; i < 10; i++) expect(codes({ body: await login(guesser, `guess-${i}`) })).toEqual(['UNAUTHENTICATED']);
    expect(codes({ body: await login(guesser, 'right-pw-1') })).toEqual(['RATE_LIMITED']);
    // Another client behind the same proxy is a different address: its login goes through.
    const owner = socketFrom('198.51.100.51');
    const ok = await login(owner, 'right-pw-1');
    expect(codes({ body: ok })).toEqual([]);
    expect(typeof ok.data.loginUser.token).toBe('string');
    await guesser.dispose();
    await owner.dispose();
  });
});

describe.each(STORE_KINDS)('the older WebSocket protocol (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, 'type Note @model { text: String }');
  });
  afterAll(async () => server?.close());

  it('answers frames that are JSON but not objects with an error, and keeps serving (a null frame threw in the listener)', async () => {
    const socket = new WebSocket(app.endpoint.replace(/^http/, 'ws'), ['graphql-ws']);
    const messages: Json[] = [];
    socket.on('message', (data) => void messages.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const until = async (n: number) => {
      for (let i = 0; i < 200 && messages.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return messages.slice(0, n);
    };
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${app.token}` } }));
    await until(2);
    expect(messages.slice(0, 2).map((m) => m.type)).toEqual(['connection_ack', 'ka']);
    for (const frame of ['null', '[]', '5', '"start"', 'true', 'not json']) socket.send(frame);
    const errors = (await until(8)).slice(2);
    expect(errors.map((m) => m.type)).toEqual(['error', 'error', 'error', 'error', 'error', 'error']);
    socket.send(JSON.stringify({ type: 'start', id: '1', payload: { query: '{ viewer { allNotes { aggregations { count } } } }' } }));
    const [data] = (await until(9)).slice(8);
    expect(data).toEqual({ type: 'data', id: '1', payload: { data: { viewer: { allNotes: { aggregations: { count: 0 } } } } } });
    socket.close();
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
  });
});

describe.each(STORE_KINDS)('the app cache (%s)', (kind) => {
  it('does not remember app ids that name no app, however many a client makes up', async () => {
    const test = await openTestStore(kind);
    const registry = new AppRegistry(test.store);
    try {
      const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
      const madeUp = () => 'z' + [...randomBytes(11)].map((b) => alphabet[b % alphabet.length]).join('');
      const answers = await Promise.all(Array.from({ length: 2000 }, () => registry.get(madeUp())));
      expect(answers.every((a) => a === null)).toBe(true);
      for (const id of ['\u0000', 'a'.repeat(2000), '../../etc', 'ABCDEFGHIJKL']) expect(await registry.get(id)).toBeNull();
      expect(registry.size).toBe(0);
    } finally {
      await test.close();
    }
  });
});

describe.each(STORE_KINDS)('links to objects the caller may not read (%s)', (kind) => {
  const SCHEMA = `
    type User @model { team: Team @relation(name: "TeamMembers") }
    type Team @model @permission(scope: RELATION, userFields: ["members"], read: true) {
      name: String!
      members: [User] @relation(name: "TeamMembers")
      board: Board @relation(name: "TeamBoard")
    }
    type Board @model @permission(scope: AUTHENTICATED, read: true, create: true) { title: String team: Team @relation(name: "TeamBoard") }
    type Club @model @permission(scope: EVERYONE, read: true) { name: String! }
  `;
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, SCHEMA);
  });
  afterAll(async () => server?.close());

  it('refuses to join a hidden team by setting teamId, exactly as for an id of nothing', async () => {
    const made = await app.data('mutation { createTeam(input: { name: "Red Team" }) { changedTeam { id } } }');
    const team = made.createTeam.changedTeam.id as string;
    const nothing = (await app.data('mutation { createTeam(input: { name: "Gone" }) { changedTeam { id } } }')).createTeam.changedTeam.id as string;
    await app.data('mutation($i: DeleteTeamInput!) { deleteTeam(input: $i) { clientMutationId } }', { i: { id: nothing } });
    const signUp = await app.gql('mutation { createUser(input: { username: "mallory", password: "pw-123456" }) { changedUser { id } token } }', {}, {});
    const me = signUp.body.data.createUser.changedUser.id as string;
    const as = { authorization: `Bearer ${signUp.body.data.createUser.token}` };
    const join = 'mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { team { name } } } }';
    const hidden = await app.gql(join, { i: { id: me, teamId: team } }, as);
    const missing = await app.gql(join, { i: { id: me, teamId: nothing } }, as);
    expect(codes(hidden)).toEqual(['BAD_USER_INPUT']);
    expect(hidden.body.errors[0].message).toBe(missing.body.errors[0].message);
    expect((await app.gql('{ viewer { allTeams { aggregations { count } } } }', {}, as)).body.data.viewer.allTeams.aggregations.count).toBe(0);
    // Signing up straight into the team, or creating a board on it (link held by the other side), fails alike.
    expect(codes(await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { token } }', { i: { username: 'eve', password: 'pw-123456', teamId: team } }, {}))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await app.gql('mutation($i: CreateBoardInput!) { createBoard(input: $i) { changedBoard { id } } }', { i: { title: 'b', teamId: team } }, as))).toEqual(['BAD_USER_INPUT']);
    // An admin puts mallory in the team; then she sees it.
    await app.data(join, { i: { id: me, teamId: team } });
    expect((await app.gql('{ viewer { allTeams { edges { node { name } } } } }', {}, as)).body.data.viewer.allTeams.edges).toEqual([{ node: { name: 'Red Team' } }]);
  });
});
