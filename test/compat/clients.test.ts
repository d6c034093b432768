// Operations written the way clients of the original service write them, through the real
// server on both stores: variables typed `[XOrderByArgs]`, `[ID]`, `[XWhereArgs]` (list items
// nullable, null items ignored), a schema whose made-up names clash (a type `UserMeta` beside a
// field `User.meta`), and an ordinary query with no `first` anywhere under the default cost limit.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';

const CHAT = `
type Channel @model {
  name: String!
  topic: String
  messages: [Message] @relation(name: "ChannelMessages")
}
type Message @model {
  text: String!
  channel: Channel @relation(name: "ChannelMessages")
}
type UserMeta @model {
  key: String!
  value: String
  user: User @relation(name: "UserMetas")
}
type User @model {
  meta: [UserMeta] @relation(name: "UserMetas")
  posts: [Post] @relation(name: "PostAuthor")
}
type Post @model { title: String! author: User @relation(name: "PostAuthor") }
`;

function codes(reply: GraphQLResult): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions?.code as string);
}

describe.each(STORE_KINDS)('clients of the original service (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, CHAT);
    for (const [name, topic] of [['general', 'everything'], ['random', null], ['dev', 'code']] as const) {
      await app.data('mutation($i: CreateChannelInput!) { createChannel(input: $i) { changedChannel { id } } }', { i: { name, topic, messages: [{ text: `${name} 1` }, { text: `${name} 2` }] } });
    }
  });
  afterAll(async () => server?.close());

  const names = (data: Json) => data.viewer.allChannels.edges.map((e: Json) => e.node.name);

  it('accepts variables declared with nullable list items: [ChannelOrderByArgs], [ID], [ChannelWhereArgs]', async () => {
    const query = `query Channels($orderBy: [ChannelOrderByArgs], $where: ChannelWhereArgs, $first: Int) {
      viewer { allChannels(orderBy: $orderBy, where: $where, first: $first) { edges { node { id name } } } }
    }`;
    const ordered = await app.gql(query, { orderBy: [{ field: 'name', direction: 'DESC' }], first: 10 });
    expect(codes(ordered)).toEqual([]);
    expect(names(ordered.body.data)).toEqual(['random', 'general', 'dev']);
    // A single object where a list is declared is accepted too (GraphQL input coercion).
    expect(names((await app.gql(query, { orderBy: { field: 'name' } })).body.data)).toEqual(['dev', 'general', 'random']);
    // Null items are left out: of orderBy, of in, of AND and OR.
    expect(names((await app.gql(query, { orderBy: [null, { field: 'name', direction: 'DESC' }] })).body.data)).toEqual(['random', 'general', 'dev']);
    const ids = ordered.body.data.viewer.allChannels.edges.map((e: Json) => e.node.id as string);
    const byIds = await app.gql('query($ids: [ID]) { viewer { allChannels(where: { id: { in: $ids } }, orderBy: [{ field: name }]) { edges { node { name } } } } }', { ids: [ids[0], null] });
    expect(names(byIds.body.data)).toEqual(['random']);
    const notIn = await app.gql('query($ids: [ID]) { viewer { allChannels(where: { id: { notIn: $ids } }, orderBy: [{ field: name }]) { edges { node { name } } } } }', { ids: [null, ids[0]] });
    expect(names(notIn.body.data)).toEqual(['dev', 'general']);
    const topics = await app.gql('query($t: [String]) { viewer { allChannels(where: { topic: { in: $t } }, orderBy: { field: name }) { edges { node { name } } } } }', { t: ['code', null] });
    expect(names(topics.body.data)).toEqual(['dev']);
    const or = await app.gql('query($or: [ChannelWhereArgs]) { viewer { allChannels(where: { OR: $or }, orderBy: { field: name }) { edges { node { name } } } } }', { or: [null, { name: { eq: 'dev' } }, { name: { eq: 'random' } }] });
    expect(names(or.body.data)).toEqual(['dev', 'random']);
    const onlyNull = await app.gql('query($or: [ChannelWhereArgs]) { viewer { allChannels(where: { OR: $or }) { aggregations { count } } } }', { or: [null] });
    expect(onlyNull.body.data.viewer.allChannels.aggregations.count).toBe(0);
    const and = await app.gql('query($and: [ChannelWhereArgs]) { viewer { allChannels(where: { AND: $and }) { aggregations { count } } } }', { and: [null, { topic: { isNull: false } }] });
    expect(and.body.data.viewer.allChannels.aggregations.count).toBe(2);
    const between = await app.gql('{ viewer { allChannels(where: { name: { between: ["d", null] } }) { aggregations { count } } } }');
    expect(codes(between)).toEqual(['BAD_USER_INPUT']);
  });

  it('creates nothing for a null item of a nested create list', async () => {
    const created = await app.gql('mutation($i: CreateChannelInput!) { createChannel(input: $i) { changedChannel { messages { edges { node { text } } } } } }', {
      i: { name: 'nested', messages: [null, { text: 'only one' }, null] },
    });
    expect(codes(created)).toEqual([]);
    expect(created.body.data.createChannel.changedChannel.messages.edges).toEqual([{ node: { text: 'only one' } }]);
  });

  it('serves a type UserMeta beside a field User.meta, the field taking numbered names', async () => {
    const made = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', {
      i: { username: 'meta-user', password: 'pw-123456', meta: [{ key: 'theme', value: 'dark' }, { key: 'lang', value: 'fr' }] },
    });
    expect(codes(made)).toEqual([]);
    const user = await app.gql(
      `query($id: ID!) { getUser(id: $id) { meta(orderBy: [{ field: key }]) { __typename ...Metas } } }
       fragment Metas on UserMeta2Connection { edges { __typename node { __typename key value } } }`,
      { id: made.body.data.createUser.changedUser.id },
    );
    expect(codes(user)).toEqual([]);
    expect(user.body.data.getUser.meta).toEqual({
      __typename: 'UserMeta2Connection',
      edges: [
        { __typename: 'UserMeta2Edge', node: { __typename: 'UserMeta', key: 'lang', value: 'fr' } },
        { __typename: 'UserMeta2Edge', node: { __typename: 'UserMeta', key: 'theme', value: 'dark' } },
      ],
    });
    const all = await app.gql('{ viewer { allUserMetas { __typename edges { __typename } aggregations { __typename count } } } }');
    expect(all.body.data.viewer.allUserMetas).toEqual({
      __typename: 'UserMetaConnection',
      edges: [{ __typename: 'UserMetaEdge' }, { __typename: 'UserMetaEdge' }],
      aggregations: { __typename: 'UserMetaAggregations', count: 2 },
    });
  });

  it('lets "all users, each with their posts and roles" through with no first anywhere, and refuses a million objects', async () => {
    for (let i = 0; i < 3; i++) {
      await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { clientMutationId } }', { i: { username: `writer-${i}`, password: 'pw-123456', posts: [{ title: `p${i}` }] } });
    }
    const ordinary = await app.gql('{ viewer { allUsers { edges { node { username posts { edges { node { title } } } roles { edges { node { name } } } } } } } }');
    expect(codes(ordinary)).toEqual([]);
    expect(ordinary.body.data.viewer.allUsers.edges.length).toBeGreaterThanOrEqual(3);
    const hostile = await app.gql('{ viewer { allUsers { edges { node { posts { edges { node { author { posts { edges { node { title } } } } } } } } } } } }');
    expect(codes(hostile)).toEqual(['LIMIT_EXCEEDED']);
    expect(hostile.body.errors[0].extensions.limit).toBe('maxCost');
  });
});
