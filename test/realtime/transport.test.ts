// The WebSocket transport on an app's path: both subprotocols (graphql-transport-ws and the
// older subscriptions-transport-ws one, with its real client and with raw frames), Apollo
// Client's subscription link, credentials and their close codes, unknown apps and
// subprotocols, a slow subscriber, schema changes and shutdown. Both stores.

import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { SubscriptionClient } from 'subscriptions-transport-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { client, openSubscriptions, subscribe, waitForSubscriptions, wsUrl } from './harness.js';

const SCHEMA = `
type Message @model @permission(scope: EVERYONE, read: true) { text: String! body: Text thread: Thread @relation(name: "ThreadMessages") }
type Thread @model { messages: [Message] @relation(name: "ThreadMessages") }
`;
const ON_CREATE = 'subscription { subscribeToMessage(mutations: [createMessage]) { mutation value { text } } }';

/** A raw socket speaking `protocol`, with every message it receives and how it closed. */
function raw(url: string, protocol: string | undefined) {
  const socket = new WebSocket(url, protocol === undefined ? [] : [protocol]);
  const messages: Json[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Json));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const until = async (test: (m: Json) => boolean, timeoutMs = 5_000): Promise<Json> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such message among ${JSON.stringify(messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { socket, messages, opened, closed, until, send: (m: Json) => socket.send(JSON.stringify(m)) };
}

/** A raw graphql-transport-ws socket to `app`, initialised with its token and acknowledged. */
async function acknowledged(app: TestApp): Promise<ReturnType<typeof raw>> {
  const c = raw(wsUrl(app.endpoint), 'graphql-transport-ws');
  await c.opened;
  c.send({ type: 'connection_init', payload: { Authorization: `Bearer ${app.token}` } });
  await c.until((m) => m.type === 'connection_ack');
  return c;
}

/** The message types an event arrives in: graphql-transport-ws, then the two older protocols'. */
const EVENT_MESSAGES = new Set(['next', 'data', 'subscription_data']);

/** The HTTP status an upgrade request is refused with. */
function refusedStatus(url: string, protocol = 'graphql-transport-ws'): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, [protocol]);
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('error', () => undefined);
  });
}

