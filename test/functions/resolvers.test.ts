// RESOLVER functions end to end on both stores, against a real HTTP endpoint that checks every
// call's signature: custom Query and Mutation fields with scalar, enum, embedded, list and
// @model results (read under the caller's rules), who may call them (refused callers never
// reach the endpoint), arguments from literals and variables, every bad answer FUNCTION_FAILED,
// the schema push checked against the app's functions, and a host resolving to a private
// address refused at the call.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { CREATE, codeOf, startFunctionsServer } from './harness.js';
import { BASE_SCHEMA, CUSTOM_FIELDS, ResolverEndpoint } from './resolverHarness.js';

const MIGRATE = 'mutation($i: MigrateSchemaInput!) { migrateSchema(input: $i) { applied version plan { kind description destructive } } }';
const SIGN_UP = 'mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const codes = (body: Json): string[] => (body.errors ?? []).map((e: Json) => e.extensions?.code);

async function createResolver(server: TestServer, appId: string, endpoint: ResolverEndpoint, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await admin(server, CREATE, { i: { appId, name, kind: 'RESOLVER', url: endpoint.url(), ...extra } });
  if (reply.body.errors) throw new Error(`createFunction failed: ${JSON.stringify(reply.body.errors)}`);
  return reply.body.data.createFunction.secret;
}

