// The oldest subscription protocol, `graphql-subscriptions`, spoken by the client of
// subscriptions-transport-ws 0.5 (the version the original service's chat and VR starter kits
// pin), through the real server on both stores: the same credentials, rules, limits and close
// behaviour as the two newer protocols.

import { SubscriptionClient } from 'subscriptions-transport-ws-05/dist/client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { Json, TestApp } from '../api/harness.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { openSubscriptions, until, waitForSubscriptions, wsUrl } from '../realtime/harness.js';

const SCHEMA = `
type Message @model
  @permission(scope: EVERYONE, read: true)
  @permission(scope: AUTHENTICATED, create: true) {
  text: String!
  secret: String @permission(scope: RELATION, userFields: ["author"], read: true)
  author: User @relation(name: "MessageAuthor")
}
type Note @model { text: String }
type User @model { messages: [Message] @relation(name: "MessageAuthor") }
`;

const ON_CREATE = 'subscription { subscribeToMessage(mutations: [createMessage]) { mutation value { text } } }';

/** A subscriptions-transport-ws 0.5 client, its connection outcome, and how its socket closed. */
function oldClient(endpoint: string, connectionParams: Record<string, unknown> = {}) {
  let connected: (value: unknown) => void = () => undefined;
  const initResult = new Promise<unknown>((resolve) => (connected = resolve));
  const client = new SubscriptionClient(wsUrl(endpoint), { connectionParams, connectionCallback: (error) => connected(error ?? 'ok') }, WebSocket);
  // The client's own socket: its close code says how the server ended the connection.
  const socket = (client as unknown as { client: WebSocket }).client;
  const closed = new Promise<number>((resolve) => socket.addEventListener('close', (event) => resolve(event.code)));
  const subscribe = (query: string, variables: Record<string, unknown> = {}) => {
    const events: Json[] = [];
    const errors: Json[] = [];
    const id = client.subscribe({ query, variables }, (error, result) => {
      if (error && error.length > 0) errors.push(...error);
      else events.push(result);
    });
    return { id, events, errors };
  };
  return { client, initResult, closed, subscribe };
}

