// subscribeToX over graphql-transport-ws: every event kind, the payload (value, mutation,
// edge with a cursor usable in allXs), filters of every kind, edge mutations, login events,
// and events too large for one notification. Both stores.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { STORE_KINDS, createTestApp, startApiServer } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import type { TestServer } from '../server/harness.js';
import { client, openSubscriptions, subscribe, waitForSubscriptions } from './harness.js';

const SCHEMA = `
type Channel @model { name: String! messages: [Message] @relation(name: "ChannelMessages") }
type Message @model {
  text: String!
  body: Text
  priority: Int
  channel: Channel @relation(name: "ChannelMessages")
}
type Tag @model { label: String! users: [User] @relation(name: "UserTags") }
type User @model { tags: [Tag] @relation(name: "UserTags") }
`;

const MESSAGES = `subscription($m: [MessageMutationEvent]!, $f: MessageSubscriptionFilter) {
  subscribeToMessage(mutations: $m, filter: $f) { mutation value { id text priority channel { name } } edge { cursor node { id } } }
}`;
const ALL = ['createMessage', 'updateMessage', 'deleteMessage'];

for (const kind of STORE_KINDS) {
  describe(`subscriptions: events (${kind})`, () => {
    let server: TestServer;
    let app: TestApp;
    let admin: Client;
    let general: string;
    let random: string;

    const watch = async (query: string, variables: Record<string, unknown>, c: Client = admin) => {
      const before = await openSubscriptions(server.base);
      const sub = subscribe(c, query, variables);
      await waitForSubscriptions(server.base, before + 1);
      return {
        ...sub,
        close: async () => {
          const open = await openSubscriptions(server.base);
          await sub.close();
          await waitForSubscriptions(server.base, open - 1);
        },
      };
    };
    const create = async (text: string, extra: Record<string, unknown> = {}) =>
      (await app.data('mutation($i: CreateMessageInput!) { createMessage(input: $i) { changedMessage { id } } }', { i: { text, channelId: general, ...extra } })).createMessage.changedMessage.id as string;

    beforeAll(async () => {
      server = await startApiServer(kind);
      app = await createTestApp(server, SCHEMA);
      admin = client(app.endpoint, app.token);
      const channels = await app.data('mutation { a: createChannel(input: { name: "general" }) { changedChannel { id } } b: createChannel(input: { name: "random" }) { changedChannel { id } } }');
      general = channels.a.changedChannel.id;
      random = channels.b.changedChannel.id;
    });
    afterAll(async () => {
      await admin?.dispose();
      await server?.close();
    });

    it('delivers create, update and delete with the value, the mutation and an edge whose cursor pages allXs', async () => {
      const sub = await watch(MESSAGES, { m: ALL });
      const id = await create('hello', { priority: 1 });
      await app.data('mutation($i: UpdateMessageInput!) { updateMessage(input: $i) { changedMessage { id } } }', { i: { id, text: 'hello again' } });
      await app.data('mutation($i: DeleteMessageInput!) { deleteMessage(input: $i) { changedMessage { id } } }', { i: { id } });
      const events = (await sub.take(3)).map((e) => e.data.subscribeToMessage);
      expect(events.map((e) => e.mutation)).toEqual(ALL);
      expect(events[0].value).toEqual({ id, text: 'hello', priority: 1, channel: { name: 'general' } });
      expect(events[1].value.text).toBe('hello again');
      // The deleted object as it was, its relations as they are.
      expect(events[2].value).toEqual({ id, text: 'hello again', priority: 1, channel: { name: 'general' } });
      expect(events[0].edge.node.id).toBe(id);
      // The edge's cursor is the one allMessages gives the object: pages continue from it.
      const kept = await create('kept');
      const [created] = (await sub.take(4)).slice(3).map((e) => e.data.subscribeToMessage);
      const page = await app.data('{ viewer { allMessages { edges { cursor node { id } } } } }');
      const edges = page.viewer.allMessages.edges as { cursor: string; node: { id: string } }[];
      const position = edges.findIndex((e) => e.node.id === kept);
      expect(edges[position]?.cursor).toBe(created.edge.cursor);
      const after = await app.data('query($c: String) { viewer { allMessages(after: $c) { edges { node { id } } } } }', { c: created.edge.cursor });
      expect(after.viewer.allMessages.edges).toEqual(edges.slice(position + 1).map((e) => ({ node: e.node })));
      await sub.close();
    });

    it('hears only the mutations asked for', async () => {
      const sub = await watch(MESSAGES, { m: ['deleteMessage'] });
      const id = await create('short-lived');
      await app.data('mutation($i: UpdateMessageInput!) { updateMessage(input: $i) { changedMessage { id } } }', { i: { id, priority: 9 } });
      await app.data('mutation($i: DeleteMessageInput!) { deleteMessage(input: $i) { changedMessage { id } } }', { i: { id } });
      const [event] = await sub.take(1);
      expect(event?.data.subscribeToMessage.mutation).toBe('deleteMessage');
      expect(await sub.settle()).toHaveLength(1);
      await sub.close();
    });

    it('filters on field operators, regular expressions, relation ids, AND / OR / NOT', async () => {
      const cases: [string, Record<string, unknown>, string[]][] = [
        ['eq', { text: { eq: 'alpha' } }, ['alpha']],
        ['gt', { priority: { gt: 5 } }, ['urgent beta']],
        ['like', { text: { like: '%beta' } }, ['urgent beta']],
        ['matches', { text: { matches: '^al.ha$' } }, ['alpha']],
        ['notMatches', { text: { notMatches: 'a' } }, ['xyz']],
        ['channelId eq', { channelId: { eq: random } }, ['xyz']],
        ['channelId in', { channelId: { in: [random, general] } }, ['alpha', 'urgent beta', 'xyz']],
        ['channelId notIn', { channelId: { notIn: [general] } }, ['xyz']],
        ['OR', { OR: [{ text: { eq: 'alpha' } }, { priority: { gte: 10 } }] }, ['alpha', 'urgent beta']],
        ['NOT', { NOT: { text: { matches: 'a' } } }, ['xyz']],
        ['ne', { text: { ne: 'alpha' } }, ['urgent beta', 'xyz']],
        ['in', { text: { in: ['alpha', 'xyz'] } }, ['alpha', 'xyz']],
        ['notIn', { text: { notIn: ['alpha'] } }, ['urgent beta', 'xyz']],
        ['between', { priority: { between: [5, 20] } }, ['urgent beta']],
        ['notBetween', { priority: { notBetween: [5, 20] } }, ['alpha', 'xyz']],
        ['lt / lte', { priority: { lt: 10, lte: 1 } }, ['alpha']],
        ['isNull', { priority: { isNull: true } }, ['xyz']],
        ['notLike', { text: { notLike: '%a%' } }, ['xyz']],
        ['matches, case-insensitive', { text: { matches: '(?i)^URGENT' } }, ['urgent beta']],
        ['createdAt', { createdAt: { gte: '2017' } }, ['alpha', 'urgent beta', 'xyz']],
        ['AND', { AND: [{ channelId: { eq: general } }, { text: { like: 'u%' } }] }, ['urgent beta']],
        ['channelId isNull', { channelId: { isNull: false } }, ['alpha', 'urgent beta', 'xyz']],
      ];
      const subs = [];
      for (const [, filter] of cases) subs.push(await watch(MESSAGES, { m: ['createMessage'], f: filter }));
      await create('alpha', { priority: 1 });
      await create('urgent beta', { priority: 10 });
      await create('xyz', { channelId: random });
      for (const [i, [name, , expected]] of cases.entries()) {
        const sub = subs[i] as (typeof subs)[number];
        await sub.take(expected.length, 2_000).catch(() => undefined);
        const texts = (await sub.settle(150)).map((e) => e.data.subscribeToMessage.value.text);
        expect(texts, name).toEqual(expected);
      }
      for (const sub of subs) await sub.close();
    });

    it('refuses bad filters when subscribing: invalid or back-referencing patterns, ids of another type', async () => {
      for (const [filter, message] of [
        [{ text: { matches: '(unclosed' } }, /not a valid regular expression/],
        [{ text: { matches: '(a)\\1' } }, /back references/],
        [{ text: { matches: 'x'.repeat(300) } }, /at most 256 characters/],
        [{ channelId: { eq: 'not-an-id' } }, /./],
      ] as const) {
        const sub = subscribe(admin, MESSAGES, { m: ['createMessage'], f: filter });
        await expect(sub.take(1)).rejects.toThrow(/subscription ended/);
        const errors = sub.errors[0] as { message: string; extensions: { code: string } }[];
        expect(errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
        expect(errors[0]?.message).toMatch(message);
      }
    });

    it('tells both ends of an edge mutation as updates, and a login as loginUser', async () => {
      const users = await watch('subscription { subscribeToUser(mutations: [updateUser, loginUser]) { mutation value { id username } } }', {});
      const tags = await watch('subscription { subscribeToTag(mutations: [updateTag]) { mutation value { id label users { edges { node { username } } } } } }', {});
      const made = await app.data('mutation { u: createUser(input: { username: "ada", password: "pw-123456" }) { changedUser { id } } t: createTag(input: { label: "vip" }) { changedTag { id } } }');
      const userId = made.u.changedUser.id;
      const tagId = made.t.changedTag.id;
      await app.data('mutation($i: AddToUserTagsConnectionInput!) { addToUserTagsConnection(input: $i) { clientMutationId } }', { i: { userId, tagId } });
      const [tagEvent] = await tags.take(1);
      expect(tagEvent?.data.subscribeToTag).toEqual({ mutation: 'updateTag', value: { id: tagId, label: 'vip', users: { edges: [{ node: { username: 'ada' } }] } } });
      const [userEvent] = await users.take(1);
      expect(userEvent?.data.subscribeToUser).toEqual({ mutation: 'updateUser', value: { id: userId, username: 'ada' } });
      await app.gql('mutation { loginUser(input: { username: "ada", password: "pw-123456" }) { token } }', {}, {});
      const second = await users.take(2);
      expect(second[1]?.data.subscribeToUser).toEqual({ mutation: 'loginUser', value: { id: userId, username: 'ada' } });
      await users.close();
      await tags.close();
    });

    it('delivers a deleted object too large for one notification', async () => {
      const sub = await watch('subscription { subscribeToMessage(mutations: [deleteMessage]) { value { id body } } }', {});
      const body = 'é'.repeat(20_000);
      const id = await create('big', { body });
      await app.data('mutation($i: DeleteMessageInput!) { deleteMessage(input: $i) { changedMessage { id } } }', { i: { id } });
      const [event] = await sub.take(1);
      expect(event?.data.subscribeToMessage.value).toEqual({ id, body });
      await sub.close();
    });

    it('publishes nothing for an app without subscribers, and starts as soon as one subscribes', async () => {
      const heard: string[] = [];
      const stop = await server.store.listen('tessera_events', (payload) => void heard.push(payload));
      expect(await openSubscriptions(server.base)).toBe(0);
      await create('unheard');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual([]);
      const sub = await watch(MESSAGES, { m: ['createMessage'] });
      await create('heard');
      expect((await sub.take(1))[0]?.data.subscribeToMessage.value.text).toBe('heard');
      expect(heard.length).toBe(1);
      await sub.close();
      await stop();
    });

    it('never puts a password hash in a notification, and each event carries its own state', async () => {
      const heard: string[] = [];
      const stop = await server.store.listen('tessera_events', (payload) => void heard.push(payload));
      const users = await watch('subscription { subscribeToUser(mutations: [createUser, updateUser, deleteUser]) { mutation value { username } } }', {});
      const made = await app.data('mutation { createUser(input: { username: "hash-free", password: "pw-123456" }) { changedUser { id } } }');
      const id = made.createUser.changedUser.id;
      await app.data('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id, username: 'renamed' } });
      await app.data('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id } });
      const events = (await users.take(3)).map((e) => e.data.subscribeToUser);
      expect(events).toEqual([
        { mutation: 'createUser', value: { username: 'hash-free' } },
        { mutation: 'updateUser', value: { username: 'renamed' } },
        { mutation: 'deleteUser', value: { username: 'renamed' } },
      ]);
      expect(heard.length).toBeGreaterThanOrEqual(3);
      expect(heard.join('\n')).not.toMatch(/argon2|password/);
      await stop();
      await users.close();
    });

    it('runs queries and mutations over the socket too', async () => {
      const result = await new Promise<unknown>((resolve, reject) => {
        admin.subscribe({ query: 'mutation { createChannel(input: { name: "by socket" }) { changedChannel { name } } }' }, { next: resolve, error: reject, complete: () => undefined });
      });
      expect(result).toEqual({ data: { createChannel: { changedChannel: { name: 'by socket' } } } });
    });
  });
}