describe.each(STORE_KINDS)('RESOLVER functions (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let endpoint: ResolverEndpoint;
  const users: Record<string, { id: string; token: string }> = {};
  let alicePost = '';

  const asUser = (name: string) => bearer(users[name]!.token);
  const anonymous = {};

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    endpoint = await ResolverEndpoint.start();
    app = await createTestApp(server, BASE_SCHEMA);
    endpoint.secret = await createResolver(server, app.id, endpoint, 'r');
    // `slow` posts to the same endpoint with its own secret: only r's calls are checked for it.
    await createResolver(server, app.id, endpoint, 'slow', { timeoutMs: 200 });
    const pushed = await admin(server, MIGRATE, { i: { appId: app.id, schema: BASE_SCHEMA + CUSTOM_FIELDS } });
    expect(pushed.body.errors).toBeUndefined();
    for (const name of ['alice', 'bob', 'eve']) {
      const reply = await app.gql(SIGN_UP, { i: { username: name, password: 'correct horse battery' } }, anonymous);
      users[name] = { id: reply.body.data.createUser.changedUser.id, token: reply.body.data.createUser.token };
    }
    const role = (await app.data('mutation { createRole(input: { name: "Editors" }) { changedRole { id } } }')).createRole.changedRole.id;
    await app.data('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r, accessLevel: readonly }) { clientMutationId } }', { u: users.bob!.id, r: role });
    const created = await app.gql('mutation($a: ID!) { createPost(input: { title: "Alice writes", secretNote: "psst", authorId: $a }) { changedPost { id } } }', { a: users.alice!.id }, asUser('alice'));
    expect(created.body.errors).toBeUndefined();
    alicePost = created.body.data.createPost.changedPost.id;
  });
  afterAll(async () => {
    await server?.close();
    await endpoint?.close();
  });

  it('pushes the custom fields as a new version whose plan names them, with no destructive step', async () => {
    const schema = BASE_SCHEMA + CUSTOM_FIELDS.replace('  purge: Int @function(name: "r")\n', '');
    const reply = await admin(server, MIGRATE, { i: { appId: app.id, schema, dryRun: true } });
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.migrateSchema.plan).toEqual([{ kind: 'dropCustomField', description: 'Remove field Mutation.purge', destructive: false }]);
    const api = await admin(server, 'query($id: ID!) { app(id: $id) { apiSchema } }', { id: app.id });
    expect(api.body.data.app.apiSchema).toContain('quote(symbol: String!): Quote');
    // The printed schema is sorted, arguments included.
    expect(api.body.data.app.apiSchema).toContain('echo(at: DateTime, data: JSON, long: Text, n: Int, price: PriceInput, sides: [Side!], text: String): JSON');
    expect(api.body.data.app.apiSchema).toContain('posts: [Post]!');
  });

  it('calls the function with a signed body and answers scalar, enum and list results', async () => {
    endpoint.handlers.set('side', () => ({ json: { data: 'SELL' } }));
    endpoint.handlers.set('sides', () => ({ json: { data: ['BUY', 'SELL', 'BUY'] } }));
    endpoint.handlers.set('when', () => ({ json: { data: '2024-05-01T10:00:00+02:00' } }));
    const before = endpoint.calls.length;
    const reply = await app.gql('{ side sides when also: side }', {}, anonymous);
    expect(reply.body).toEqual({ data: { side: 'SELL', sides: ['BUY', 'SELL', 'BUY'], when: '2024-05-01T08:00:00.000Z', also: 'SELL' } });
    const calls = endpoint.calls.slice(before);
    expect(calls.map((c) => c.body.operation).sort()).toEqual(['side', 'side', 'sides', 'when']);
    for (const call of calls) {
      expect(call.verified).toBe(true);
      expect(call.headers['tessera-event-id']).toBe(call.body.id);
      expect(call.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), app: app.id, function: 'r', operation: call.body.operation, caller: { userId: null, admin: false }, arguments: {}, createdAt: expect.any(String) });
    }
  });

  it('passes literal and variable arguments as JSON values, and tells who calls', async () => {
    endpoint.handlers.set('echo', (body) => ({ json: { data: { arguments: body.arguments, caller: body.caller } } }));
    const literal = await app.gql('{ echo(text: "hé", n: 7, sides: [BUY, SELL], at: "2017-03", price: { amount: 1.5, currency: "EUR", tags: ["a"] }, data: { deep: [1, { x: null }] }) }', {}, asUser('alice'));
    expect(literal.body.errors).toBeUndefined();
    expect(literal.body.data.echo).toEqual({
      arguments: { text: 'hé', n: 7, sides: ['BUY', 'SELL'], at: '2017-03-01T00:00:00.000Z', price: { amount: 1.5, currency: 'EUR', tags: ['a'] }, data: { deep: [1, { x: null }] } },
      caller: { userId: users.alice!.id, admin: false },
    });
    const query = 'query($t: String, $n: Int, $s: [Side!], $at: DateTime, $p: PriceInput, $d: JSON) { echo(text: $t, n: $n, sides: $s, at: $at, price: $p, data: $d) }';
    const vars = { t: 'v', n: -3, s: ['SELL'], at: '2020-01-02T03:04:05Z', p: { amount: 2 }, d: 'plain' };
    const variables = await app.gql(query, vars);
    expect(variables.body.data.echo).toEqual({
      arguments: { text: 'v', n: -3, sides: ['SELL'], at: '2020-01-02T03:04:05.000Z', price: { amount: 2 }, data: 'plain' },
      caller: { userId: null, admin: true },
    });
    // Variables not sent are left out; a null sent is null.
    const some = await app.gql(query, { t: null }, anonymous);
    expect(some.body.data.echo.arguments).toEqual({ text: null });
  });

  it('refuses bad arguments with BAD_USER_INPUT before calling', async () => {
    const before = endpoint.calls.length;
    const nul = await app.gql('query($t: String) { echo(text: $t) }', { t: 'a\u0000b' }, anonymous);
    expect(codes(nul.body)).toEqual(['BAD_USER_INPUT']);
    const long = await app.gql('query($t: String) { echo(text: $t) }', { t: 'x'.repeat(10_001) }, anonymous);
    expect(codes(long.body)).toEqual(['BAD_USER_INPUT']);
    const nested = await app.gql('query($p: PriceInput) { echo(price: $p) }', { p: { amount: 1, tags: ['ok', 'bad\u0000'] } }, anonymous);
    expect(codes(nested.body)).toEqual(['BAD_USER_INPUT']);
    const wrong = await app.gql('{ echo(n: "seven") }', {}, anonymous);
    expect(codes(wrong.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(endpoint.calls.length).toBe(before);
    // Text is not bound by the String limit.
    const text = await app.gql('query($l: Text) { echo(long: $l) }', { l: 'y'.repeat(20_000) }, anonymous);
    expect(text.body.errors).toBeUndefined();
  });

  it('shapes an embedded result to the selection: aliases, __typename, fragments, nested lists', async () => {
    endpoint.handlers.set('quote', (body) => ({
      json: { data: { symbol: body.arguments.symbol, side: 'BUY', price: { amount: 12.5, currency: 'USD', at: '2024-01-01', tags: null }, history: [{ amount: 1 }, null] } },
    }));
    const reply = await app.gql(
      'query($s: String!) { quote(symbol: $s) { __typename s: symbol ...F price { amount at } history { amount currency } } } fragment F on Quote { side price { cur: currency } }',
      { s: 'ACME' },
      anonymous,
    );
    expect(reply.body).toEqual({
      data: {
        quote: {
          __typename: 'Quote',
          s: 'ACME',
          side: 'BUY',
          price: { cur: 'USD', amount: 12.5, at: '2024-01-01T00:00:00.000Z' },
          history: [{ amount: 1, currency: null }, null],
        },
      },
    });
    endpoint.handlers.set('quotes', () => ({ json: { data: [{ symbol: 'A' }, null, { symbol: 'B', price: null }] } }));
    const list = await app.gql('{ quotes { symbol price { amount } } }', {}, anonymous);
    expect(list.body).toEqual({ data: { quotes: [{ symbol: 'A', price: null }, null, { symbol: 'B', price: null }] } });
  });

  it('reads a @model result under the caller’s rules: the owner sees it, others get null', async () => {
    endpoint.handlers.set('post', () => ({ json: { data: { id: alicePost } } }));
    const query = '{ post { id title author { id } } }';
    const owner = await app.gql(query, {}, asUser('alice'));
    expect(owner.body).toEqual({ data: { post: { id: alicePost, title: 'Alice writes', author: { id: users.alice!.id } } } });
    for (const who of [asUser('bob'), anonymous]) expect((await app.gql(query, {}, who)).body).toEqual({ data: { post: null } });
    expect((await app.gql(query)).body.data.post.title).toBe('Alice writes');
    // A field with rules of its own is refused at its path, as on getPost.
    const note = await app.gql('{ post { title secretNote } }', {}, asUser('alice'));
    expect(note.body.data.post).toEqual({ title: 'Alice writes', secretNote: null });
    expect(codes(note.body)).toEqual(['FORBIDDEN']);
    expect(note.body.errors[0].path).toEqual(['post', 'secretNote']);
  });

  it('reads a list of @model results in the function’s order, null where missing or hidden', async () => {
    const tag = (await app.data('mutation { createTag(input: { name: "t1" }) { changedTag { id } } }')).createTag.changedTag.id;
    const deleted = (await app.data('mutation { createTag(input: { name: "gone" }) { changedTag { id } } }')).createTag.changedTag.id;
    await app.data('mutation($id: ID!) { deleteTag(input: { id: $id }) { clientMutationId } }', { id: deleted });
    endpoint.handlers.set('tag', () => ({ json: { data: { id: deleted } } }));
    expect((await app.gql('{ tag { name } }', {}, anonymous)).body).toEqual({ data: { tag: null } });
    endpoint.handlers.set('posts', () => ({ json: { data: [{ id: alicePost }, null, { id: alicePost }] } }));
    expect((await app.gql('{ posts { title } }', {}, asUser('alice'))).body).toEqual({ data: { posts: [{ title: 'Alice writes' }, null, { title: 'Alice writes' }] } });
    expect((await app.gql('{ posts { title } }', {}, asUser('bob'))).body).toEqual({ data: { posts: [null, null, null] } });
    endpoint.handlers.set('posts', () => ({ json: { data: [] } }));
    expect((await app.gql('{ posts { title } }', {}, anonymous)).body).toEqual({ data: { posts: [] } });
    endpoint.handlers.set('tag', () => ({ json: { data: { id: tag } } }));
    expect((await app.gql('{ tag { __typename name } }', {}, anonymous)).body).toEqual({ data: { tag: { __typename: 'Tag', name: 't1' } } });
  });

  it('never reads another app’s object, even when the function names its id', async () => {
    const neighbour = await createTestApp(server, BASE_SCHEMA);
    const theirs = (await neighbour.data('mutation { createTag(input: { name: "theirs" }) { changedTag { id } } }')).createTag.changedTag.id;
    endpoint.handlers.set('tag', () => ({ json: { data: { id: theirs } } }));
    expect((await app.gql('{ tag { name } }')).body).toEqual({ data: { tag: null } });
    expect((await neighbour.gql('{ getTag(id: "' + theirs + '") { name } }')).body).toEqual({ data: { getTag: { name: 'theirs' } } });
  });

  it.each([
    ['admin only by default', 'adminOnly', [['anonymous', 'FORBIDDEN'], ['alice', 'FORBIDDEN'], ['bob', 'FORBIDDEN'], ['admin', null]]],
    ['AUTHENTICATED', 'count', [['anonymous', 'FORBIDDEN'], ['alice', null], ['admin', null]]],
    ['ROLE Editors', 'editorsOnly', [['anonymous', 'FORBIDDEN'], ['alice', 'FORBIDDEN'], ['bob', null], ['admin', null]]],
  ] as const)('%s: who may call, and a refused caller never reaches the endpoint', async (_rule, field, cases) => {
    endpoint.handlers.set(field, () => ({ json: { data: field === 'count' ? 3 : 'yes' } }));
    for (const [who, code] of cases) {
      const before = endpoint.callsOf(field).length;
      const headers = who === 'anonymous' ? anonymous : who === 'admin' ? undefined : asUser(who);
      const reply = await app.gql(`{ ${field} }`, {}, headers);
      if (code === null) {
        expect(reply.body.errors, `${who} on ${field}`).toBeUndefined();
        expect(endpoint.callsOf(field).length).toBe(before + 1);
      } else {
        expect(codes(reply.body), `${who} on ${field}`).toEqual([code]);
        expect(reply.body.errors[0].path).toEqual([field]);
        expect(endpoint.callsOf(field).length).toBe(before);
      }
    }
  });

  it('lets a member of the built-in admin role call an admin-only field', async () => {
    const adminRole = (await app.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { edges { node { id } } } } }')).viewer.allRoles.edges[0].node.id;
    await app.data('mutation($u: ID!, $r: ID!) { addToUserRolesConnection(input: { userId: $u, roleId: $r }) { clientMutationId } }', { u: users.eve!.id, r: adminRole });
    endpoint.handlers.set('adminOnly', () => ({ json: { data: 'ok' } }));
    expect((await app.gql('{ adminOnly }', {}, asUser('eve'))).body).toEqual({ data: { adminOnly: 'ok' } });
    await app.data('mutation($u: ID!, $r: ID!) { removeFromUserRolesConnection(input: { userId: $u, roleId: $r }) { clientMutationId } }', { u: users.eve!.id, r: adminRole });
    expect(codes((await app.gql('{ adminOnly }', {}, asUser('eve'))).body)).toEqual(['FORBIDDEN']);
  });

  it.each([
    ['a value of the wrong type', 'count', { json: { data: 'three' } }],
    ['null for a non-null result', 'count', { json: { data: null } }],
    ['an Int out of range', 'count', { json: { data: 2 ** 31 } }],
    ['a number with a fraction for an Int', 'count', { json: { data: 1.5 } }],
    ['no data', 'count', { json: { result: 3 } }],
    ['an error', 'count', { json: { error: { message: 'market closed' } } }],
    ['a JSON list instead of an object', 'count', { json: [3] }],
    ['text that is not JSON', 'count', { text: 'three', contentType: 'text/plain' }],
    ['JSON that does not parse', 'count', { text: '{"data":', contentType: 'application/json' }],
    ['a 500', 'count', { status: 500, json: { data: 3 } }],
    ['a 404', 'count', { status: 404, json: { data: 3 } }],
    ['a value not of the enum', 'side', { json: { data: 'HOLD' } }],
    ['a null item in a list of non-null items', 'sides', { json: { data: ['BUY', null] } }],
    ['an object for a list', 'sides', { json: { data: { 0: 'BUY' } } }],
    ['a DateTime that is none', 'when', { json: { data: 'yesterday' } }],
    ['an embedded object missing a required field', 'quote', { json: { data: { side: 'BUY' } } }],
    ['an embedded object with an unknown field', 'quote', { json: { data: { symbol: 'A', volume: 3 } } }],
    ['a String holding NUL', 'quote', { json: { data: { symbol: 'a\u0000b' } } }],
    ['a String too long', 'quote', { json: { data: { symbol: 'x'.repeat(10_001) } } }],
    ['a nested embedded value of the wrong type', 'quote', { json: { data: { symbol: 'A', price: { amount: 'cheap' } } } }],
    ['an id of another type', 'post', { json: { data: { id: 'VGFnOjAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMA' } } }],
    ['an id that is garbage', 'post', { json: { data: { id: 'not an id' } } }],
    ['a bare id string for a @model result', 'post', { json: { data: 'abc' } }],
    ['a whole object for a @model result', 'post', { json: { data: { id: 'x', title: 'y' } } }],
  ] as const)('answers FUNCTION_FAILED for %s', async (_what, field, answer) => {
    endpoint.handlers.set(field, () => answer as never);
    const selection = field === 'quote' ? '{ symbol }' : field === 'post' ? '{ id }' : '';
    const args = field === 'quote' ? '(symbol: "A")' : '';
    const reply = await app.gql(`{ ${field}${args} ${selection} other: side }`, {}, asUser('alice'));
    expect(codes(reply.body)).toContain('FUNCTION_FAILED');
    const error = reply.body.errors.find((e: Json) => e.extensions.code === 'FUNCTION_FAILED');
    expect(error.path).toEqual([field]);
    expect(error.message).not.toMatch(/tfs_|psst|market closed.*market closed/);
    expect(reply.status).toBe(200);
    // A non-null root field that fails takes the whole data with it.
    if (field === 'count' || field === 'sides') expect(reply.body.data).toBeNull();
    else expect(reply.body.data[field]).toBeNull();
  });

  it('says why a function answered an error, without its secret or body', async () => {
    endpoint.handlers.set('side', () => ({ json: { error: { message: 'market closed' } } }));
    const reply = await app.gql('{ side }', {}, anonymous);
    expect(reply.body.errors[0]).toMatchObject({ path: ['side'], extensions: { code: 'FUNCTION_FAILED' } });
    expect(reply.body.errors[0].message).toContain('market closed');
    endpoint.handlers.set('side', () => ({ status: 503, json: { data: 'BUY', detail: 'internal-detail-93' } }));
    const failed = await app.gql('{ side }', {}, anonymous);
    expect(failed.body.errors[0].message).toContain('503');
    expect(JSON.stringify(failed.body)).not.toContain('internal-detail-93');
    expect(JSON.stringify(server.logs)).not.toContain('internal-detail-93');
  });

  it('counts resolver calls in /metrics and logs failures without secrets or bodies', async () => {
    endpoint.handlers.set('side', () => ({ json: { data: 'BUY' } }));
    await app.gql('{ side }', {}, anonymous);
    endpoint.handlers.set('side', () => ({ status: 500, json: { data: 'resolver-body-5c1' } }));
    await app.gql('{ side }', {}, anonymous);
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    const ok = new RegExp(`tessera_function_calls_total\\{app="${app.id}",function="r",kind="RESOLVER",outcome="ok"\\} (\\d+)`).exec(metrics);
    expect(Number(ok?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(new RegExp(`tessera_function_calls_total\\{app="${app.id}",function="r",kind="RESOLVER",outcome="status"\\} \\d+`));
    const failures = server.logs.filter((l) => l.msg === 'a resolver call failed');
    expect(failures.at(-1)).toMatchObject({ appId: app.id, function: 'r', operation: 'side', failure: 'status', status: 500 });
    const all = JSON.stringify(server.logs);
    expect(all).not.toContain(endpoint.secret);
    expect(all).not.toContain('resolver-body-5c1');
  });

  it('fails a call that outlasts the function’s timeout', async () => {
    endpoint.handlers.set('slow', () => ({ json: { data: 1 }, delayMs: 1_000 }));
    endpoint.handlers.set('side', () => ({ json: { data: 'BUY' } }));
    const reply = await app.gql('{ slow side }', {}, anonymous);
    expect(codes(reply.body)).toEqual(['FUNCTION_FAILED']);
    expect(reply.body.errors[0].path).toEqual(['slow']);
    expect(reply.body.errors[0].message).toMatch(/within 200 ms/);
    expect(reply.body.data).toEqual({ slow: null, side: 'BUY' });
  });

  it('runs a Mutation field, reads its @model result under the caller’s rules', async () => {
    endpoint.handlers.set('publish', (body) => ({ json: { data: { id: body.arguments.postId } } }));
    const reply = await app.gql('mutation($p: ID!) { publish(postId: $p, note: "now") { id title } }', { p: alicePost }, asUser('alice'));
    expect(reply.body).toEqual({ data: { publish: { id: alicePost, title: 'Alice writes' } } });
    const call = endpoint.callsOf('publish').at(-1)!;
    expect(call.body.arguments).toEqual({ postId: alicePost, note: 'now' });
    expect(call.body.caller).toEqual({ userId: users.alice!.id, admin: false });
    expect((await app.gql('mutation($p: ID!) { publish(postId: $p) { title } }', { p: alicePost }, asUser('bob'))).body).toEqual({ data: { publish: null } });
    const before = endpoint.callsOf('publish').length;
    expect(codes((await app.gql('mutation($p: ID!) { publish(postId: $p) { title } }', { p: alicePost }, anonymous)).body)).toEqual(['FORBIDDEN']);
    expect(codes((await app.gql('mutation { purge }', {}, asUser('alice'))).body)).toEqual(['FORBIDDEN']);
    expect(endpoint.callsOf('publish').length).toBe(before);
    expect(endpoint.callsOf('purge')).toEqual([]);
  });

  it('runs Mutation fields one after the other, in order, beside generated mutations', async () => {
    endpoint.handlers.set('step', (body) => ({ json: { data: body.arguments.n * 10 }, delayMs: body.arguments.n === 1 ? 300 : 0 }));
    const start = endpoint.timeline.length;
    const reply = await app.gql('mutation { a: step(n: 1) t: createTag(input: { name: "between" }) { changedTag { name } } b: step(n: 2) c: step(n: 3) }', {}, anonymous);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN'); // createTag: admin only
    expect(reply.body.data).toEqual({ a: 10, t: null, b: 20, c: 30 });
    // Only this test's calls: an earlier test's `slow` call (held 1 s, past its timeout) may end meanwhile.
    expect(endpoint.timeline.slice(start).filter((entry) => entry.endsWith(':step'))).toEqual(['start:step', 'end:step', 'start:step', 'end:step', 'start:step', 'end:step']);
    expect(endpoint.callsOf('step').slice(-3).map((c) => c.body.arguments.n)).toEqual([1, 2, 3]);
  });

  it('runs Query fields concurrently with the other root fields', async () => {
    endpoint.handlers.set('side', () => ({ json: { data: 'BUY' }, delayMs: 300 }));
    endpoint.handlers.set('when', () => ({ json: { data: '2020' } }));
    const start = endpoint.timeline.length;
    const reply = await app.gql(`query($id: ID!) { side when getPost(id: $id) { title } }`, { id: alicePost }, asUser('alice'));
    expect(reply.body).toEqual({ data: { side: 'BUY', when: '2020-01-01T00:00:00.000Z', getPost: { title: 'Alice writes' } } });
    // Both calls started before the slow one answered.
    expect(endpoint.timeline.slice(start, start + 2).sort()).toEqual(['start:side', 'start:when']);
  });

  it('fails a field whose function is disabled; a function the schema names cannot be deleted', async () => {
    const update = await admin(server, 'mutation($i: UpdateFunctionInput!) { updateFunction(input: $i) { function { enabled } } }', { i: { appId: app.id, name: 'slow', enabled: false } });
    expect(update.body.errors).toBeUndefined();
    const before = endpoint.callsOf('slow').length;
    const reply = await app.gql('{ slow }', {}, anonymous);
    expect(codes(reply.body)).toEqual(['FUNCTION_FAILED']);
    expect(reply.body.errors[0].message).toMatch(/disabled/);
    // A function the live schema names cannot be deleted: the field would be left answered by nothing.
    const DELETE = 'mutation($i: DeleteFunctionInput!) { deleteFunction(input: $i) { deleted } }';
    const refused = await admin(server, DELETE, { i: { appId: app.id, name: 'slow' } });
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'name' } });
    expect(refused.body.errors[0].message).toMatch(/Query\.slow/);
    // Once a schema without the field is pushed, it can go; the old schema cannot come back without it.
    const withoutSlow = BASE_SCHEMA + CUSTOM_FIELDS.replace(/^.*@function\(name: "slow"\).*$/m, '');
    expect((await admin(server, MIGRATE, { i: { appId: app.id, schema: withoutSlow } })).body.errors).toBeUndefined();
    expect((await admin(server, DELETE, { i: { appId: app.id, name: 'slow' } })).body.data.deleteFunction.deleted).toBe(true);
    const gone = await app.gql('{ slow }', {}, anonymous);
    expect(codes(gone.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(endpoint.callsOf('slow').length).toBe(before);
    const pushed = await admin(server, MIGRATE, { i: { appId: app.id, schema: BASE_SCHEMA + CUSTOM_FIELDS } });
    expect(codeOf(pushed.body)).toBe('SCHEMA_INVALID');
  });
});

