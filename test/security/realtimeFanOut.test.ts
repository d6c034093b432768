// An adversarial review of the realtime fan-out's fast paths, through the real server as clients
// use it (graphql-ws and the older subscriptions-transport-ws protocol over WebSocket, mutations
// over HTTP), on both stores:
//
// - one statement evaluates an event for every subscriber of a subscription, their user ids
//   joined in as an array (compile/subscription.ts): each user must still hear exactly what
//   their own rules let them read — RELATION (one step, and through a many-to-many path), SELF,
//   ROLE, AUTHENTICATED against anonymous, field rules — as the rules stood when the event
//   committed (realtimeRulesAtCommit.test.ts checks that with the hub held behind);
// - subscribers of the same statement share one payload per event, and the payload's JSON is
//   written straight to their sockets (realtime/hub.ts, realtime/sink.ts): nothing may be shared
//   between subscribers whose filters, variables, aliases, protocols or identities differ;
// - the hub is keyed by app: a fork shares every user's and row's id with its original, and
//   neither may hear the other's events;
// - a connection whose credentials stop holding (a logout of every session, a revoked admin
//   token, a deleted user) is ended;
// - one subscriber's socket closing mid-burst does not touch anyone else's delivery;
// - PostgreSQL, two instances: frames held back while the hub works through a backlog
//   (realtime/batch.ts) are written even when the notification that ends the backlog is for an
//   app nobody on this instance subscribes to.
//
// A negative ("this subscriber heard nothing of it") is proven with a sentinel: a later event
// every subscriber may read, on the same connection. Notifications are handled in commit order
// and a connection's frames keep their order, so anything leaked would have arrived before it.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createAdminService } from '../../src/admin/index.js';
import { createServer } from '../../src/server/index.js';
import { openStore } from '../../src/store/index.js';
import { STORE_KINDS, createObject, createTestApp, deleteObject, testAppOf, updateObject } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { STORES } from '../helpers/stores.js';
import { admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { client, openSubscriptions, subscribe, until, waitForSubscriptions, wsUrl } from '../realtime/harness.js';
import type { Subscription } from '../realtime/harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: AUTHENTICATED, read: true)
  @permission(scope: SELF, update: true) {
  nickname: String
  phone: String @permission(scope: SELF, read: true)
  notes: [Note] @relation(name: "NoteOwner")
  docs: [Doc] @relation(name: "DocOwner")
  projects: [Project] @relation(name: "ProjectMembers")
}
type Notice @model @permission(scope: EVERYONE, read: true) { seq: Int! text: String! }
type Bulletin @model @permission(scope: AUTHENTICATED, read: true) { seq: Int! text: String! }
type Note @model @permission(scope: RELATION, userFields: ["owner"], read: true) {
  seq: Int!
  text: String!
  owner: User @relation(name: "NoteOwner")
}
type Doc @model
  @permission(scope: AUTHENTICATED, read: true)
  @permission(scope: RELATION, userFields: ["owner"], read: true, fields: ["secret"]) {
  title: String!
  secret: String
  owner: User @relation(name: "DocOwner")
}
type Project @model @permission(scope: RELATION, userFields: ["members"], read: true) {
  name: String!
  members: [User] @relation(name: "ProjectMembers")
  tasks: [Task] @relation(name: "ProjectTasks")
}
type Task @model @permission(scope: RELATION, userFields: ["project.members"], read: true) {
  seq: Int!
  title: String!
  project: Project @relation(name: "ProjectTasks")
}
type Memo @model @permission(scope: ROLE, roles: ["Editors"], read: true) { seq: Int! text: String! }
type Secret @model { seq: Int! text: String! }
`;

const PASSWORD = 'pw-123456';
const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';
const ENROL = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }';
const LEAVE = 'mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { clientMutationId } }';
const JOIN_PROJECT = 'mutation($i: AddToProjectMembersConnectionInput!) { addToProjectMembersConnection(input: $i) { clientMutationId } }';
const LEAVE_PROJECT = 'mutation($i: RemoveFromProjectMembersConnectionInput!) { removeFromProjectMembersConnection(input: $i) { clientMutationId } }';
/** The sentinel every subscriber may read. */
const ON_NOTICE = 'subscription { subscribeToNotice(mutations: [createNotice]) { value { seq } } }';
/** How long to wait for subscriptions and events (a bound on a loaded machine, not an expectation). */
const WAIT_MS = 10_000;

/** An event's `value` under the response key `key`, and its errors as [code, path]. */
function view(event: Json, key: string): { mutation?: string; value: Json; errors: [string, (string | number)[]][] } {
  const payload = event.data[key];
  return {
    ...(payload.mutation === undefined ? {} : { mutation: payload.mutation }),
    value: payload.value,
    errors: (event.errors ?? []).map((e: Json) => [e.extensions.code, e.path]),
  };
}

/** A subscriptions-transport-ws connection (subprotocol `graphql-ws`) on raw frames, as older Apollo clients open it. */
async function legacyConnection(endpoint: string, token: string | undefined) {
  const socket = new WebSocket(wsUrl(endpoint), ['graphql-ws']);
  const messages: Json[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Json));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload: token === undefined ? {} : { Authorization: `Bearer ${token}` } }));
  await until(() => (messages.some((m) => m.type === 'connection_ack') ? true : undefined), WAIT_MS, 'connection_ack');
  return {
    socket,
    start: (id: string, query: string, variables: Record<string, unknown> = {}) => socket.send(JSON.stringify({ id, type: 'start', payload: { query, variables } })),
    /** The data messages of subscription `id`, in order. */
    data: (id: string): Json[] => messages.filter((m) => m.type === 'data' && m.id === id).map((m) => m.payload),
  };
}

for (const kind of STORE_KINDS) {
  describe(`realtime fan-out: rules, identities and tenants (${kind})`, () => {
    let server: TestServer;
    let app: TestApp;
    const ids: Record<string, string> = {};
    const tokens: Record<string, string> = {};
    /** Clients a test opened; disposed after it, and the server back to no subscriptions. */
    let opened: Client[] = [];
    let sockets: WebSocket[] = [];
    let notices = 0;

    const open = (token?: string, endpoint = app.endpoint): { client: Client; closes: number[] } => {
      const c = client(endpoint, token);
      const closes: number[] = [];
      c.on('closed', (event) => void closes.push((event as { code: number }).code));
      opened.push(c);
      return { client: c, closes };
    };
    /** Opens `count` more subscriptions with `make` and waits until the server has them all. */
    const watching = async <T>(count: number, make: () => T): Promise<T> => {
      const before = await openSubscriptions(server.base);
      const made = make();
      await waitForSubscriptions(server.base, before + count, WAIT_MS);
      return made;
    };
    /** Creates a Notice and waits until each sentinel subscription has heard it. */
    const sentinel = async (subs: Subscription[]): Promise<void> => {
      notices += 1;
      await createObject(app, 'Notice', { seq: notices, text: 'sentinel' });
      for (const sub of subs) await until(() => (sub.events.some((e) => e.data?.subscribeToNotice?.value.seq === notices) ? true : undefined), WAIT_MS, `notice ${notices}`);
    };

    beforeAll(async () => {
      // Credentials of open connections are checked again four times a second (default: every minute).
      server = await startTestServer(kind, { credentialRecheckMs: 250 });
      app = await createTestApp(server, SCHEMA);
      for (const name of ['ann', 'bob', 'cat']) {
        const reply = await app.gql(SIGN_UP, { i: { username: name, password: PASSWORD, nickname: name.toUpperCase(), phone: `${name}-phone` } }, {});
        expect(reply.body.errors).toBeUndefined();
        ids[name] = reply.body.data.createUser.changedUser.id;
        tokens[name] = reply.body.data.createUser.token;
      }
    });
    afterEach(async () => {
      for (const c of opened) await c.dispose();
      for (const s of sockets) s.terminate();
      opened = [];
      sockets = [];
      await waitForSubscriptions(server.base, 0, WAIT_MS);
    });
    afterAll(async () => server?.close());

    it('answers one document with the same variables to each subscriber as their own rules read it, for a create and a delete alike', async () => {
      const DOCS = 'subscription($m: [DocMutationEvent]!) { subscribeToDoc(mutations: $m) { mutation value { title secret owner { nickname phone } } } }';
      const variables = { m: ['createDoc', 'deleteDoc'] };
      const [ann, bob, anonymous] = [open(tokens.ann), open(tokens.bob), open()];
      const subs = await watching(6, () => ({
        ann: subscribe(ann.client, DOCS, variables),
        bob: subscribe(bob.client, DOCS, variables),
        anonymous: subscribe(anonymous.client, DOCS, variables),
        sentinels: [ann, bob, anonymous].map((c) => subscribe(c.client, ON_NOTICE)),
      }));
      const id = await createObject(app, 'Doc', { title: 'plans', secret: "ann's only", ownerId: ids.ann });
      await deleteObject(app, 'Doc', id);
      await sentinel(subs.sentinels);

      // The owner reads the field only she may read, and her own phone (SELF), in both events.
      const own = { value: { title: 'plans', secret: "ann's only", owner: { nickname: 'ANN', phone: 'ann-phone' } }, errors: [] };
      expect(subs.ann.events.map((e) => view(e, 'subscribeToDoc'))).toEqual([
        { mutation: 'createDoc', ...own },
        { mutation: 'deleteDoc', ...own },
      ]);
      // Another user hears of the row (AUTHENTICATED), never of its secret nor of ann's phone,
      // though the delete's payload comes from the row's last state.
      const other = {
        value: { title: 'plans', secret: null, owner: { nickname: 'ANN', phone: null } },
        errors: [
          ['FORBIDDEN', ['subscribeToDoc', 'value', 'secret']],
          ['FORBIDDEN', ['subscribeToDoc', 'value', 'owner', 'phone']],
        ],
      };
      const bobs = subs.bob.events.map((e) => view(e, 'subscribeToDoc'));
      expect(bobs.map((b) => ({ ...b, errors: [...b.errors].sort() }))).toEqual([
        { mutation: 'createDoc', ...other, errors: [...other.errors].sort() },
        { mutation: 'deleteDoc', ...other, errors: [...other.errors].sort() },
      ]);
      expect(JSON.stringify(subs.bob.events)).not.toContain("ann's only");
      expect(JSON.stringify(subs.bob.events)).not.toContain('ann-phone');
      // Anonymous subscribers hear nothing of an AUTHENTICATED type.
      expect(subs.anonymous.events).toEqual([]);
    });

    it('never lets a filter on a hidden field match, nor its NOT depend on the hidden value, for a delete either', async () => {
      const bob = open(tokens.bob);
      const query = 'subscription($f: DocSubscriptionFilter) { subscribeToDoc(mutations: [deleteDoc], filter: $f) { value { title } } }';
      const subs = await watching(3, () => ({
        matching: subscribe(bob.client, query, { f: { secret: { matches: '^top' } } }),
        notMatching: subscribe(bob.client, query, { f: { NOT: { secret: { matches: '^top' } } } }),
        sentinel: subscribe(bob.client, ON_NOTICE),
      }));
      for (const [title, secret] of [['first', 'top secret'], ['second', 'not so secret']]) await deleteObject(app, 'Doc', await createObject(app, 'Doc', { title, secret, ownerId: ids.ann }));
      await sentinel([subs.sentinel]);
      // bob may not read ann's secrets: the filter holds for neither row, its NOT for both.
      expect(subs.matching.events).toEqual([]);
      expect(subs.notMatching.events.map((e) => e.data.subscribeToDoc.value.title)).toEqual(['first', 'second']);
    });

    it('shares nothing between subscribers whose variables, identities, aliases or protocols differ', async () => {
      const NOTES = 'subscription($f: NoteSubscriptionFilter) { subscribeToNote(mutations: [createNote], filter: $f) { value { seq text } } }';
      const ALIASED = 'subscription Mine($f: NoteSubscriptionFilter) { mine: subscribeToNote(mutations: [createNote], filter: $f) { value { seq text } } }';
      const onAnn = { f: { ownerId: { eq: ids.ann } } };
      const [ann, bob, cat, anonymous] = [open(tokens.ann), open(tokens.bob), open(tokens.cat), open()];
      // Older Apollo clients (subscriptions-transport-ws), written to by the same fast path.
      const legacyAnn = await legacyConnection(app.endpoint, tokens.ann);
      const legacyBob = await legacyConnection(app.endpoint, tokens.bob);
      sockets.push(legacyAnn.socket, legacyBob.socket);
      const subs = await watching(13, () => {
        for (const legacy of [legacyAnn, legacyBob]) {
          legacy.start('notes', NOTES, onAnn);
          legacy.start('notice', ON_NOTICE);
        }
        return {
          // ann's own filter; bob's copy of it, the very same text and variables aimed at ann's notes.
          ann: subscribe(ann.client, NOTES, onAnn),
          bobOnAnn: subscribe(bob.client, NOTES, onAnn),
          bobOnBob: subscribe(bob.client, NOTES, { f: { ownerId: { eq: ids.bob } } }),
          // Every note, under another response key.
          cat: subscribe(cat.client, ALIASED, { f: { seq: { gte: 0 } } }),
          anonymous: subscribe(anonymous.client, NOTES, {}),
          sentinels: [ann, bob, cat, anonymous].map((c) => subscribe(c.client, ON_NOTICE)),
        };
      });
      await createObject(app, 'Note', { seq: 1, text: "ann's note", ownerId: ids.ann });
      await createObject(app, 'Note', { seq: 2, text: "bob's note", ownerId: ids.bob });
      await createObject(app, 'Note', { seq: 3, text: "cat's note", ownerId: ids.cat });
      await sentinel(subs.sentinels);
      for (const legacy of [legacyAnn, legacyBob]) await until(() => (legacy.data('notice').some((p) => p.data.subscribeToNotice.value.seq === notices) ? true : undefined), WAIT_MS, 'legacy sentinel');

      const seqs = (sub: Subscription, key = 'subscribeToNote') => sub.events.map((e) => e.data[key].value.seq);
      expect(seqs(subs.ann)).toEqual([1]);
      expect(seqs(subs.bobOnAnn)).toEqual([]);
      expect(seqs(subs.bobOnBob)).toEqual([2]);
      expect(seqs(subs.cat, 'mine')).toEqual([3]);
      expect(subs.anonymous.events).toEqual([]);
      expect(legacyAnn.data('notes')).toEqual([{ data: { subscribeToNote: { value: { seq: 1, text: "ann's note" } } } }]);
      expect(legacyBob.data('notes')).toEqual([]);
    });

    it('applies ROLE rules and the built-in admin role as they stand at each event, from the event after a user leaves them', async () => {
      const editors = (await app.data('mutation { createRole(input: { name: "Editors" }) { changedRole { id } } }')).createRole.changedRole.id as string;
      const adminRole = (await app.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { edges { node { id } } } } }')).viewer.allRoles.edges[0].node.id as string;
      await app.data(ENROL, { i: { userId: ids.ann, roleId: editors } });
      await app.data(ENROL, { i: { userId: ids.ann, roleId: adminRole } });
      const MEMOS = 'subscription { subscribeToMemo(mutations: [createMemo]) { value { seq text } } }';
      const SECRETS = 'subscription { subscribeToSecret(mutations: [createSecret]) { value { seq text } } }';
      const [ann, bob] = [open(tokens.ann), open(tokens.bob)];
      // ann and bob on the same documents: one statement answers both at each event.
      const subs = await watching(6, () => ({
        annMemos: subscribe(ann.client, MEMOS),
        annSecrets: subscribe(ann.client, SECRETS),
        bobMemos: subscribe(bob.client, MEMOS),
        bobSecrets: subscribe(bob.client, SECRETS),
        sentinels: [ann, bob].map((c) => subscribe(c.client, ON_NOTICE)),
      }));
      await createObject(app, 'Memo', { seq: 1, text: 'for editors' });
      await createObject(app, 'Secret', { seq: 1, text: 'for app admins' });
      await subs.annMemos.take(1, WAIT_MS);
      await subs.annSecrets.take(1, WAIT_MS);
      try {
        await app.data(LEAVE, { i: { userId: ids.ann, roleId: editors } });
        await app.data(LEAVE, { i: { userId: ids.ann, roleId: adminRole } });
        await createObject(app, 'Memo', { seq: 2, text: 'after she left' });
        await createObject(app, 'Secret', { seq: 2, text: 'after she left' });
        await sentinel(subs.sentinels);
        expect(subs.annMemos.events.map((e) => e.data.subscribeToMemo.value.seq)).toEqual([1]);
        expect(subs.annSecrets.events.map((e) => e.data.subscribeToSecret.value.seq)).toEqual([1]);
        expect(subs.bobMemos.events).toEqual([]);
        expect(subs.bobSecrets.events).toEqual([]);
      } finally {
        await app.gql('mutation($i: DeleteRoleInput!) { deleteRole(input: $i) { changedRole { id } } }', { i: { id: editors } });
      }
    });

    it('follows a RELATION path through linked objects as they stand at each event: joining, leaving, a row moved away and a delete', async () => {
      const alpha = await createObject(app, 'Project', { name: 'alpha' });
      const beta = await createObject(app, 'Project', { name: 'beta' });
      await app.data(JOIN_PROJECT, { i: { projectId: alpha, userId: ids.ann } });
      await app.data(JOIN_PROJECT, { i: { projectId: beta, userId: ids.cat } });
      const TASKS = 'subscription { subscribeToTask(mutations: [createTask, updateTask, deleteTask]) { mutation value { seq title project { name } } } }';
      const [ann, bob] = [open(tokens.ann), open(tokens.bob)];
      const subs = await watching(4, () => ({
        ann: subscribe(ann.client, TASKS),
        bob: subscribe(bob.client, TASKS),
        sentinels: [ann, bob].map((c) => subscribe(c.client, ON_NOTICE)),
      }));
      // Each membership change waits until the events before it have been told (ann and bob
      // share one statement): this test is about the rules at each event, not about a hub that lags.
      const first = await createObject(app, 'Task', { seq: 1, title: 'only ann', projectId: alpha });
      await subs.ann.take(1, WAIT_MS);
      await app.data(JOIN_PROJECT, { i: { projectId: alpha, userId: ids.bob } });
      const second = await createObject(app, 'Task', { seq: 2, title: 'both', projectId: alpha });
      await subs.ann.take(2, WAIT_MS);
      await app.data(LEAVE_PROJECT, { i: { projectId: alpha, userId: ids.ann } });
      await updateObject(app, 'Task', { id: second, title: 'bob only now' });
      await deleteObject(app, 'Task', first);
      // Moved to a project neither belongs to: its new state is nobody's here to hear.
      await updateObject(app, 'Task', { id: second, title: 'moved away', projectId: beta });
      await deleteObject(app, 'Task', second);
      await sentinel(subs.sentinels);

      const seen = (sub: Subscription) => sub.events.map((e) => [e.data.subscribeToTask.mutation, e.data.subscribeToTask.value.seq, e.data.subscribeToTask.value.title]);
      expect(seen(subs.ann)).toEqual([
        ['createTask', 1, 'only ann'],
        ['createTask', 2, 'both'],
      ]);
      expect(seen(subs.bob)).toEqual([
        ['createTask', 2, 'both'],
        ['updateTask', 2, 'bob only now'],
        ['deleteTask', 1, 'only ann'],
      ]);
    });

    it("keeps each app's events to its own subscribers, though a fork shares every user's and row's id", async () => {
      const shared = await createObject(app, 'Note', { seq: 10, text: 'before the fork', ownerId: ids.ann });
      const forked = await admin(server, 'mutation($i: ForkAppInput!) { forkApp(input: $i) { app { id } } }', { i: { appId: app.id, name: `fork${Math.random().toString(36).slice(2, 8)}` } });
      expect(forked.body.errors).toBeUndefined();
      const fork = await testAppOf(server, forked.body.data.forkApp.app.id as string);
      const forkAnn = (await fork.data(LOGIN, { i: { username: 'ann', password: PASSWORD } })).loginUser.token as string;
      try {
        // A token of the original is no credential at the fork (same user id, same password).
        const crossed = open(tokens.ann, fork.endpoint);
        const refused = subscribe(crossed.client, ON_NOTICE);
        await until(() => (crossed.closes.length > 0 ? true : undefined), WAIT_MS, 'the crossed token refused');
        expect(crossed.closes).toEqual([4403]);
        expect(refused.events).toEqual([]);

        const NOTES = 'subscription { subscribeToNote(mutations: [createNote, updateNote, deleteNote]) { mutation value { seq text } } }';
        const [inOriginal, inFork] = [open(tokens.ann), open(forkAnn, fork.endpoint)];
        const subs = await watching(3, () => ({
          original: subscribe(inOriginal.client, NOTES),
          fork: subscribe(inFork.client, NOTES),
          sentinel: subscribe(inOriginal.client, ON_NOTICE),
        }));
        // The same row (same id) changed in the original, then deleted in the fork; a new row in each.
        await updateObject(app, 'Note', { id: shared, text: 'changed in the original' });
        await deleteObject(fork, 'Note', shared);
        await createObject(app, 'Note', { seq: 11, text: 'original only', ownerId: ids.ann });
        await createObject(fork, 'Note', { seq: 12, text: 'fork only', ownerId: ids.ann });
        await subs.fork.take(2, WAIT_MS);
        await sentinel([subs.sentinel]);
        const seen = (sub: Subscription) => sub.events.map((e) => [e.data.subscribeToNote.mutation, e.data.subscribeToNote.value.text]);
        expect(seen(subs.original)).toEqual([
          ['updateNote', 'changed in the original'],
          ['createNote', 'original only'],
        ]);
        expect(seen(subs.fork)).toEqual([
          ['deleteNote', 'before the fork'],
          ['createNote', 'fork only'],
        ]);
      } finally {
        for (const c of opened) await c.dispose();
        opened = [];
        await waitForSubscriptions(server.base, 0, WAIT_MS);
        await admin(server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: fork.id } });
      }
    });

    it('ends a connection whose credentials stop holding: a logout of every session, a revoked admin token, a deleted user', async () => {
      const dan = await app.gql(SIGN_UP, { i: { username: 'dan', password: PASSWORD } }, {});
      const eve = await app.gql(SIGN_UP, { i: { username: 'eve', password: PASSWORD } }, {});
      const minted = await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: app.id, name: 'short-lived' } });
      const BULLETINS = 'subscription { subscribeToBulletin(mutations: [createBulletin]) { value { seq } } }';
      const SECRETS = 'subscription { subscribeToSecret(mutations: [createSecret]) { value { seq } } }';
      const [asDan, asEve, asAdmin, asAnn] = [open(dan.body.data.createUser.token), open(eve.body.data.createUser.token), open(minted.body.data.createAdminToken.token), open(tokens.ann)];
      const subs = await watching(4, () => ({
        dan: subscribe(asDan.client, BULLETINS),
        eve: subscribe(asEve.client, BULLETINS),
        admin: subscribe(asAdmin.client, SECRETS),
        ann: subscribe(asAnn.client, BULLETINS),
      }));
      await createObject(app, 'Bulletin', { seq: 1, text: 'all still in' });
      await createObject(app, 'Secret', { seq: 1, text: 'admin still in' });
      for (const sub of [subs.dan, subs.eve, subs.admin, subs.ann]) await sub.take(1, WAIT_MS);

      const out = await app.gql('mutation { logoutUser(input: { allSessions: true }) { endedSessions } }', {}, { authorization: `Bearer ${dan.body.data.createUser.token}` });
      expect(out.body.errors).toBeUndefined();
      await admin(server, 'mutation($i: RevokeAdminTokenInput!) { revokeAdminToken(input: $i) { revoked } }', { i: { appId: app.id, name: 'short-lived' } });
      await deleteObject(app, 'User', eve.body.data.createUser.changedUser.id);
      for (const who of [asDan, asEve, asAdmin]) await until(() => (who.closes.length > 0 ? true : undefined), WAIT_MS, 'the connection to end');
      expect([asDan.closes, asEve.closes, asAdmin.closes]).toEqual([[4403], [4403], [4403]]);

      await createObject(app, 'Bulletin', { seq: 2, text: 'after' });
      await createObject(app, 'Secret', { seq: 2, text: 'after' });
      expect((await subs.ann.take(2, WAIT_MS)).map((e) => e.data.subscribeToBulletin.value.seq)).toEqual([1, 2]);
      expect(asAnn.closes).toEqual([]);
      for (const sub of [subs.dan, subs.eve, subs.admin]) expect(sub.events).toHaveLength(1);
    });

    it("keeps delivering every event, in order and without errors, to everyone else when one subscriber's socket drops mid-burst", async () => {
      const readers = [open(tokens.ann), open(tokens.bob), open()];
      const dropping = new WebSocket(wsUrl(app.endpoint), ['graphql-transport-ws']);
      sockets.push(dropping);
      await new Promise<void>((resolve, reject) => {
        dropping.once('open', () => resolve());
        dropping.once('error', reject);
      });
      dropping.on('error', () => undefined);
      const acknowledged = new Promise((resolve) => dropping.once('message', resolve));
      dropping.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      await acknowledged;
      const subs = await watching(4, () => {
        dropping.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: ON_NOTICE } }));
        return readers.map((c) => subscribe(c.client, ON_NOTICE));
      });
      const first = notices + 1;
      for (let i = 0; i < 20; i++) {
        // Cut off without a close handshake, with events still on their way to it.
        if (i === 5) dropping.terminate();
        notices += 1;
        await createObject(app, 'Notice', { seq: notices, text: 'burst' });
      }
      const expected = Array.from({ length: 20 }, (_, i) => first + i);
      for (const sub of subs) {
        const events = await sub.take(20, WAIT_MS);
        expect(events.map((e) => e.data.subscribeToNotice.value.seq)).toEqual(expected);
        expect(events.filter((e) => e.errors !== undefined)).toEqual([]);
        expect(sub.errors).toEqual([]);
      }
      await waitForSubscriptions(server.base, 3, WAIT_MS);
    });
  });
}


describe.runIf(STORES.includes('postgres'))('realtime fan-out: held frames across instances (postgres)', () => {
  const MESSAGES = 'type Message @model @permission(scope: EVERYONE, read: true, create: true) { text: String! }';
  const ON_CREATE = 'subscription { subscribeToMessage(mutations: [createMessage]) { value { text } } }';
  const CREATE = 'mutation($t: String!) { createMessage(input: { text: $t }) { changedMessage { id } } }';
  let first: TestServer;
  let second: { base: string; close(): Promise<void> };
  let watched: TestApp;
  let elsewhere: TestApp;

  beforeAll(async () => {
    first = await startTestServer('postgres');
    // A second instance on the same database, as a deployment with two replicas runs.
    const store = await openStore({ databaseUrl: first.databaseUrl as string });
    const http = createServer({ store, admin: createAdminService(store), adminKey: first.key, logLevel: 'silent' as never });
    await http.listen({ port: 0, host: '127.0.0.1' });
    second = { base: `http://127.0.0.1:${(http.server.address() as { port: number }).port}`, close: async () => { await http.close(); await store.close(); } };
    watched = await createTestApp(first, MESSAGES);
    elsewhere = await createTestApp(first, MESSAGES);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('writes every event to a subscriber at once, though the notification after it is for an app with subscribers only on another instance', async () => {
    // The first instance holds a subscriber of `watched`; `elsewhere` is subscribed to on the second
    // instance only, so its mutations are published and reach the first instance too, which has
    // nobody to tell. A burst of both makes the first instance's hub work through a backlog, when
    // it holds its frames back (DeliveryBatch) until the backlog ends.
    const here = client(watched.endpoint);
    const there = client(`${second.base}/graphql/${elsewhere.id}`);
    const closes: number[] = [];
    here.on('closed', (event) => void closes.push((event as { code: number }).code));
    try {
      const sub = subscribe(here, ON_CREATE);
      const other = subscribe(there, ON_CREATE);
      await waitForSubscriptions(first.base, 1, WAIT_MS);
      await waitForSubscriptions(second.base, 1, WAIT_MS);
      for (let round = 0; round < 20; round++) {
        // Both mutations at once: their notifications reach the first instance together, the watched app's first.
        await Promise.all([watched.gql(CREATE, { t: `watched ${round}` }, {}), elsewhere.gql(CREATE, { t: `elsewhere ${round}` }, {})]);
        // Nothing else happens meanwhile: the event has to arrive on its own.
        await until(() => (sub.events.length > round ? true : undefined), 3_000, `event ${round} of the watched app (a held frame never written)`);
      }
      expect(sub.events.map((e) => e.data.subscribeToMessage.value.text)).toEqual(Array.from({ length: 20 }, (_, round) => `watched ${round}`));
      expect((await other.take(20, WAIT_MS)).length).toBe(20);
      expect(closes).toEqual([]);
    } finally {
      await here.dispose();
      await there.dispose();
    }
  });
});
