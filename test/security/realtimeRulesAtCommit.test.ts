// A subscription's event is told to whoever the rules let read the row when its mutation
// committed, however late the hub delivers it (docs/realtime.md, "When the rules are read"). The
// hub runs behind whenever events come faster than it evaluates them; here it is held behind on
// purpose: the server's store holds back the answer of the first event statement (a sentinel's)
// while the test commits the events under test and then the changes that would let more users
// read them: a link added to a RELATION path, a role granted, the built-in admin role granted.
// Once let go, the hub evaluates those events after the changes; a user must still hear only
// what those grants let them read at each commit. The same holds for a relation column of a row
// a path goes through, pointed at a user since (a post handed to bob, bob joining a team, a seat
// made for ann). The other columns of the app's own rows are read as they are at delivery
// (docs/realtime.md): edits to them must never withhold an event.
//
// A negative ("this subscriber heard nothing of it") is proven with a sentinel: a later event
// every subscriber may read, on the same connection, handled after the events before it.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { STORE_KINDS, createObject, createTestApp, deleteObject, updateObject } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { startGatedServer } from '../server/harness.js';
import type { GatedServer } from '../server/harness.js';
import { client, openSubscriptions, subscribe, until, waitForSubscriptions } from '../realtime/harness.js';
import { ident, sql } from '../../src/sql/index.js';
import { CATALOG_CHANNEL, appSchemaName } from '../../src/store/index.js';
import type { Subscription } from '../realtime/harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: AUTHENTICATED, read: true)
  @permission(scope: SELF, update: true) {
  nickname: String
  projects: [Project] @relation(name: "ProjectMembers")
  posts: [Post] @relation(name: "PostAuthor")
  team: Team @relation(name: "TeamMembers")
  seats: [Seat] @relation(name: "SeatHolder")
}
type Team @model @permission(scope: AUTHENTICATED, read: true) {
  name: String!
  members: [User] @relation(name: "TeamMembers")
  seats: [Seat] @relation(name: "TeamSeats")
  plans: [Plan] @relation(name: "TeamPlans")
}
type Seat @model {
  holder: User @relation(name: "SeatHolder")
  team: Team @relation(name: "TeamSeats")
}
type Plan @model @permission(scope: RELATION, userFields: ["team.members", "team.seats.holder"], read: true) {
  text: String!
  team: Team @relation(name: "TeamPlans")
}
type Notice @model @permission(scope: EVERYONE, read: true) { seq: Int! }
type Project @model @permission(scope: RELATION, userFields: ["members"], read: true) {
  name: String!
  members: [User] @relation(name: "ProjectMembers")
  tasks: [Task] @relation(name: "ProjectTasks")
  docs: [Doc] @relation(name: "ProjectDocs")
}
type Task @model @permission(scope: RELATION, userFields: ["project.members"], read: true) {
  title: String!
  project: Project @relation(name: "ProjectTasks")
}
type Doc @model
  @permission(scope: AUTHENTICATED, read: true)
  @permission(scope: RELATION, userFields: ["project.members"], read: true, fields: ["secret"]) {
  title: String!
  secret: String
  project: Project @relation(name: "ProjectDocs")
}
type Post @model @permission(scope: AUTHENTICATED, read: true) {
  title: String!
  author: User @relation(name: "PostAuthor")
  comments: [Comment] @relation(name: "PostComments")
}
type Comment @model @permission(scope: RELATION, userFields: ["post.author"], read: true) {
  text: String!
  post: Post @relation(name: "PostComments")
}
type Memo @model @permission(scope: ROLE, roles: ["Editors"], read: true) { text: String! }
type Role @model
  @permission(scope: AUTHENTICATED, create: true)
  @permission(scope: ROLE, roles: ["Pilots"], read: true) {
  motto: String
}
type Secret @model { text: String! }
`;

const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }';
const ENROL = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }';
const JOIN_PROJECT = 'mutation($i: AddToProjectMembersConnectionInput!) { addToProjectMembersConnection(input: $i) { clientMutationId } }';
const ON_NOTICE = 'subscription { subscribeToNotice(mutations: [createNotice]) { value { seq } } }';
/** Every event statement of a subscription joins its subscribers as `caller` (src/compile/subscription.ts). */
const EVENT_STATEMENT = /WITH ORDINALITY AS "caller"/;
/** A title too long for a notification's 8,000 bytes. */
const LONG_DRAFT = `plan (long draft) ${'x'.repeat(9_000)}`;
/** How long to wait for subscriptions and events (a bound on a loaded machine, not an expectation). */
const WAIT_MS = 10_000;

for (const kind of STORE_KINDS) {
  describe(`realtime: rules as they stood when each event committed (${kind})`, () => {
    let server: GatedServer;
    let app: TestApp;
    const ids: Record<string, string> = {};
    const tokens: Record<string, string> = {};
    let opened: Client[] = [];
    let notices = 0;

    const open = (token: string): Client => {
      const c = client(app.endpoint, token);
      opened.push(c);
      return c;
    };
    const watching = async <T>(count: number, make: () => T): Promise<T> => {
      const before = await openSubscriptions(server.base);
      const made = make();
      await waitForSubscriptions(server.base, before + count, WAIT_MS);
      return made;
    };
    const notice = async (target = app): Promise<number> => {
      notices += 1;
      await createObject(target, 'Notice', { seq: notices });
      return notices;
    };
    const heard = async (subs: Subscription[], seq: number): Promise<void> => {
      for (const sub of subs) await until(() => (sub.events.some((e) => e.data?.subscribeToNotice?.value.seq === seq) ? true : undefined), WAIT_MS, `notice ${seq}`);
    };
    /**
     * Runs `meanwhile` while the hub is held behind: the answer of the next event statement (a
     * notice's) is held back until `meanwhile` has committed everything; then a last notice,
     * which every sentinel must hear, proves that the events before it were all handled.
     */
    const behind = async (sentinels: Subscription[], meanwhile: () => Promise<void>, target = app): Promise<void> => {
      const held = server.holdNext(EVENT_STATEMENT);
      await notice(target);
      await held.ran;
      try {
        await meanwhile();
      } finally {
        held.release();
      }
      await heard(sentinels, await notice(target));
    };
    const texts = (sub: Subscription, field: string) => sub.events.map((e) => e.data[field].value.text as string);
    const COMMENTS = 'subscription { subscribeToComment(mutations: [createComment]) { value { text } } }';
    const PLANS = 'subscription { subscribeToPlan(mutations: [createPlan]) { value { text } } }';
    /** Sets the user's own team, as the user. */
    const joinTeam = async (target: TestApp, name: string, team: string): Promise<void> => {
      const reply = await target.gql('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id: ids[name], teamId: team } }, { authorization: `Bearer ${tokens[name] as string}` });
      expect(reply.body.errors).toBeUndefined();
    };

    beforeAll(async () => {
      server = await startGatedServer(kind);
      app = await createTestApp(server, SCHEMA);
      for (const name of ['ann', 'bob']) {
        const reply = await app.gql(SIGN_UP, { i: { username: name, password: 'pw-123456', nickname: name } }, {});
        expect(reply.body.errors).toBeUndefined();
        ids[name] = reply.body.data.createUser.changedUser.id;
        tokens[name] = reply.body.data.createUser.token;
      }
    });
    afterEach(async () => {
      for (const c of opened) await c.dispose();
      opened = [];
      await waitForSubscriptions(server.base, 0, WAIT_MS);
    });
    afterAll(async () => server?.close());

    it('keeps from a user added to a RELATION path the events committed before, a draft and a deleted row among them', async () => {
      const gamma = await createObject(app, 'Project', { name: 'gamma' });
      await app.data(JOIN_PROJECT, { i: { projectId: gamma, userId: ids.ann } });
      const plan = await createObject(app, 'Task', { title: 'plan', projectId: gamma });
      const budget = await createObject(app, 'Task', { title: 'budget', projectId: gamma });
      const TASKS = 'subscription { subscribeToTask(mutations: [updateTask, deleteTask]) { mutation value { title } } }';
      const DOCS = 'subscription { subscribeToDoc(mutations: [createDoc]) { value { title secret } } }';
      const [ann, bob] = [open(tokens.ann as string), open(tokens.bob as string)];
      const subs = await watching(6, () => ({
        annTasks: subscribe(ann, TASKS),
        bobTasks: subscribe(bob, TASKS),
        annDocs: subscribe(ann, DOCS),
        bobDocs: subscribe(bob, DOCS),
        sentinels: [ann, bob].map((c) => subscribe(c, ON_NOTICE)),
      }));
      await behind(subs.sentinels, async () => {
        await updateObject(app, 'Task', { id: plan, title: 'plan (draft: cut 40 jobs)' });
        // Too large for a notification: the event's body (and its commit stamp) is stored.
        await updateObject(app, 'Task', { id: plan, title: LONG_DRAFT });
        // A change on the path that grants nothing (the project renamed) withholds nothing.
        await updateObject(app, 'Project', { id: gamma, name: 'gamma, renamed' });
        await updateObject(app, 'Task', { id: plan, title: 'plan' });
        await deleteObject(app, 'Task', budget);
        await createObject(app, 'Doc', { title: 'minutes', secret: 'the draft was real', projectId: gamma });
        await app.data(JOIN_PROJECT, { i: { projectId: gamma, userId: ids.bob } });
        await updateObject(app, 'Task', { id: plan, title: 'plan, once bob joined' });
      });

      const tasks = (sub: Subscription) => sub.events.map((e) => [e.data.subscribeToTask.mutation, e.data.subscribeToTask.value.title]);
      expect(tasks(subs.annTasks)).toEqual([
        ['updateTask', 'plan (draft: cut 40 jobs)'],
        ['updateTask', LONG_DRAFT],
        ['updateTask', 'plan'],
        ['deleteTask', 'budget'],
        ['updateTask', 'plan, once bob joined'],
      ]);
      expect(tasks(subs.bobTasks)).toEqual([['updateTask', 'plan, once bob joined']]);
      // The Doc itself any user may read; its secret only the project's members of its commit.
      expect(subs.annDocs.events).toEqual([{ data: { subscribeToDoc: { value: { title: 'minutes', secret: 'the draft was real' } } } }]);
      expect(subs.bobDocs.events).toHaveLength(1);
      const bobDoc = subs.bobDocs.events[0] as Json;
      expect(bobDoc.data).toEqual({ subscribeToDoc: { value: { title: 'minutes', secret: null } } });
      expect(bobDoc.errors.map((e: Json) => [e.extensions.code, e.path])).toEqual([['FORBIDDEN', ['subscribeToDoc', 'value', 'secret']]]);
    });

    it('keeps from a user given a role, or the built-in admin role, the events committed before', async () => {
      const editors = await createObject(app, 'Role', { name: 'Editors' });
      const adminRole = (await app.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { edges { node { id } } } } }')).viewer.allRoles.edges[0].node.id as string;
      const MEMOS = 'subscription { subscribeToMemo(mutations: [createMemo]) { value { text } } }';
      const SECRETS = 'subscription { subscribeToSecret(mutations: [createSecret]) { value { text } } }';
      const bob = open(tokens.bob as string);
      const subs = await watching(3, () => ({ memos: subscribe(bob, MEMOS), secrets: subscribe(bob, SECRETS), sentinels: [subscribe(bob, ON_NOTICE)] }));
      try {
        await behind(subs.sentinels, async () => {
          await createObject(app, 'Memo', { text: 'before bob was an editor' });
          await createObject(app, 'Secret', { text: 'before bob was an app admin' });
          await app.data(ENROL, { i: { userId: ids.bob, roleId: editors } });
          await app.data(ENROL, { i: { userId: ids.bob, roleId: adminRole } });
          await createObject(app, 'Memo', { text: 'bob an editor' });
          await createObject(app, 'Secret', { text: 'bob an app admin' });
        });
        expect(subs.memos.events.map((e) => e.data.subscribeToMemo.value.text)).toEqual(['bob an editor']);
        expect(subs.secrets.events.map((e) => e.data.subscribeToSecret.value.text)).toEqual(['bob an app admin']);
      } finally {
        await app.data('mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { clientMutationId } }', { i: { userId: ids.bob, roleId: adminRole } });
        await deleteObject(app, 'Role', editors);
      }
    });

    it("counts a grant made in the event's own transaction: a role's creator, its member from its creation, hears of it", async () => {
      const ROLES = 'subscription { subscribeToRole(mutations: [createRole]) { value { name motto } } }';
      const [ann, bob] = [open(tokens.ann as string), open(tokens.bob as string)];
      const subs = await watching(4, () => ({ ann: subscribe(ann, ROLES), bob: subscribe(bob, ROLES), sentinels: [ann, bob].map((c) => subscribe(c, ON_NOTICE)) }));
      // bob creates the role the rule names, and is made its admin member in the same transaction.
      const created = await app.gql('mutation { createRole(input: { name: "Pilots", motto: "up" }) { changedRole { id } } }', {}, { authorization: `Bearer ${tokens.bob as string}` });
      expect(created.body.errors).toBeUndefined();
      try {
        await heard(subs.sentinels, await notice());
        expect(subs.bob.events).toEqual([{ data: { subscribeToRole: { value: { name: 'Pilots', motto: 'up' } } } }]);
        expect(subs.ann.events).toEqual([]);
      } finally {
        await deleteObject(app, 'Role', created.body.data.createRole.changedRole.id as string);
      }
    });

    it('keeps from a user a row linked to them after the events: a post handed over, a team joined, a seat made', async () => {
      const post = await createObject(app, 'Post', { title: "ann's post", authorId: ids.ann });
      const red = await createObject(app, 'Team', { name: 'red' });
      const [ann, bob] = [open(tokens.ann as string), open(tokens.bob as string)];
      const subs = await watching(6, () => ({
        annComments: subscribe(ann, COMMENTS),
        bobComments: subscribe(bob, COMMENTS),
        annPlans: subscribe(ann, PLANS),
        bobPlans: subscribe(bob, PLANS),
        sentinels: [ann, bob].map((c) => subscribe(c, ON_NOTICE)),
      }));
      await behind(subs.sentinels, async () => {
        await createObject(app, 'Comment', { text: 'while the post was ann’s', postId: post });
        await createObject(app, 'Plan', { text: 'before anyone joined red', teamId: red });
        // The post handed to bob (a relation column of the row the path crosses, changed)…
        await updateObject(app, 'Post', { id: post, authorId: ids.bob });
        // …bob setting his own team (a user's row, reached from the team)…
        await joinTeam(app, 'bob', red);
        // …and a seat made for ann (a row reached from the team, new since the plan).
        await createObject(app, 'Seat', { teamId: red, holderId: ids.ann });
        await createObject(app, 'Comment', { text: 'once the post was bob’s', postId: post });
        await createObject(app, 'Plan', { text: 'once bob and ann were in red', teamId: red });
      });
      // The post is read as it is now: bob's. ann, its author when the first comment was made,
      // is not told of it either (docs/realtime.md: a row linked elsewhere since withholds).
      expect(texts(subs.annComments, 'subscribeToComment')).toEqual([]);
      expect(texts(subs.bobComments, 'subscribeToComment')).toEqual(['once the post was bob’s']);
      expect(texts(subs.annPlans, 'subscribeToPlan')).toEqual(['once bob and ann were in red']);
      expect(texts(subs.bobPlans, 'subscribeToPlan')).toEqual(['once bob and ann were in red']);
    });

    it('gives an app made before link times were kept its link times when next loaded', async () => {
      const older = await createTestApp(server, SCHEMA);
      const schema = appSchemaName(older.id);
      const linkTimes = async () =>
        (await server.store.query<{ table: string }>(sql`SELECT table_name AS table FROM information_schema.columns WHERE table_schema = ${schema} AND column_name = 'tessera$linked' ORDER BY 1`)).rows.map((r) => r.table);
      const tables = await linkTimes();
      expect(tables).toEqual(['Comment', 'Doc', 'File', 'Plan', 'Post', 'Seat', 'Task', 'User']);
      // As an app made before catalog version 14 is: no column, no trigger, not marked done.
      for (const table of tables) {
        await server.store.query(sql`DROP TRIGGER ${ident('tessera$linked')} ON ${ident(schema, table)}`);
        await server.store.query(sql`ALTER TABLE ${ident(schema, table)} DROP COLUMN ${ident('tessera$linked')}`);
      }
      await server.store.query(sql`UPDATE tessera.apps SET link_times = false WHERE id = ${older.id}`);
      await server.store.notify(CATALOG_CHANNEL, older.id);
      // Loaded again (on the catalog's notice), the app is given its link times.
      for (const deadline = Date.now() + WAIT_MS; (await linkTimes()).length < tables.length && Date.now() < deadline; ) {
        await older.data('{ viewer { id } }');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await linkTimes()).toEqual(tables);
      const done = await server.store.query<{ done: boolean }>(sql`SELECT link_times AS done FROM tessera.apps WHERE id = ${older.id}`);
      expect(done.rows[0]?.done).toBe(true);

      const users: Record<string, { id: string; token: string }> = {};
      for (const name of ['ann', 'bob']) {
        const reply = await older.gql(SIGN_UP, { i: { username: name, password: 'pw-123456', nickname: name } }, {});
        expect(reply.body.errors).toBeUndefined();
        users[name] = { id: reply.body.data.createUser.changedUser.id, token: reply.body.data.createUser.token };
      }
      const post = await createObject(older, 'Post', { title: "ann's post", authorId: users.ann?.id });
      const bob = client(older.endpoint, users.bob?.token as string);
      opened.push(bob);
      const subs = await watching(2, () => ({ comments: subscribe(bob, COMMENTS), sentinels: [subscribe(bob, ON_NOTICE)] }));
      await behind(
        subs.sentinels,
        async () => {
          await createObject(older, 'Comment', { text: 'while the post was ann’s', postId: post });
          await updateObject(older, 'Post', { id: post, authorId: users.bob?.id });
          await createObject(older, 'Comment', { text: 'once the post was bob’s', postId: post });
        },
        older,
      );
      expect(texts(subs.comments, 'subscribeToComment')).toEqual(['once the post was bob’s']);
    });

    it("reads the app's own rows as they are: a post edited while comments on it are made withholds none of them from its author", async () => {
      // A check of the post's row version would withhold a comment from its author whenever the
      // post changed (any column) after the comment's snapshot: here, every round.
      const ann = open(tokens.ann as string);
      const post = await createObject(app, 'Post', { title: "ann's post", authorId: ids.ann });
      const subs = await watching(2, () => ({ comments: subscribe(ann, COMMENTS), sentinels: [subscribe(ann, ON_NOTICE)] }));
      const texts: string[] = [];
      for (let round = 0; round < 20; round++) {
        texts.push(`comment ${round}`);
        await Promise.all([createObject(app, 'Comment', { text: `comment ${round}`, postId: post }), updateObject(app, 'Post', { id: post, title: `ann's post, edit ${round}` })]);
      }
      // A post made with its comment, in one transaction.
      await createObject(app, 'Comment', { text: 'on a new post of ann', post: { title: "ann's second post", authorId: ids.ann } });
      await heard(subs.sentinels, await notice());
      expect(subs.comments.events.map((e) => e.data.subscribeToComment.value.text)).toEqual([...texts, 'on a new post of ann']);
    });
  });
}