describe.each(STORE_KINDS)('pushing custom fields (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;
  let endpoint: ResolverEndpoint;

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    endpoint = await ResolverEndpoint.start();
    app = await createTestApp(server, BASE_SCHEMA);
    other = await createTestApp(server, BASE_SCHEMA);
    await createResolver(server, app.id, endpoint, 'quotes');
    const event = await admin(server, CREATE, { i: { appId: app.id, name: 'audit', kind: 'EVENT', url: endpoint.url(), operations: ['createPost'] } });
    expect(event.body.errors).toBeUndefined();
    await createResolver(server, other.id, endpoint, 'elsewhere');
  });
  afterAll(async () => {
    await server?.close();
    await endpoint?.close();
  });

  const push = async (extension: string, appId = app.id) => (await admin(server, MIGRATE, { i: { appId, schema: BASE_SCHEMA + extension } })).body;
  const problems = (body: Json) => body.errors[0].extensions.problems as { message: string; line: number; column: number }[];
  const baseLines = BASE_SCHEMA.split('\n').length;

  it.each([
    ['no such function', 'extend type Query {\n  q: Int @function(name: "nothing")\n}', 2, 26, /names no RESOLVER function/],
    ['an EVENT function', 'extend type Query {\n  q: Int @function(name: "audit")\n}', 2, 26, /names no RESOLVER function/],
    ['another app’s function', 'extend type Query {\n  q: Int @function(name: "elsewhere")\n}', 2, 26, /names no RESOLVER function/],
    ['a field without @function', 'extend type Query {\n  q: Int\n}', 2, 3, /needs @function/],
    ['an unknown type', 'extend type Query {\n  q: Money @function(name: "quotes")\n}', 2, 6, /Unknown type Money/],
    ['a @model argument', 'extend type Query {\n  q(post: Post): Int @function(name: "quotes")\n}', 2, 11, /cannot be of the @model type Post/],
    ['a non-null @model result', 'extend type Mutation {\n  q: Post! @function(name: "quotes")\n}', 2, 6, /cannot be non-null/],
    ['a generated name', 'extend type Query {\n  getPost(id: ID!): Int @function(name: "quotes")\n}', 2, 3, /already a field of the generated API/],
    ['a generated mutation name', 'extend type Mutation {\n  loginUser: Int @function(name: "quotes")\n}', 2, 3, /already a field of the generated API/],
    ['a SELF rule', 'extend type Query {\n  q: Int @function(name: "quotes") @permission(scope: SELF, read: true)\n}', 2, 55, /scope SELF/],
    ['update on a Mutation field', 'extend type Mutation {\n  q: Int @function(name: "quotes") @permission(scope: EVERYONE, update: true)\n}', 2, 36, /grants nothing/],
    ['extend type Subscription', 'extend type Subscription {\n  q: Int\n}', 1, 13, /subscriptions are generated/],
  ])('refuses %s with SCHEMA_INVALID at its line and column', async (_what, extension, line, column, message) => {
    const body = await push(extension);
    expect(codeOf(body)).toBe('SCHEMA_INVALID');
    expect(problems(body)).toContainEqual({ message: expect.stringMatching(message), line: baseLines - 1 + line, column });
  });

  it('accepts the app’s own RESOLVER function, and a change of the field makes a new version', async () => {
    const first = await push('extend type Query { quote(symbol: String!): Quote @function(name: "quotes") }');
    expect(first.errors).toBeUndefined();
    expect(first.data.migrateSchema.plan).toEqual([{ kind: 'addCustomField', description: 'Add field Query.quote (function quotes)', destructive: false }]);
    const second = await push('extend type Query { quote(symbol: String!): Quote @function(name: "quotes") @permission(scope: EVERYONE, read: true) }');
    expect(second.data.migrateSchema).toMatchObject({ applied: true, version: first.data.migrateSchema.version + 1 });
    expect(second.data.migrateSchema.plan.map((s: Json) => s.kind)).toEqual(['alterCustomField']);
    // One app's function name is no other app's.
    expect(codeOf(await push('extend type Query { quote: Int @function(name: "quotes") }', other.id))).toBe('SCHEMA_INVALID');
  });

  it('refuses a schema with custom fields when the app is created (it has no function yet)', async () => {
    const created = await admin(server, 'mutation($i: CreateAppInput!) { createApp(input: $i) { app { id } } }', { i: { name: 'withfields', schema: `${BASE_SCHEMA}extend type Query { q: Int @function(name: "quotes") }` } });
    expect(codeOf(created.body)).toBe('SCHEMA_INVALID');
  });
});

