// Many distinct users on one subscription: the server evaluates each event for all of them in
// one statement (here in batches of 7 callers, so that a group spans several statements), and
// each user must still receive exactly what their own rules let them read — the same as a
// query of theirs answers — under AUTHENTICATED, SELF, RELATION (one step and a path through a
// many-to-many relation), ROLE and field rules, in commit order. Attackers subscribe with
// documents built to share another user's evaluation. Both stores.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { client, openSubscriptions, subscribe, waitForSubscriptions } from './harness.js';
import type { Subscription } from './harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true) {
  nickname: String
  notes: [Note] @relation(name: "NoteOwner")
  posts: [Post] @relation(name: "PostAuthor")
  projects: [Project] @relation(name: "ProjectMembers")
}
type Bulletin @model @permission(scope: AUTHENTICATED, read: true) { seq: Int! text: String! }
type Note @model @permission(scope: RELATION, userFields: ["owner"], read: true) {
  seq: Int!
  text: String!
  owner: User @relation(name: "NoteOwner")
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
type Memo @model @permission(scope: ROLE, roles: ["editors"], read: true) { seq: Int! text: String! }
type Post @model
  @permission(scope: AUTHENTICATED, read: true)
  @permission(scope: RELATION, userFields: ["author"], read: true, fields: ["draft"]) {
  seq: Int!
  title: String!
  draft: String
  author: User @relation(name: "PostAuthor")
}
`;

const USERS = 30;
const BATCH = 7;
/** How long to wait for subscriptions and events on a loaded machine (a bound, not an assertion). */
const WAIT_MS = 20_000;

/** One subscription every user opens: its document, the type's `getX`, and the selection of `value`. */
interface Watched {
  name: string;
  field: string;
  get: string;
  selection: string;
  /** Whether every logged-in user may read every row (else some users hear nothing). */
  everyone: boolean;
}

const WATCHED: Watched[] = [
  { name: 'AUTHENTICATED', field: 'subscribeToBulletin', get: 'getBulletin', selection: '{ seq text }', everyone: true },
  { name: 'SELF', field: 'subscribeToUser', get: 'getUser', selection: '{ id nickname }', everyone: false },
  { name: 'RELATION (owner)', field: 'subscribeToNote', get: 'getNote', selection: '{ seq text }', everyone: false },
  { name: 'RELATION (project.members)', field: 'subscribeToTask', get: 'getTask', selection: '{ seq title project { name } }', everyone: false },
  // Nothing of the answer depends on who reads it (the row's fields only): it is built once per event, not once per caller.
  { name: 'RELATION (project.members), the row alone', field: 'subscribeToTask', get: 'getTask', selection: '{ seq title }', everyone: false },
  { name: 'ROLE', field: 'subscribeToMemo', get: 'getMemo', selection: '{ seq text }', everyone: false },
  { name: 'field rules and a relation under rules', field: 'subscribeToPost', get: 'getPost', selection: '{ seq title draft author { id nickname } }', everyone: true },
];

function watched(name: string): Watched {
  const found = WATCHED.find((w) => w.name === name);
  if (!found) throw new Error(`no watched subscription ${name}`);
  return found;
}

const mutationsOf = (w: Watched) => (w.field === 'subscribeToUser' ? '[updateUser]' : `[create${w.field.slice('subscribeTo'.length)}]`);
const documentOf = (w: Watched) => `subscription { ${w.field}(mutations: ${mutationsOf(w)}) { value ${w.selection} } }`;

/** An event's value or a query's answer reduced to what is compared: the value, and its errors' codes and paths below it (`depth` keys down). */
function view(value: Json, errors: Json[] | undefined, depth: number): { value: Json; errors: [string, (string | number)[]][] } {
  return { value, errors: (errors ?? []).map((e) => [e.extensions.code, e.path.slice(depth)]) };
}

for (const kind of STORE_KINDS) {
  describe(`subscriptions: one statement for many users (${kind})`, () => {
    let server: TestServer;
    let app: TestApp;
    const users: { id: string; token: string }[] = [];
    const clients: Client[] = [];
    let anonymous: Client;

    const as = (i: number) => ({ authorization: `Bearer ${(users[i] as { token: string }).token}` });
    const watchEveryone = async (query: string, variables: Record<string, unknown> = {}): Promise<{ users: Subscription[]; anonymous: Subscription }> => {
      const before = await openSubscriptions(server.base);
      const subs = { users: clients.map((c) => subscribe(c, query, variables)), anonymous: subscribe(anonymous, query, variables) };
      await waitForSubscriptions(server.base, before + USERS + 1, WAIT_MS);
      return subs;
    };
    const closeAll = async (subs: Subscription[]) => {
      const before = await openSubscriptions(server.base);
      for (const sub of subs) await sub.close();
      await waitForSubscriptions(server.base, before - subs.length, WAIT_MS);
    };

    beforeAll(async () => {
      server = await startTestServer(kind, { maxCallersPerStatement: BATCH });
      app = await createTestApp(server, SCHEMA);
      for (let i = 0; i < USERS; i++) {
        const made = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: `user${i}`, password: 'pw-123456' } }, {});
        users.push({ id: made.body.data.createUser.changedUser.id, token: made.body.data.createUser.token });
      }
      for (const user of users) clients.push(client(app.endpoint, user.token));
      anonymous = client(app.endpoint);
    });
    afterAll(async () => {
      for (const c of [...clients, anonymous]) await c?.dispose();
      await server?.close();
    });

    /** Makes the events of `w`, in order; resolves to the ids of the rows they are about. */
    async function makeEvents(w: Watched): Promise<string[]> {
      const ids: string[] = [];
      const create = async (type: string, input: Record<string, unknown>) => {
        const data = await app.data(`mutation($i: Create${type}Input!) { create${type}(input: $i) { changed${type} { id } } }`, { i: input });
        ids.push(data[`create${type}`][`changed${type}`].id);
      };
      switch (w.field) {
        case 'subscribeToBulletin':
          for (let seq = 0; seq < 4; seq++) await create('Bulletin', { seq, text: `bulletin ${seq}` });
          break;
        case 'subscribeToUser':
          // Some users renamed, in an order unlike their ids'.
          for (const i of [27, 3, 12, 0, 21]) {
            const id = (users[i] as { id: string }).id;
            await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id, nickname: `nick ${i} #${ids.length}` } });
            ids.push(id);
          }
          break;
        case 'subscribeToNote':
          for (const [seq, owner] of [5, 11, 5, 22, 5, 14, 25, 5].entries()) await create('Note', { seq, text: `note ${seq}`, ownerId: (users[owner] as { id: string }).id });
          break;
        case 'subscribeToTask': {
          // Members: users 0–9 of one project, 5–14 of the other (a path through the join table).
          const projects: string[] = [];
          for (const [name, from] of [['alpha', 0], ['beta', 5]] as const) {
            const made = await app.data('mutation($i: CreateProjectInput!) { createProject(input: $i) { changedProject { id } } }', { i: { name } });
            const project = made.createProject.changedProject.id as string;
            projects.push(project);
            for (let i = from; i < from + 10; i++) {
              await app.data('mutation($i: AddToProjectMembersConnectionInput!) { addToProjectMembersConnection(input: $i) { clientMutationId } }', { i: { projectId: project, userId: (users[i] as { id: string }).id } });
            }
          }
          for (let seq = 0; seq < 6; seq++) await create('Task', { seq, title: `task ${seq}`, projectId: projects[seq % 3 === 2 ? 1 : 0] });
          break;
        }
        case 'subscribeToMemo': {
          const role = (await app.data('mutation { createRole(input: { name: "editors" }) { changedRole { id } } }')).createRole.changedRole.id as string;
          for (let i = 0; i < USERS; i += 4) {
            await app.data('mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }', { i: { userId: (users[i] as { id: string }).id, roleId: role, accessLevel: 'readonly' } });
          }
          for (let seq = 0; seq < 3; seq++) await create('Memo', { seq, text: `memo ${seq}` });
          break;
        }
        case 'subscribeToPost':
          for (let seq = 0; seq < 5; seq++) await create('Post', { seq, title: `post ${seq}`, draft: `draft ${seq}`, authorId: (users[(seq * 7) % USERS] as { id: string }).id });
          break;
        default:
          throw new Error(`no events for ${w.field}`);
      }
      return ids;
    }

    /** What user `i` reads of each row with a query, in order, the rows they may not read left out. */
    async function readAs(i: number | undefined, w: Watched, ids: readonly string[]) {
      const query = `query { ${ids.map((id, k) => `r${k}: ${w.get}(id: ${JSON.stringify(id)}) ${w.selection}`).join(' ')} }`;
      const reply = await app.gql(query, {}, i === undefined ? {} : as(i));
      expect(reply.status).toBe(200);
      const errors = (reply.body.errors ?? []) as Json[];
      return ids
        .map((_, k) => view(reply.body.data[`r${k}`], errors.filter((e) => e.path[0] === `r${k}`), 1))
        .filter((v) => v.value !== null);
    }

    for (const w of WATCHED) {
      it(`${w.name}: ${USERS} users receive exactly what their own query reads, in order`, async () => {
        const subs = await watchEveryone(documentOf(w));
        const ids = await makeEvents(w);
        const expected = [];
        for (let i = 0; i < USERS; i++) expected.push(await readAs(i, w, ids));
        for (let i = 0; i < USERS; i++) {
          const sub = subs.users[i] as Subscription;
          const count = (expected[i] as unknown[]).length;
          const events = count === 0 ? sub.events : await sub.take(count, WAIT_MS);
          expect(events.map((e) => view(e.data[w.field].value, e.errors, 2)), `user${i}`).toEqual(expected[i]);
        }
        // Nobody hears more than that, and an anonymous subscriber nothing of these rules.
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (let i = 0; i < USERS; i++) expect((subs.users[i] as Subscription).events.length, `user${i}`).toBe((expected[i] as unknown[]).length);
        expect(await readAs(undefined, w, ids)).toEqual([]);
        expect(subs.anonymous.events).toEqual([]);
        // Which users hear of the rows: all of them, or (the rule depending on who they are) some but not all.
        const heard = expected.filter((e) => e.length > 0).length;
        if (w.everyone) expect(expected.every((e) => e.length === ids.length)).toBe(true);
        else expect(heard > 0 && heard < USERS).toBe(true);
        await closeAll([...subs.users, subs.anonymous]);
      });
    }

    it('answers the same event differently per user where the rules make fields visible differently', async () => {
      const subs = await watchEveryone(documentOf(watched('field rules and a relation under rules')));
      const author = 4;
      await app.gql('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: { seq: 100, title: 'mixed', draft: 'only mine', authorId: (users[author] as { id: string }).id } });
      for (let i = 0; i < USERS; i++) {
        const [event] = (await (subs.users[i] as Subscription).take(1, WAIT_MS)) as Json[];
        if (i === author) {
          expect(event).toEqual({ data: { subscribeToPost: { value: { seq: 100, title: 'mixed', draft: 'only mine', author: { id: (users[author] as { id: string }).id, nickname: null } } } } });
        } else {
          expect(event.data, `user${i}`).toEqual({ subscribeToPost: { value: { seq: 100, title: 'mixed', draft: null, author: null } } });
          expect(event.errors.map((e: Json) => [e.extensions.code, e.path]), `user${i}`).toEqual([['FORBIDDEN', ['subscribeToPost', 'value', 'draft']]]);
        }
      }
      await closeAll([...subs.users, subs.anonymous]);
    });

    it('answers a statement that fails with a coded error per subscriber, and goes on with the next events in order', async () => {
      const subs = await watchEveryone(documentOf(watched('AUTHENTICATED')));
      // A row state the table cannot take (as a notice from a publisher of another version
      // could carry): the statement fails for every caller, batch after batch, down to each alone.
      const id = '00000000-0000-4000-8000-000000000001';
      await server.store.notify('tessera_events', JSON.stringify({ a: app.id, e: [['Bulletin', 'create', id, JSON.stringify({ id, seq: 'not a number', text: 'x' })]] }));
      await app.data('mutation { createBulletin(input: { seq: 300, text: "after" }) { changedBulletin { id } } }');
      for (let i = 0; i < USERS; i++) {
        const [failed, next] = (await (subs.users[i] as Subscription).take(2, WAIT_MS)) as Json[];
        expect(failed.data, `user${i}`).toEqual({ subscribeToBulletin: null });
        expect(failed.errors.map((e: Json) => [e.extensions.code, e.path]), `user${i}`).toEqual([['INTERNAL', ['subscribeToBulletin']]]);
        expect(JSON.stringify(failed.errors)).not.toMatch(/integer|SELECT|json_populate_record/i);
        expect(next, `user${i}`).toEqual({ data: { subscribeToBulletin: { value: { seq: 300, text: 'after' } } } });
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(subs.anonymous.events.filter((e) => e.data?.subscribeToBulletin !== null)).toEqual([]);
      await closeAll([...subs.users, subs.anonymous]);
    });

    it("gives an attacker whose subscription shares other users' evaluation only their own view", async () => {
      const victim = 2;
      const attacker = 17;
      const victimId = (users[victim] as { id: string }).id;
      const attackerId = (users[attacker] as { id: string }).id;
      const before = await openSubscriptions(server.base);
      // The victims' document, and the attacker's: the same statement and values (the events
      // through a variable, the root field aliased), then a filter naming the victim, then a
      // payload alias over the field only the author may read.
      const victims = clients.map((c) => subscribe(c, 'subscription { subscribeToNote(mutations: [createNote]) { value { seq text } } }'));
      const alike = subscribe(clients[attacker] as Client, 'subscription($m: [NoteMutationEvent]!) { mine: subscribeToNote(mutations: $m) { value { seq text } } }', { m: ['createNote'] });
      const aimed = subscribe(clients[attacker] as Client, 'subscription($f: NoteSubscriptionFilter) { subscribeToNote(mutations: [createNote], filter: $f) { value { seq text owner { id } } } }', { f: { ownerId: { eq: victimId } } });
      const renamed = subscribe(clients[attacker] as Client, 'subscription { subscribeToPost(mutations: [createPost]) { value { seq secret: draft } } }');
      await waitForSubscriptions(server.base, before + USERS + 3, WAIT_MS);

      await app.gql('mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id } } }', { i: { seq: 200, text: "the victim's", ownerId: victimId } });
      await app.gql('mutation($i: CreateNoteInput!) { createNote(input: $i) { changedNote { id } } }', { i: { seq: 201, text: "the attacker's", ownerId: attackerId } });
      await app.gql('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: { seq: 202, title: 'post', draft: 'secret draft', authorId: victimId } });

      expect(await (victims[victim] as Subscription).take(1, WAIT_MS)).toEqual([{ data: { subscribeToNote: { value: { seq: 200, text: "the victim's" } } } }]);
      expect(await (victims[attacker] as Subscription).take(1, WAIT_MS)).toEqual([{ data: { subscribeToNote: { value: { seq: 201, text: "the attacker's" } } } }]);
      expect(await alike.take(1, WAIT_MS)).toEqual([{ data: { mine: { value: { seq: 201, text: "the attacker's" } } } }]);
      const [post] = (await renamed.take(1, WAIT_MS)) as Json[];
      expect(post.data).toEqual({ subscribeToPost: { value: { seq: 202, secret: null } } });
      expect(post.errors.map((e: Json) => [e.extensions.code, e.path])).toEqual([['FORBIDDEN', ['subscribeToPost', 'value', 'secret']]]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(aimed.events).toEqual([]);
      expect(alike.events).toHaveLength(1);
      for (let i = 0; i < USERS; i++) expect((victims[i] as Subscription).events.length, `user${i}`).toBe(i === victim || i === attacker ? 1 : 0);
      await closeAll([...victims, alike, aimed, renamed]);
    });
  });
}