describe.each(STORE_KINDS)('the graphql-subscriptions protocol with its own client, subscriptions-transport-ws 0.5 (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  const users: Record<string, { id: string; token: string }> = {};
  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, SCHEMA);
    for (const name of ['ann', 'bob']) {
      const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: name, password: 'pw-123456' } });
      users[name] = { id: data.createUser.changedUser.id, token: data.createUser.token };
    }
  });
  afterAll(async () => server?.close());

  const createMessage = (text: string, as = app.token, extra: Record<string, unknown> = {}) =>
    app.gql('mutation($i: CreateMessageInput!) { createMessage(input: $i) { changedMessage { id } } }', { i: { text, ...extra } }, { authorization: `Bearer ${as}` });

  it('selects the protocol, accepts a user token in the init payload and delivers events', async () => {
    const before = await openSubscriptions(server.base);
    const old = oldClient(app.endpoint, { Authorization: `Bearer ${users.ann?.token}` });
    expect(await old.initResult).toBe('ok');
    expect((old.client as unknown as { client: WebSocket }).client.protocol).toBe('graphql-subscriptions');
    const sub = old.subscribe(ON_CREATE);
    await waitForSubscriptions(server.base, before + 1);
    await createMessage('hello from 2017');
    const [event] = await until(() => (sub.events.length > 0 ? sub.events : undefined), 5_000, 'an event');
    expect(event).toEqual({ subscribeToMessage: { mutation: 'createMessage', value: { text: 'hello from 2017' } } });
    expect(sub.errors).toEqual([]);
    old.client.unsubscribe(sub.id);
    await waitForSubscriptions(server.base, before);
    old.client.close();
  });

  it('delivers under the subscriber\'s rules: a field rule answers FORBIDDEN to others, the value to its author', async () => {
    const query = 'subscription { subscribeToMessage(mutations: [createMessage]) { value { text secret } } }';
    const before = await openSubscriptions(server.base);
    const asAnn = oldClient(app.endpoint, { Authorization: `Bearer ${users.ann?.token}` });
    const asBob = oldClient(app.endpoint, { Authorization: `Bearer ${users.bob?.token}` });
    const anonymous = oldClient(app.endpoint);
    const subs = [asAnn.subscribe(query), asBob.subscribe(query), anonymous.subscribe(query)];
    await waitForSubscriptions(server.base, before + 3);
    await createMessage('signed', users.ann?.token, { secret: 'for ann only', authorId: users.ann?.id });
    const got = await Promise.all(subs.map((s, i) => until(() => (s.events.length + s.errors.length > 0 ? s : undefined), 5_000, `subscriber ${i}`)));
    expect(got[0]?.events[0]).toEqual({ subscribeToMessage: { value: { text: 'signed', secret: 'for ann only' } } });
    // The old client hands over errors alone when a payload has them; the field is refused.
    for (const other of [got[1], got[2]]) expect(other?.errors.map((e: Json) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    for (const c of [asAnn, asBob, anonymous]) c.client.close();
    await waitForSubscriptions(server.base, before);
  });

  it('refuses a bad token with init_fail and closes with 1011; another app\'s token too', async () => {
    const other = await createTestApp(server, SCHEMA);
    for (const token of ['garbage', other.token]) {
      const refused = oldClient(app.endpoint, { Authorization: `Bearer ${token}` });
      expect(await refused.initResult).toBe('The token is invalid, expired or revoked');
      expect(await refused.closed).toBe(1011);
    }
  });

  it('answers an invalid or over-limit operation with subscription_fail and coded errors', async () => {
    const old = oldClient(app.endpoint, { Authorization: `Bearer ${app.token}` });
    expect(await old.initResult).toBe('ok');
    const invalid = old.subscribe('subscription { subscribeToMessage(mutations: [createMessage]) { value { nope } } }');
    const deep = old.subscribe(`subscription { subscribeToMessage(mutations: [createMessage]) { value { author { messages { edges { node { author { messages { edges { node { author { messages { edges { node { text } } } } } } } } } } } } } } }`);
    const both = await Promise.all([invalid, deep].map((s, i) => until(() => (s.errors.length > 0 ? s.errors : undefined), 5_000, `failure ${i}`)));
    expect(both[0]?.map((e: Json) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(both[1]?.map((e: Json) => e.extensions?.code)).toEqual(['LIMIT_EXCEEDED']);
    old.client.close();
  });

  it('holds at most 100 subscriptions per connection', async () => {
    const old = oldClient(app.endpoint, { Authorization: `Bearer ${app.token}` });
    expect(await old.initResult).toBe('ok');
    const before = await openSubscriptions(server.base);
    const subs = Array.from({ length: 101 }, () => old.subscribe('subscription { subscribeToNote(mutations: [createNote]) { mutation } }'));
    const refused = await until(() => subs.find((s) => s.errors.length > 0), 5_000, 'the 101st refused');
    expect(refused.errors.map((e: Json) => e.extensions?.code)).toEqual(['LIMIT_EXCEEDED']);
    await waitForSubscriptions(server.base, before + 100);
    old.client.close();
    await waitForSubscriptions(server.base, before);
  });

  it('closes with 1012 when the app\'s schema changes and with 1001 when the server shuts down', async () => {
    const own = await startTestServer(kind);
    const ownApp = await createTestApp(own, SCHEMA);
    const first = oldClient(ownApp.endpoint, { Authorization: `Bearer ${ownApp.token}` });
    expect(await first.initResult).toBe('ok');
    first.subscribe(ON_CREATE);
    await waitForSubscriptions(own.base, 1);
    await ownApp.migrate(`${SCHEMA}\ntype Extra @model { x: Int }`);
    // The change reaches the subscription with the next event.
    await ownApp.gql('mutation { createMessage(input: { text: "after the change" }) { clientMutationId } }');
    expect(await first.closed).toBe(1012);
    const second = oldClient(ownApp.endpoint, { Authorization: `Bearer ${ownApp.token}` });
    expect(await second.initResult).toBe('ok');
    second.subscribe(ON_CREATE);
    await waitForSubscriptions(own.base, 1);
    await own.close();
    expect(await second.closed).toBe(1001);
  });
});