describe.each(STORE_KINDS)('RESOLVER calls without TESSERA_FUNCTIONS_ALLOW_PRIVATE (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let endpoint: ResolverEndpoint;

  beforeAll(async () => {
    server = await startFunctionsServer(kind, { allowPrivate: false });
    endpoint = await ResolverEndpoint.start();
    app = await createTestApp(server, BASE_SCHEMA);
    // `localhost` is a name: stored, then refused at each call on the address it resolves to.
    const created = await admin(server, CREATE, { i: { appId: app.id, name: 'r', kind: 'RESOLVER', url: endpoint.url('localhost') } });
    expect(created.body.errors).toBeUndefined();
    await app.migrate(`${BASE_SCHEMA}extend type Query { side: Side @function(name: "r") @permission(scope: EVERYONE, read: true) }`);
  });
  afterAll(async () => {
    await server?.close();
    await endpoint?.close();
  });

  it('answers FUNCTION_FAILED and never reaches the private address', async () => {
    endpoint.handlers.set('side', () => ({ json: { data: 'BUY' } }));
    const reply = await app.gql('{ side }', {}, {});
    expect(codes(reply.body)).toEqual(['FUNCTION_FAILED']);
    expect(reply.body.errors[0].message).toMatch(/address is refused/);
    expect(reply.body.errors[0].message).not.toContain('127.0.0.1');
    expect(endpoint.calls).toEqual([]);
  });
});