for (const kind of STORE_KINDS) {
  describe(`subscriptions: transport (${kind})`, () => {
    let server: TestServer;
    let app: TestApp;
    let other: TestApp;

    const createMessage = (text: string) => app.data('mutation($i: CreateMessageInput!) { createMessage(input: $i) { changedMessage { id } } }', { i: { text } });

    beforeAll(async () => {
      server = await startTestServer(kind);
      app = await createTestApp(server, SCHEMA);
      other = await createTestApp(server, SCHEMA);
    });
    afterAll(async () => server?.close());

    it('closes graphql-transport-ws connections with 4403 for a bad token or another app\'s token, and acknowledges anonymous ones', async () => {
      const otherUser = await other.gql('mutation { createUser(input: { username: "x", password: "pw-123456" }) { token } }');
      for (const token of ['nonsense', 'tat_0000', otherUser.body.data.createUser.token as string]) {
        const c = raw(wsUrl(app.endpoint), 'graphql-transport-ws');
        await c.opened;
        c.send({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } });
        expect((await c.closed).code, token.slice(0, 10)).toBe(4403);
      }
      const anonymous = raw(wsUrl(app.endpoint), 'graphql-transport-ws');
      await anonymous.opened;
      anonymous.send({ type: 'connection_init', payload: {} });
      await anonymous.until((m) => m.type === 'connection_ack');
      anonymous.socket.close();
    });

    it('takes the token from connection_init in any key case, and from the Authorization query parameter', async () => {
      for (const params of [{ authorization: `Bearer ${app.token}` }, { AUTHORIZATION: `Bearer ${app.token}` }]) {
        const c = raw(wsUrl(app.endpoint), 'graphql-transport-ws');
        await c.opened;
        c.send({ type: 'connection_init', payload: params });
        await c.until((m) => m.type === 'connection_ack');
        c.send({ id: '1', type: 'subscribe', payload: { query: '{ viewer { allMessages { aggregations { count } } } }' } });
        expect((await c.until((m) => m.type === 'next')).payload.data.viewer.allMessages.aggregations.count).toEqual(expect.any(Number));
        c.socket.close();
      }
      const viaUrl = raw(`${wsUrl(app.endpoint)}?Authorization=${encodeURIComponent(`Bearer ${app.token}`)}`, 'graphql-ws');
      await viaUrl.opened;
      viaUrl.send({ type: 'connection_init', payload: {} });
      await viaUrl.until((m) => m.type === 'connection_ack');
      viaUrl.socket.close();
    });

    it('refuses the upgrade for an unknown app or path, and closes 4406 without a subprotocol', async () => {
      expect(await refusedStatus(`${wsUrl(server.base)}/graphql/nosuchapp`)).toBe(404);
      expect(await refusedStatus(`${wsUrl(server.base)}/elsewhere`)).toBe(404);
      const unknown = raw(wsUrl(app.endpoint), undefined);
      await unknown.opened;
      expect((await unknown.closed).code).toBe(4406);
    });

    it('refuses a subscription over the per-connection limit with LIMIT_EXCEEDED, and limits apply over the socket', async () => {
      const c = await acknowledged(app);
      const before = await openSubscriptions(server.base);
      for (let i = 0; i < 101; i++) c.send({ id: `s${i}`, type: 'subscribe', payload: { query: ON_CREATE } });
      const refused = await c.until((m) => m.type === 'error');
      expect(refused.payload[0].extensions.code).toBe('LIMIT_EXCEEDED');
      await waitForSubscriptions(server.base, before + 100);
      const levels = 'thread { messages { edges { node { '.repeat(4);
      const deep = `{ viewer { allMessages { edges { node { ${levels}text${' }'.repeat(16 + 4)} }`;
      c.send({ id: 'deep', type: 'subscribe', payload: { query: deep } });
      const tooDeep = await c.until((m) => m.type === 'error' && m.id === 'deep');
      expect(tooDeep.payload[0].extensions.code).toBe('LIMIT_EXCEEDED');
      c.socket.close();
      await waitForSubscriptions(server.base, before);
    });

    it('serves the older subscriptions-transport-ws protocol frame by frame', async () => {
      const c = raw(wsUrl(app.endpoint), 'graphql-ws');
      await c.opened;
      c.send({ type: 'connection_init', payload: { Authorization: `Bearer ${app.token}` } });
      await c.until((m) => m.type === 'connection_ack');
      await c.until((m) => m.type === 'ka');
      const before = await openSubscriptions(server.base);
      c.send({ id: 'a', type: 'start', payload: { query: ON_CREATE } });
      await waitForSubscriptions(server.base, before + 1);
      await createMessage('legacy');
      expect((await c.until((m) => m.type === 'data' && m.id === 'a')).payload).toEqual({ data: { subscribeToMessage: { mutation: 'createMessage', value: { text: 'legacy' } } } });
      c.send({ id: 'b', type: 'start', payload: { query: 'subscription { subscribeToMessage(mutations: []) { mutation } }' } });
      const refused = await c.until((m) => m.type === 'data' && m.id === 'b');
      expect(refused.payload.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      c.send({ id: 'a', type: 'stop' });
      await c.until((m) => m.type === 'complete' && m.id === 'a');
      await waitForSubscriptions(server.base, before);
      c.send({ type: 'connection_terminate' });
      expect((await c.closed).code).toBe(1000);

      const bad = raw(wsUrl(app.endpoint), 'graphql-ws');
      await bad.opened;
      bad.send({ type: 'connection_init', payload: { Authorization: 'Bearer nonsense' } });
      await bad.until((m) => m.type === 'connection_error');
      expect((await bad.closed).code).toBe(1011);
    });

    it('delivers to the subscriptions-transport-ws client and to Apollo Client\'s GraphQLWsLink', async () => {
      const legacy = new SubscriptionClient(wsUrl(app.endpoint), { connectionParams: { Authorization: `Bearer ${app.token}` } }, WebSocket);
      const apollo = new ApolloClient({ link: new GraphQLWsLink(client(app.endpoint, app.token)), cache: new InMemoryCache() });
      const received: Record<string, Json[]> = { legacy: [], apollo: [] };
      const before = await openSubscriptions(server.base);
      const legacySub = legacy.request({ query: ON_CREATE }).subscribe({ next: (v) => void received.legacy?.push(v as Json) });
      const apolloSub = apollo.subscribe({ query: gql(ON_CREATE) }).subscribe({ next: (v) => void received.apollo?.push(v as Json) });
      await waitForSubscriptions(server.base, before + 2);
      await createMessage('for old and new clients');
      const deadline = Date.now() + 5_000;
      while ((received.legacy?.length ?? 0) < 1 || (received.apollo?.length ?? 0) < 1) {
        if (Date.now() > deadline) throw new Error(`received ${JSON.stringify(received)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(received.legacy?.[0]?.data).toEqual({ subscribeToMessage: { mutation: 'createMessage', value: { text: 'for old and new clients' } } });
      expect(received.apollo?.[0]?.data).toEqual({ subscribeToMessage: { __typename: 'MessageSubscriptionPayload', mutation: 'createMessage', value: { __typename: 'Message', text: 'for old and new clients' } } });
      legacySub.unsubscribe();
      apolloSub.unsubscribe();
      legacy.close();
      apollo.stop();
      await waitForSubscriptions(server.base, before);
    });

    it('writes graphql-transport-ws next messages with their id, and none after the client completes one', async () => {
      const c = await acknowledged(app);
      const before = await openSubscriptions(server.base);
      // An id that needs escaping goes out as sent.
      const odd = 'x"\\y\u2028';
      c.send({ id: odd, type: 'subscribe', payload: { query: ON_CREATE } });
      c.send({ id: 'kept', type: 'subscribe', payload: { query: 'subscription { subscribeToMessage(mutations: [createMessage]) { value { text } } }' } });
      await waitForSubscriptions(server.base, before + 2);
      await createMessage('to both');
      expect(await c.until((m) => m.type === 'next' && m.id === odd)).toEqual({ id: odd, type: 'next', payload: { data: { subscribeToMessage: { mutation: 'createMessage', value: { text: 'to both' } } } } });
      expect(await c.until((m) => m.type === 'next' && m.id === 'kept')).toEqual({ id: 'kept', type: 'next', payload: { data: { subscribeToMessage: { value: { text: 'to both' } } } } });
      c.send({ id: odd, type: 'complete' });
      await waitForSubscriptions(server.base, before + 1);
      await createMessage('to one');
      await c.until((m) => m.type === 'next' && m.id === 'kept' && m.payload.data.subscribeToMessage.value.text === 'to one');
      // (The two subscriptions' statements run side by side: which hears an event first is not set.)
      const nexts = c.messages.filter((m) => m.type === 'next').map((m) => `${m.id as string} ${m.payload.data.subscribeToMessage.value.text as string}`);
      expect(nexts.sort()).toEqual([`${odd} to both`, 'kept to both', 'kept to one'].sort());
      c.socket.close();
      await waitForSubscriptions(server.base, before);
    });

    it('delivers a burst of events to every subscriber of every protocol, each once and all in the same order', async () => {
      const LANES = 4;
      const PER_LANE = 15;
      const protocols = ['graphql-transport-ws', 'graphql-transport-ws', 'graphql-transport-ws', 'graphql-transport-ws', 'graphql-ws', 'graphql-ws', 'graphql-subscriptions'];
      const current = protocols.map((protocol) => raw(wsUrl(app.endpoint), protocol));
      const before = await openSubscriptions(server.base);
      for (const c of current) {
        await c.opened;
        if (c.socket.protocol === 'graphql-subscriptions') {
          // The oldest protocol: the operation sits in the start message itself.
          c.send({ type: 'init', payload: { Authorization: `Bearer ${app.token}` } });
          await c.until((m) => m.type === 'init_success');
          c.send({ id: 's', type: 'subscription_start', query: ON_CREATE });
          continue;
        }
        c.send({ type: 'connection_init', payload: { Authorization: `Bearer ${app.token}` } });
        await c.until((m) => m.type === 'connection_ack');
        c.send({ id: 's', type: c.socket.protocol === 'graphql-ws' ? 'start' : 'subscribe', payload: { query: ON_CREATE } });
      }
      await waitForSubscriptions(server.base, before + current.length);
      // Lanes of mutations at once, each lane's in order: notifications reach the hub faster than one at a time.
      await Promise.all(
        Array.from({ length: LANES }, async (_, lane) => {
          for (let k = 0; k < PER_LANE; k++) await createMessage(`burst ${lane}:${k}`);
        }),
      );
      const heard = await Promise.all(
        current.map(async (c) => {
          const texts = () => c.messages.filter((m) => EVENT_MESSAGES.has(m.type) && m.id === 's').map((m) => m.payload.data.subscribeToMessage.value.text as string);
          const deadline = Date.now() + 10_000;
          while (texts().length < LANES * PER_LANE && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
          return texts();
        }),
      );
      const first = heard[0] as string[];
      expect(first).toHaveLength(LANES * PER_LANE);
      expect(new Set(first).size).toBe(LANES * PER_LANE);
      for (let lane = 0; lane < LANES; lane++) {
        expect(first.filter((t) => t.startsWith(`burst ${lane}:`))).toEqual(Array.from({ length: PER_LANE }, (_, k) => `burst ${lane}:${k}`));
      }
      // Every subscriber heard the events in the same order, commit order, with nothing more.
      for (const texts of heard) expect(texts).toEqual(first);
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const c of current) expect(c.messages.filter((m) => EVENT_MESSAGES.has(m.type))).toHaveLength(LANES * PER_LANE);
      for (const c of current) c.socket.close();
      await waitForSubscriptions(server.base, before);
    });

    it('closes a subscriber too slow to take its events with 1013, and keeps serving the others', async () => {
      // A server that queues at most 8 events per subscription, so the test needs few of them.
      const own = await startTestServer(kind, { maxPendingEvents: 8 });
      const ownApp = await createTestApp(own, SCHEMA);
      const slow = await acknowledged(ownApp);
      const query = 'subscription { subscribeToMessage(mutations: [createMessage]) { value { text body } } }';
      slow.send({ id: '1', type: 'subscribe', payload: { query } });
      const fast = subscribe(client(ownApp.endpoint, ownApp.token), ON_CREATE);
      await waitForSubscriptions(own.base, 2);
      // The slow client stops reading: its socket buffers fill, then its queue of events.
      (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const messages = Array.from({ length: 8 }, () => ({ text: 'big', body: 'x'.repeat(100_000) }));
      for (let burst = 0; burst < 40; burst++) {
        await ownApp.data('mutation($i: CreateThreadInput!) { createThread(input: $i) { clientMutationId } }', { i: { messages } });
        if (await Promise.race([slow.closed.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20))])) break;
      }
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      expect((await slow.closed).code).toBe(1013);
      await waitForSubscriptions(own.base, 1);
      await ownApp.data('mutation { createMessage(input: { text: "still served" }) { clientMutationId } }');
      const texts = (await fast.settle(300)).map((e) => e.data.subscribeToMessage.value.text);
      expect(texts.at(-1)).toBe('still served');
      await fast.close();
      await own.close();
    });

    it('closes subscriptions with 1012 when the app\'s schema changes, and only then', async () => {
      const c = await acknowledged(other);
      const before = await openSubscriptions(server.base);
      c.send({ id: '1', type: 'subscribe', payload: { query: ON_CREATE } });
      await waitForSubscriptions(server.base, before + 1);
      // Reloads of the app that keep its schema (a token revoked, settings changed) keep it open.
      await admin(server, 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }', { i: { appId: other.id, name: 'passing' } });
      await admin(server, 'mutation($i: RevokeAdminTokenInput!) { revokeAdminToken(input: $i) { revoked } }', { i: { appId: other.id, name: 'passing' } });
      await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: other.id, settings: { defaultPageSize: 50 } } });
      await other.data('mutation { createMessage(input: { text: "same schema" }) { clientMutationId } }');
      expect((await c.until((m) => m.type === 'next')).payload.data.subscribeToMessage.value.text).toBe('same schema');
      await other.migrate(`${SCHEMA}\ntype Extra @model { note: String }`);
      await other.data('mutation { createMessage(input: { text: "after the change" }) { clientMutationId } }');
      expect((await c.closed).code).toBe(1012);
    });

    it('closes every connection with 1001 when the server shuts down', async () => {
      const own = await startTestServer(kind);
      const ownApp = await createTestApp(own, SCHEMA);
      const c = await acknowledged(ownApp);
      c.send({ id: '1', type: 'subscribe', payload: { query: ON_CREATE } });
      await waitForSubscriptions(own.base, 1);
      await own.close();
      expect((await c.closed).code).toBe(1001);
    });
  });
}
