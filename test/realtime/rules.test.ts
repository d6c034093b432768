// Permissions on delivery: each event reaches only the subscribers whose read rules allow the
// row, with only the fields they may read, evaluated by the same compiled rules as queries.
// Callers: anonymous, the owner, another user, an admin token. Both stores.

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
  entries: [Entry] @relation(name: "EntryOwner")
  posts: [Post] @relation(name: "PostAuthor")
}
type Entry @model @permission(scope: RELATION, userFields: ["owner"], read: true, create: true, update: true, delete: true) {
  title: String!
  owner: User @relation(name: "EntryOwner")
}
type Post @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: RELATION, userFields: ["author"], read: true, create: true, update: true, fields: ["notes"])
  @permission(scope: RELATION, userFields: ["author"], create: true) {
  title: String!
  notes: String
  author: User @relation(name: "PostAuthor")
}
type Vault @model { text: String }
`;

type Caller = 'anonymous' | 'ann' | 'bob' | 'admin';
const CALLERS: Caller[] = ['anonymous', 'ann', 'bob', 'admin'];

for (const kind of STORE_KINDS) {
  describe(`subscriptions: delivery rules (${kind})`, () => {
    let server: TestServer;
    let app: TestApp;
    const tokens: Partial<Record<Caller, string>> = {};
    const ids: Record<string, string> = {};
    const clients: Partial<Record<Caller, Client>> = {};

    const as = (caller: Caller) => ({ authorization: `Bearer ${tokens[caller] as string}` });
    const watchAll = async (query: string, variables: Record<string, unknown> = {}): Promise<Record<Caller, Subscription>> => {
      const before = await openSubscriptions(server.base);
      const subs = Object.fromEntries(CALLERS.map((c) => [c, subscribe(clients[c] as Client, query, variables)])) as Record<Caller, Subscription>;
      await waitForSubscriptions(server.base, before + CALLERS.length);
      return subs;
    };
    const closeAll = async (subs: Record<Caller, Subscription>) => {
      const before = await openSubscriptions(server.base);
      for (const sub of Object.values(subs)) await sub.close();
      await waitForSubscriptions(server.base, before - CALLERS.length);
    };

    beforeAll(async () => {
      server = await startTestServer(kind, { credentialRecheckMs: 200 });
      app = await createTestApp(server, SCHEMA);
      tokens.admin = app.token;
      for (const name of ['ann', 'bob'] as const) {
        const made = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: name, password: 'pw-123456' } }, {});
        ids[name] = made.body.data.createUser.changedUser.id;
        tokens[name] = made.body.data.createUser.token;
      }
      for (const caller of CALLERS) clients[caller] = client(app.endpoint, tokens[caller]);
    });
    afterAll(async () => {
      for (const c of Object.values(clients)) await c?.dispose();
      await server?.close();
    });

    it('delivers an owner-only object to its owner and admins, never to others, for every event kind', async () => {
      const subs = await watchAll('subscription { subscribeToEntry(mutations: [createEntry, updateEntry, deleteEntry]) { mutation value { title } } }');
      const created = await app.gql('mutation($i: CreateEntryInput!) { createEntry(input: $i) { changedEntry { id } } }', { i: { title: 'dear diary', ownerId: ids.ann } }, as('ann'));
      const id = created.body.data.createEntry.changedEntry.id;
      await app.gql('mutation($i: UpdateEntryInput!) { updateEntry(input: $i) { changedEntry { id } } }', { i: { id, title: 'dear diary, again' } }, as('ann'));
      await app.gql('mutation($i: DeleteEntryInput!) { deleteEntry(input: $i) { changedEntry { id } } }', { i: { id } }, as('ann'));
      const expected = [
        { mutation: 'createEntry', value: { title: 'dear diary' } },
        { mutation: 'updateEntry', value: { title: 'dear diary, again' } },
        { mutation: 'deleteEntry', value: { title: 'dear diary, again' } },
      ];
      for (const caller of ['ann', 'admin'] as const) {
        expect((await subs[caller].take(3)).map((e) => e.data.subscribeToEntry), caller).toEqual(expected);
      }
      for (const caller of ['anonymous', 'bob'] as const) expect(await subs[caller].settle(300), caller).toEqual([]);
      await closeAll(subs);
    });

    it('answers a field the subscriber may not read with null and FORBIDDEN at its path', async () => {
      const subs = await watchAll('subscription { subscribeToPost(mutations: [createPost]) { value { title notes } } }');
      await app.gql('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: { title: 'hello', notes: 'private notes', authorId: ids.ann } }, as('ann'));
      for (const caller of ['ann', 'admin'] as const) {
        const [event] = await subs[caller].take(1);
        expect(event, caller).toEqual({ data: { subscribeToPost: { value: { title: 'hello', notes: 'private notes' } } } });
      }
      for (const caller of ['anonymous', 'bob'] as const) {
        const [event] = (await subs[caller].take(1)) as Json[];
        expect(event.data, caller).toEqual({ subscribeToPost: { value: { title: 'hello', notes: null } } });
        expect(event.errors.map((e: Json) => [e.extensions.code, e.path]), caller).toEqual([['FORBIDDEN', ['subscribeToPost', 'value', 'notes']]]);
      }
      await closeAll(subs);
    });

    it('does not let a filter on a hidden field tell its value', async () => {
      const subs = await watchAll('subscription($f: PostSubscriptionFilter) { subscribeToPost(mutations: [createPost], filter: $f) { value { title } } }', { f: { notes: { eq: 'the secret' } } });
      await app.gql('mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }', { i: { title: 'guess me', notes: 'the secret', authorId: ids.ann } }, as('ann'));
      expect((await subs.ann.take(1))[0]?.data.subscribeToPost.value.title).toBe('guess me');
      for (const caller of ['anonymous', 'bob'] as const) expect(await subs[caller].settle(300), caller).toEqual([]);
      await closeAll(subs);
    });

    it('delivers nothing of a type without rules except to admins', async () => {
      const subs = await watchAll('subscription { subscribeToVault(mutations: [createVault]) { value { text } } }');
      await app.data('mutation { createVault(input: { text: "gold" }) { changedVault { id } } }');
      expect((await subs.admin.take(1))[0]?.data.subscribeToVault.value.text).toBe('gold');
      for (const caller of ['anonymous', 'ann', 'bob'] as const) expect(await subs[caller].settle(300), caller).toEqual([]);
      await closeAll(subs);
    });

    it('ends a connection whose user token stops being valid (password changed)', async () => {
      const made = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: 'cy', password: 'pw-123456' } }, {});
      const token = made.body.data.createUser.token as string;
      const cy = client(app.endpoint, token);
      const closed = new Promise<number>((resolve) => cy.on('closed', (event) => resolve((event as { code: number }).code)));
      const sub = subscribe(cy, 'subscription { subscribeToUser(mutations: [updateUser]) { value { username } } }');
      await sub.settle(200);
      await app.gql('mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { clientMutationId } }', { i: { id: made.body.data.createUser.changedUser.id, oldPassword: 'pw-123456', newPassword: 'pw-654321' } }, { authorization: `Bearer ${token}` });
      expect(await closed).toBe(4403);
      await cy.dispose();
    });
  });
}
