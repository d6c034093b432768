// An adversarial review of the performance fast paths, through the real server over HTTP as a
// client would attack it, on both stores:
//
// - query statements compiled once in a model's shared context and run for every app of that
//   model (compile/context.ts, statementCache.ts, execute.ts). The second app here is a fork of
//   the first, so its users, roles and rows carry the very same ids: a statement that ran on the
//   wrong app's tables, or with the wrong app's rules or settings, would show at once;
// - one-statement writes, kept per root field, kind of caller and input shape
//   (mutations/oneStatement.ts): a plan kept for one caller must never serve one a rule refuses,
//   and functions attached later (BEFORE, EVENT) must still run;
// - the query variant without the admin arm for users known not to be app admins
//   (accounts/tokenCache.ts): a change of the built-in `admin` role counts from the next request,
//   per app.
//
// Each attack first lets the fast path keep a plan (an admin token, another user, another app),
// then sends the same document as the caller the rules refuse. One test holds a defect this
// review found and execute.ts now closes: a write kept under its root field's response key
// answered with the payload of the request that kept it, whatever @skip/@include on the root
// fields said for the next one.

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSchemaName } from '../../src/store/index.js';
import { STORE_KINDS, createTestApp, testAppOf } from '../api/harness.js';
import type { GraphQLResult, TestApp } from '../api/harness.js';
import { Receiver, createEventFunction, startFunctionsServer } from '../functions/harness.js';
import { admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { sleep } from '../helpers/wait.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: AUTHENTICATED, read: true)
  @permission(scope: SELF, update: true) {
  notes: [Note] @relation(name: "NoteOwner")
  vaults: [Vault] @relation(name: "VaultOwner")
  boards: [Board] @relation(name: "BoardOwner")
}
type Note @model
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["owner"], read: true, update: true, delete: true) {
  text: String
  owner: User @relation(name: "NoteOwner")
}
type Memo @model @permission(scope: ROLE, roles: ["Editors"], read: true) { text: String }
type Secret @model { text: String }
type Vault @model @permission(scope: RELATION, userFields: ["owner"], create: true, read: true) {
  name: String
  owner: User @relation(name: "VaultOwner")
  pins: [Pin] @relation(name: "VaultPins")
}
type Board @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: RELATION, userFields: ["owner"], update: true, delete: true) {
  title: String!
  featured: Boolean @permission(scope: ROLE, roles: ["Editors"], create: true, update: true)
  owner: User @relation(name: "BoardOwner")
  pins: [Pin] @relation(name: "BoardPins")
}
type Pin @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: AUTHENTICATED, create: true, update: true, delete: true) {
  label: String
  code: String @unique
  board: Board @relation(name: "BoardPins")
  vault: Vault @relation(name: "VaultPins")
}
`;

const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';
const ENROL = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }';
const REMOVE = 'mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { clientMutationId } }';
const UPDATE_APP = 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }';
const CREATE_PIN = 'mutation($i: CreatePinInput!) { createPin(input: $i) { changedPin { id label board { title } } } }';
const UPDATE_PIN = 'mutation($i: UpdatePinInput!) { updatePin(input: $i) { changedPin { id label code board { title } } } }';
const PASSWORD = 'pw-123456';

const codeOf = (reply: GraphQLResult): string | undefined => reply.body.errors?.[0]?.extensions?.code;
const texts = (connection: Json): string[] => connection.edges.map((e: Json) => e.node.text ?? e.node.label ?? e.node.title).sort();

/** How many transactions the server has run (its /metrics): a one-statement write runs none. */
async function transactionsRun(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^tessera_db_statement_duration_seconds_count\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1]?.includes('kind="transaction"')) total += Number(match[2]);
  }
  return total;
}

/** A BEFORE endpoint that refuses every call (what an app's own endpoint would answer). */
async function refusingEndpoint(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      calls += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'pins are closed' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/before`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(STORE_KINDS)('fast paths keep every rule and every tenant (%s)', (kind) => {
  let server: TestServer;
  /** The original app, and B, a fork of it made in beforeAll: same model, same ids, its own rows. */
  let a: TestApp;
  let b: TestApp;
  /** User tokens per app: `a.ann`, `b.ann`, … */
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};

  /** POSTs to an app as one of its users (`who` names the app and user, `a.ann`), or anonymously (`anonymous`). */
  const as = (app: TestApp, who: string, query: string, variables: Record<string, unknown> = {}): Promise<GraphQLResult> =>
    app.gql(query, variables, who === 'anonymous' ? {} : { authorization: `Bearer ${tokens[who]}` });
  /** Like `as`, failing on any error; returns `data`. */
  const dataAs = async (app: TestApp, who: string, query: string, variables: Record<string, unknown> = {}): Promise<Json> => {
    const reply = await as(app, who, query, variables);
    expect(reply.body.errors, `${who}: ${JSON.stringify(reply.body.errors)}`).toBeUndefined();
    return reply.body.data;
  };
  /** Runs `request` and tells how many transactions the server ran meanwhile (0: the one-statement path). */
  const withTransactions = async <T>(request: () => Promise<T>): Promise<{ result: T; transactions: number }> => {
    const before = await transactionsRun(server.base);
    const result = await request();
    return { result, transactions: (await transactionsRun(server.base)) - before };
  };
  const setSettings = async (app: TestApp, settings: Record<string, unknown>) => {
    const reply = await admin(server, UPDATE_APP, { i: { appId: app.id, settings } });
    expect(reply.body.errors).toBeUndefined();
  };

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    a = await createTestApp(server, SCHEMA);
    for (const name of ['ann', 'bob']) {
      const reply = await a.gql(SIGN_UP, { i: { username: name, password: PASSWORD } }, {});
      expect(reply.body.errors).toBeUndefined();
      ids[name] = reply.body.data.createUser.changedUser.id;
      tokens[`a.${name}`] = reply.body.data.createUser.token;
    }
    ids.annNote = (await dataAs(a, 'a.ann', 'mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id } } }', { i: { text: 'ann-note', ownerId: ids.ann } })).createNote.changedNote.id;
    ids.annVault = (await dataAs(a, 'a.ann', 'mutation($i: CreateVaultInput!) { createVault(input: $i) { changedVault { id } } }', { i: { name: 'ann-vault', ownerId: ids.ann } })).createVault.changedVault.id;
    ids.annBoard = (await dataAs(a, 'a.ann', 'mutation($i: CreateBoardInput!) { createBoard(input: $i) { changedBoard { id } } }', { i: { title: 'ann-board', ownerId: ids.ann } })).createBoard.changedBoard.id;
    await a.data('mutation { createMemo(input: { text: "memo" }) { changedMemo { id } } createSecret(input: { text: "secret" }) { changedSecret { id } } }');
    ids.editors = (await a.data('mutation { createRole(input: { name: "Editors" }) { changedRole { id } } }')).createRole.changedRole.id;
    ids.adminRole = (await a.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { edges { node { id } } } } }')).viewer.allRoles.edges[0].node.id;

    // B: a fork of A, so the same users, roles and rows under the same ids, in tables of its own.
    const fork = await admin(server, 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id } } }', { i: { appId: a.id, name: `fork${Math.random().toString(36).slice(2, 8)}` } });
    expect(fork.body.errors).toBeUndefined();
    const bId: string = fork.body.data.forkApp.app.id;
    b = await testAppOf(server, bId);
    for (const name of ['ann', 'bob']) tokens[`b.${name}`] = (await dataAs(b, 'anonymous', LOGIN, { i: { username: name, password: PASSWORD } })).loginUser.token;
    // After the fork, ann joins Editors in A only (the role has the same id in B).
    await a.data(ENROL, { i: { userId: ids.ann, roleId: ids.editors } });
  }, 120_000);
  afterAll(async () => server?.close());

  it('the fork shares its model with the original: both apps are served by one schema and its shared statements', async () => {
    await dataAs(a, 'a.ann', '{ viewer { user { id } } }');
    await dataAs(b, 'b.ann', '{ viewer { user { id } } }');
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    // Every attack below relies on this: the two apps compile their queries in one shared context.
    expect(metrics).toMatch(/^tessera_app_cache_apps 2$/m);
    expect(metrics).toMatch(/^tessera_app_cache_schemas 1$/m);
    // The fork's user is the same user id, but a token of one app is worthless at the other.
    const crossed = await b.gql('{ viewer { user { id } } }', {}, { authorization: `Bearer ${tokens['a.ann']}` });
    expect(crossed.status).toBe(401);
  });

  it('runs a shared RELATION-rule statement on the asking app’s tables only, whichever app compiled it (same user id in both)', async () => {
    // A row only A has, owned by ann (whose id is the same in B).
    const made = await dataAs(a, 'a.ann', 'mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id } } }', { i: { text: 'A-only', ownerId: ids.ann } });
    const aOnly: string = made.createNote.changedNote.id;
    const NOTES = '{ viewer { allNotes { edges { node { text } } aggregations { count } } } }';
    // Anonymous in B compiles the statement first (the variant without the admin arm), then users of either app.
    expect((await dataAs(b, 'anonymous', NOTES)).viewer.allNotes).toEqual({ edges: [], aggregations: { count: 0 } });
    expect(texts((await dataAs(a, 'a.ann', NOTES)).viewer.allNotes)).toEqual(['A-only', 'ann-note']);
    expect((await dataAs(b, 'b.ann', NOTES)).viewer.allNotes).toEqual({ edges: [{ node: { text: 'ann-note' } }], aggregations: { count: 1 } });
    expect((await dataAs(a, 'a.bob', NOTES)).viewer.allNotes).toEqual({ edges: [], aggregations: { count: 0 } });
    // By id, through getNote and node, compiled by A first: B has no such row.
    for (const query of ['query($id: ID!) { getNote(id: $id) { text } }', 'query($id: ID!) { node(id: $id) { id } }']) {
      expect(Object.values(await dataAs(a, 'a.ann', query, { id: aOnly }))[0]).not.toBeNull();
      expect(Object.values(await dataAs(b, 'b.ann', query, { id: aOnly }))[0]).toBeNull();
    }
    // Writes of A's row through B: nothing there to change or delete, and A's row stays as it was.
    const update = await as(b, 'b.ann', 'mutation($i: UpdateNoteInput!) { updateNote(input: $i) { changedNote { text } } }', { i: { id: aOnly, text: 'via B' } });
    expect(codeOf(update)).toBe('NOT_FOUND');
    const removed = await dataAs(b, 'b.ann', 'mutation($i: DeleteNoteInput!) { deleteNote(input: $i) { changedNote { text } } }', { i: { id: aOnly } });
    expect(removed.deleteNote.changedNote).toBeNull();
    expect((await dataAs(a, 'a.ann', 'query($id: ID!) { getNote(id: $id) { text } }', { id: aOnly })).getNote).toEqual({ text: 'A-only' });
  });

  it('checks ROLE rules and app admins against the asking app’s roles, and forgets a user’s admin state per app', async () => {
    // ann is an Editor of A, not of B (enrolled after the fork).
    const MEMOS = '{ viewer { allMemos { edges { node { text } } } } }';
    expect(texts((await dataAs(a, 'a.ann', MEMOS)).viewer.allMemos)).toEqual(['memo']);
    expect(texts((await dataAs(b, 'b.ann', MEMOS)).viewer.allMemos)).toEqual([]);
    // The other way round, with another document: B compiles first.
    const MEMOS_AGAIN = '{ viewer { allMemos(first: 5) { edges { node { text } } } } }';
    expect(texts((await dataAs(b, 'b.ann', MEMOS_AGAIN)).viewer.allMemos)).toEqual([]);
    expect(texts((await dataAs(a, 'a.ann', MEMOS_AGAIN)).viewer.allMemos)).toEqual(['memo']);

    // The built-in admin role, same id in both apps. ann reads B twice first: B now knows she is not one of its admins.
    const SECRETS = '{ viewer { allSecrets { edges { node { text } } } } }';
    expect(texts((await dataAs(b, 'b.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    expect(texts((await dataAs(b, 'b.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    expect(texts((await dataAs(a, 'a.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    expect(texts((await dataAs(a, 'a.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    // Made an app admin of A: A answers so from the next request; B's answer about the same user id does not carry over.
    await a.data(ENROL, { i: { userId: ids.ann, roleId: ids.adminRole } });
    expect(texts((await dataAs(a, 'a.ann', SECRETS)).viewer.allSecrets)).toEqual(['secret']);
    expect(texts((await dataAs(b, 'b.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    expect(texts((await dataAs(a, 'a.ann', SECRETS)).viewer.allSecrets)).toEqual(['secret']);
    expect(texts((await dataAs(b, 'b.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    // Taken out again: the very next request of A reads as a plain user.
    await a.data(REMOVE, { i: { userId: ids.ann, roleId: ids.adminRole } });
    expect(texts((await dataAs(a, 'a.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    // And in B, where she was known not to be an admin for two requests: enrolled, she is one at once.
    await b.data(ENROL, { i: { userId: ids.ann, roleId: ids.adminRole } });
    expect(texts((await dataAs(b, 'b.ann', SECRETS)).viewer.allSecrets)).toEqual(['secret']);
    expect(texts((await dataAs(a, 'a.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
    await b.data(REMOVE, { i: { userId: ids.ann, roleId: ids.adminRole } });
    expect(texts((await dataAs(b, 'b.ann', SECRETS)).viewer.allSecrets)).toEqual([]);
  });

  it('validates a document shared by the apps of a model under each app’s own introspection switch', async () => {
    await setSettings(b, { introspection: false });
    const SCHEMA_QUERY = '{ __schema { queryType { name } } }';
    // A validates and runs it first; B, with the same model, must still refuse it.
    expect((await dataAs(a, 'anonymous', SCHEMA_QUERY)).__schema.queryType.name).toBe('Query');
    const refused = await as(b, 'anonymous', SCHEMA_QUERY);
    expect(codeOf(refused)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(refused.body.data ?? null).toBeNull();
    await setSettings(b, { introspection: true });
  });

  it('runs a shared statement and a kept write under the asking app’s statement timeout, never another’s (PostgreSQL)', async () => {
    if (kind !== 'postgres') return;
    const TIMEOUT_MS = 200;
    await setSettings(b, { statementTimeoutMs: TIMEOUT_MS });
    const BOARDS = '{ viewer { allBoards { edges { node { title } } } } }';
    const PIN = { i: { label: 'slow' } };
    // A (10 s, the default) compiles the shared read first; each app keeps its own write.
    await dataAs(a, 'anonymous', BOARDS);
    await dataAs(a, 'a.bob', CREATE_PIN, { i: { label: 'warm' } });
    await dataAs(b, 'b.bob', CREATE_PIN, { i: { label: 'warm' } });
    const side = new pg.Client({ connectionString: server.databaseUrl });
    await side.connect();
    try {
      // B's tables locked by someone else: B's statements wait for the lock until B's timeout.
      await side.query('BEGIN');
      await side.query(`LOCK TABLE "${appSchemaName(b.id)}"."Board", "${appSchemaName(b.id)}"."Pin" IN ACCESS EXCLUSIVE MODE`);
      for (const [query, variables] of [[BOARDS, {}], [CREATE_PIN, PIN]] as const) {
        const started = Date.now();
        const reply = await as(b, 'b.bob', query, variables);
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(reply.body.errors?.[0]?.extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'statementTimeoutMs', maximum: TIMEOUT_MS });
      }
      await side.query('ROLLBACK');
      // Now A's tables locked for longer than B's timeout: every connection of the pool, B's
      // included, must run A's statements under A's own timeout and wait for the lock.
      await side.query('BEGIN');
      await side.query(`LOCK TABLE "${appSchemaName(a.id)}"."Board", "${appSchemaName(a.id)}"."Pin" IN ACCESS EXCLUSIVE MODE`);
      const waiting = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? as(a, 'anonymous', BOARDS) : as(a, 'a.bob', CREATE_PIN, { i: { label: `waited ${i}` } })));
      await sleep(TIMEOUT_MS * 3);
      await side.query('COMMIT');
      for (const reply of await Promise.all(waiting)) expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
    } finally {
      await side.end();
      await setSettings(b, { statementTimeoutMs: 10_000 });
    }
    // Nothing of B's timed-out write was kept.
    expect((await dataAs(b, 'anonymous', '{ viewer { allPins(where: { label: { eq: "slow" } }) { aggregations { count } } } }')).viewer.allPins.aggregations.count).toBe(0);
  });

  it('never lets a write kept for an admin token link a user to an object the user may not read', async () => {
    // The admin token keeps the one-statement plan of this document, vault link included.
    const kept = await withTransactions(() => a.data(CREATE_PIN, { i: { label: 'admin-pin', vaultId: ids.annVault } }));
    expect(kept.result.createPin.changedPin.label).toBe('admin-pin');
    expect(kept.transactions).toBe(0);
    // bob sends the very same document and input shape, naming ann's vault: as for an id of
    // nothing, checked in a transaction (the vault's read rule depends on the row).
    const bobs = await withTransactions(() => as(a, 'a.bob', CREATE_PIN, { i: { label: 'bob-pin', vaultId: ids.annVault } }));
    expect(codeOf(bobs.result)).toBe('BAD_USER_INPUT');
    expect(bobs.transactions).toBe(1);
    expect(bobs.result.body.data?.createPin ?? null).toBeNull();
    // ann may link her own vault; bob, after her, still may not.
    expect((await dataAs(a, 'a.ann', CREATE_PIN, { i: { label: 'ann-pin', vaultId: ids.annVault } })).createPin.changedPin.label).toBe('ann-pin');
    expect(codeOf(await as(a, 'a.bob', CREATE_PIN, { i: { label: 'bob-pin', vaultId: ids.annVault } }))).toBe('BAD_USER_INPUT');
    // The same through an update of bob's own pin.
    const bobPin = (await dataAs(a, 'a.bob', CREATE_PIN, { i: { label: 'bob-own' } })).createPin.changedPin.id;
    await a.data(UPDATE_PIN, { i: { id: bobPin, vaultId: ids.annVault } });
    await a.data(UPDATE_PIN, { i: { id: bobPin, vaultId: '' } });
    expect(codeOf(await as(a, 'a.bob', UPDATE_PIN, { i: { id: bobPin, vaultId: ids.annVault } }))).toBe('BAD_USER_INPUT');
    const linked = await a.data('{ viewer { allPins(where: { label: { in: ["bob-pin", "bob-own"] } }) { edges { node { label vault { id } } } } } }');
    expect(linked.viewer.allPins.edges).toEqual([{ node: { label: 'bob-own', vault: null } }]);
  });

  it('refuses a create whose rule depends on the relation id given, after an admin token kept the same write', async () => {
    const VAULT = 'mutation($i: CreateVaultInput!) { createVault(input: $i) { changedVault { name owner { id } } } }';
    const byAdmin = await withTransactions(() => a.data(VAULT, { i: { name: 'admin-made', ownerId: ids.ann } }));
    expect(byAdmin.result.createVault.changedVault).toEqual({ name: 'admin-made', owner: { id: ids.ann } });
    expect(byAdmin.transactions).toBe(0);
    // bob, same document and input shape, makes a vault for ann: the rule (owner is the caller) says no.
    const forged = await as(a, 'a.bob', VAULT, { i: { name: 'bob-for-ann', ownerId: ids.ann } });
    expect(codeOf(forged)).toBe('FORBIDDEN');
    expect((await dataAs(a, 'a.bob', VAULT, { i: { name: 'bob-own', ownerId: ids.bob } })).createVault.changedVault.owner).toEqual({ id: ids.bob });
    expect(codeOf(await as(a, 'a.bob', VAULT, { i: { name: 'bob-for-ann', ownerId: ids.ann } }))).toBe('FORBIDDEN');
    const vaults = await a.data('{ viewer { allVaults(where: { name: { eq: "bob-for-ann" } }) { aggregations { count } } } }');
    expect(vaults.viewer.allVaults.aggregations.count).toBe(0);
  });

  it('refuses a row-dependent update and a field rule to a user, after an admin token and an allowed user kept the same write', async () => {
    const UPDATE_BOARD = 'mutation($i: UpdateBoardInput!) { updateBoard(input: $i) { changedBoard { title } } }';
    // Kept for the admin token; then ann, the owner; then bob, who owns nothing.
    const byAdmin = await withTransactions(() => a.data(UPDATE_BOARD, { i: { id: ids.annBoard, title: 'by admin' } }));
    expect(byAdmin.result.updateBoard.changedBoard.title).toBe('by admin');
    expect(byAdmin.transactions).toBe(0);
    expect((await dataAs(a, 'a.ann', UPDATE_BOARD, { i: { id: ids.annBoard, title: 'by ann' } })).updateBoard.changedBoard.title).toBe('by ann');
    expect(codeOf(await as(a, 'a.bob', UPDATE_BOARD, { i: { id: ids.annBoard, title: 'by bob' } }))).toBe('FORBIDDEN');
    const DELETE_BOARD = 'mutation($i: DeleteBoardInput!) { deleteBoard(input: $i) { changedBoard { title } } }';
    const scratch = (await a.data('mutation { createBoard(input: { title: "scratch" }) { changedBoard { id } } }')).createBoard.changedBoard.id;
    expect((await a.data(DELETE_BOARD, { i: { id: scratch } })).deleteBoard.changedBoard.title).toBe('scratch');
    expect(codeOf(await as(a, 'a.bob', DELETE_BOARD, { i: { id: ids.annBoard } }))).toBe('FORBIDDEN');
    expect((await dataAs(a, 'anonymous', 'query($id: ID!) { getBoard(id: $id) { title } }', { id: ids.annBoard })).getBoard.title).toBe('by ann');
    // `featured` has a ROLE rule of its own: ann is an Editor of A (not of B), bob is not.
    const FEATURED = 'mutation($i: CreateBoardInput!) { createBoard(input: $i) { changedBoard { title featured } } }';
    expect((await a.data(FEATURED, { i: { title: 'f-admin', featured: true } })).createBoard.changedBoard.featured).toBe(true);
    expect((await dataAs(a, 'a.ann', FEATURED, { i: { title: 'f-ann', featured: true } })).createBoard.changedBoard.featured).toBe(true);
    expect(codeOf(await as(a, 'a.bob', FEATURED, { i: { title: 'f-bob', featured: true } }))).toBe('FORBIDDEN');
    // In B ann is no Editor: the plan A kept is not B's, and B's rules say no.
    expect(codeOf(await as(b, 'b.ann', FEATURED, { i: { title: 'f-ann-b', featured: true } }))).toBe('FORBIDDEN');
    const boards = await dataAs(a, 'anonymous', '{ viewer { allBoards(where: { title: { like: "f-%" } }) { edges { node { title } } } } }');
    expect(texts(boards.viewer.allBoards)).toEqual(['f-admin', 'f-ann']);
  });

  it('refuses links to another app’s objects on the one-statement path, and maps a taken unique value to CONFLICT', async () => {
    // A board that exists only in B.
    const bBoard = (await b.data('mutation { createBoard(input: { title: "B-only" }) { changedBoard { id } } }')).createBoard.changedBoard.id;
    // Board is readable by everyone: bob's link takes the one-statement path, where the foreign key refuses it.
    const made = await withTransactions(() => as(a, 'a.bob', CREATE_PIN, { i: { label: 'cross', boardId: bBoard } }));
    expect(codeOf(made.result)).toBe('BAD_USER_INPUT');
    expect(made.transactions).toBe(0);
    const own = (await dataAs(a, 'a.bob', CREATE_PIN, { i: { label: 'own-pin', boardId: ids.annBoard } })).createPin.changedPin;
    expect(own.board).toEqual({ title: 'by ann' });
    expect(codeOf(await as(a, 'a.bob', UPDATE_PIN, { i: { id: own.id, boardId: bBoard } }))).toBe('BAD_USER_INPUT');
    // Unique values, through a create and an update kept as one statement.
    const CODED = 'mutation($i: CreatePinInput!) { createPin(input: $i) { changedPin { code } } }';
    await dataAs(a, 'a.bob', CODED, { i: { code: 'taken' } });
    const twice = await withTransactions(() => as(a, 'a.bob', CODED, { i: { code: 'taken' } }));
    expect(twice.result.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', field: 'code' });
    expect(twice.transactions).toBe(0);
    const renamed = await as(a, 'a.bob', UPDATE_PIN, { i: { id: own.id, code: 'taken' } });
    expect(renamed.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', field: 'code' });
    const pins = await dataAs(a, 'anonymous', '{ viewer { allPins(where: { OR: [{ label: { eq: "cross" } }, { code: { eq: "taken" } }] }) { aggregations { count } } } }');
    expect(pins.viewer.allPins.aggregations.count).toBe(1);
  });

  it('calls BEFORE and EVENT functions attached after a write was kept, per app, for the same document', async () => {
    const DOC = 'mutation($i: CreatePinInput!) { createPin(input: $i) { changedPin { label } } }';
    // Kept in both apps while neither has any function.
    expect((await withTransactions(() => dataAs(a, 'a.bob', DOC, { i: { label: 'before any function (A)' } }))).transactions).toBe(0);
    expect((await withTransactions(() => dataAs(b, 'b.bob', DOC, { i: { label: 'before any function (B)' } }))).transactions).toBe(0);
    // An EVENT function of B: B's next write of the document leaves its event, A's does not.
    const receiver = await Receiver.start();
    const refusing = await refusingEndpoint();
    try {
      await createEventFunction(server, b.id, receiver, ['createPin'], 'pins');
      await dataAs(a, 'a.bob', DOC, { i: { label: 'heard? (A)' } });
      await dataAs(b, 'b.bob', DOC, { i: { label: 'heard (B)' } });
      const [event] = await receiver.waitFor(1, 'createPin');
      expect(event.app).toBe(b.id);
      expect(event.event.after.label).toBe('heard (B)');
      await sleep(300);
      expect(receiver.bodies('createPin').map((body) => body.event.after.label)).toEqual(['heard (B)']);
      // A BEFORE function of A that refuses: A's next write is refused and writes nothing; B's goes on.
      const before = await admin(server, 'mutation($i: CreateFunctionInput!) { createFunction(input: $i) { secret } }', {
        i: { appId: a.id, name: 'gate', kind: 'BEFORE', url: refusing.url, operations: ['createPin'] },
      });
      expect(before.body.errors).toBeUndefined();
      const refused = await as(a, 'a.bob', DOC, { i: { label: 'refused (A)' } });
      expect(refused.body.errors?.[0]).toMatchObject({ message: 'pins are closed', extensions: { code: 'REJECTED' } });
      expect(refusing.calls()).toBe(1);
      expect((await dataAs(b, 'b.bob', DOC, { i: { label: 'not gated (B)' } })).createPin.changedPin.label).toBe('not gated (B)');
      const count = await dataAs(a, 'anonymous', '{ viewer { allPins(where: { label: { eq: "refused (A)" } }) { aggregations { count } } } }');
      expect(count.viewer.allPins.aggregations.count).toBe(0);
    } finally {
      for (const [appId, name] of [[a.id, 'gate'], [b.id, 'pins']]) await admin(server, 'mutation($i: DeleteFunctionInput!) { deleteFunction(input: $i) { deleted } }', { i: { appId, name } });
      await receiver.down();
      await refusing.close();
    }
  });

  it('answers a kept write with the payload the request selects when @include/@skip decide a root field', async () => {
    // Two selections of one root field, the second only when $more: the payload depends on $more.
    // The directives sit on the root fields, which are collected outside the kept plan's
    // compilation (execute.ts: mutationRootFields): such writes are not kept at all.
    const DOC = `mutation($i: CreatePinInput!, $more: Boolean!) {
      pin: createPin(input: $i) { changedPin { label } }
      pin: createPin(input: $i) @include(if: $more) { changedPin { code } }
    }`;
    const first = await withTransactions(() => dataAs(a, 'a.bob', DOC, { i: { label: 'with code', code: 'inc-1' }, more: true }));
    expect(first.result.pin.changedPin).toEqual({ label: 'with code', code: 'inc-1' });
    expect(first.transactions).toBe(0);
    // Same caller kind and input shape, $more false: `code` was not asked for.
    const second = await dataAs(a, 'a.bob', DOC, { i: { label: 'without code', code: 'inc-2' }, more: false });
    expect(second.pin.changedPin).toEqual({ label: 'without code' });
    // And the other way round, with a document first kept for $more false.
    const SKIP = DOC.replace('@include(if: $more)', '@skip(if: $more)');
    expect((await dataAs(a, 'a.bob', SKIP, { i: { label: 'skip kept', code: 'inc-3' }, more: true })).pin.changedPin).toEqual({ label: 'skip kept' });
    expect((await dataAs(a, 'a.bob', SKIP, { i: { label: 'skip asked', code: 'inc-4' }, more: false })).pin.changedPin).toEqual({ label: 'skip asked', code: 'inc-4' });
  });

  it('stops sharing kept statements with an app whose rules change: a migrated fork reads and writes under its new rules', async () => {
    // Anonymous reads and a user's create, compiled and kept while A and B share their model.
    const BOARDS = '{ viewer { allBoards(where: { title: { eq: "by ann" } }) { edges { node { title } } } } }';
    const PINS = 'mutation($i: CreatePinInput!) { createPin(input: $i) { changedPin { label } } }';
    expect(texts((await dataAs(a, 'anonymous', BOARDS)).viewer.allBoards)).toEqual(['by ann']);
    expect((await withTransactions(() => dataAs(a, 'a.bob', PINS, { i: { label: 'shared era (A)' } }))).transactions).toBe(0);
    expect((await withTransactions(() => dataAs(b, 'b.bob', PINS, { i: { label: 'shared era (B)' } }))).transactions).toBe(0);
    // B closes Board to anonymous readers and Pin creation to Editors (bob is none).
    const replaced = (text: string, from: string, to: string): string => {
      expect(text).toContain(from);
      return text.replace(from, to);
    };
    const boardClosed = replaced(SCHEMA, 'type Board @model\n  @permission(scope: EVERYONE, read: true)', 'type Board @model\n  @permission(scope: AUTHENTICATED, read: true)');
    const closed = replaced(boardClosed, '@permission(scope: AUTHENTICATED, create: true, update: true, delete: true) {\n  label', '@permission(scope: ROLE, roles: ["Editors"], create: true) {\n  label');
    const migrated = await admin(server, 'mutation($i: MigrateSchemaInput!) { migrateSchema(input: $i) { applied } }', { i: { appId: b.id, schema: closed } });
    expect(migrated.body.errors).toBeUndefined();
    expect(texts((await dataAs(b, 'anonymous', BOARDS)).viewer.allBoards)).toEqual([]);
    expect(texts((await dataAs(a, 'anonymous', BOARDS)).viewer.allBoards)).toEqual(['by ann']);
    expect(codeOf(await as(b, 'b.bob', PINS, { i: { label: 'closed (B)' } }))).toBe('FORBIDDEN');
    expect((await dataAs(a, 'a.bob', PINS, { i: { label: 'still open (A)' } })).createPin.changedPin.label).toBe('still open (A)');
  });
});
