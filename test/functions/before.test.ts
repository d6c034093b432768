// BEFORE functions through the real server on both stores, with a real endpoint of the app's
// own (a node:http server checking each call's signature): every outcome of a hook — passed,
// input replaced, refused, failed, timed out, unreadable — their order, nested creates, edge
// mutations, and a replaced input checked again against the input type, the limits and the
// permission rules. Nothing is written when a hook refuses or fails.

import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/functions/index.js';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { STORE_KINDS, admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { sleep } from '../helpers/wait.js';
import { CREATE, FUNCTION_FIELDS, startFunctionsServer } from './harness.js';

const SCHEMA = `
type Author @model @permission(scope: AUTHENTICATED, read: true, create: true) {
  name: String!
  posts: [Post] @relation(name: "AuthorPosts")
}
type Post @model @permission(scope: AUTHENTICATED, read: true, create: true, update: true) {
  title: String!
  rating: Int
  featured: Boolean @permission(scope: ROLE, roles: ["editors"], create: true, update: true)
  author: Author @relation(name: "AuthorPosts")
  tags: [Tag] @relation(name: "PostTags")
}
type Tag @model @permission(scope: AUTHENTICATED, read: true, create: true) {
  name: String!
  posts: [Post] @relation(name: "PostTags")
}
`;

interface Call {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
  verified: boolean;
}

/** What the endpoint answers a call with. */
type Answer = { status?: number; json?: unknown; text?: string; delayMs?: number };

/** An app's endpoint for its BEFORE functions: `answer` decides each reply; every call is kept. */
class Endpoint {
  readonly calls: Call[] = [];
  answer: (body: Json) => Answer = () => ({ json: {} });
  secrets = new Map<string, string>();
  #server: Server | undefined;

  static async start(): Promise<Endpoint> {
    const endpoint = new Endpoint();
    endpoint.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as Json;
        const secret = endpoint.secrets.get(body.function) ?? '';
        endpoint.calls.push({ headers: request.headers, raw, body, verified: verifySignature(secret, request.headers['tessera-signature'] as string, raw, 300) });
        const answer = endpoint.answer(body);
        if (answer.delayMs) await sleep(answer.delayMs);
        if (response.destroyed) return;
        const text = answer.text ?? JSON.stringify(answer.json ?? {});
        response.writeHead(answer.status ?? 200, { 'content-type': answer.text === undefined ? 'application/json' : 'text/plain' }).end(text);
      });
    });
    await new Promise<void>((resolve) => endpoint.#server?.listen(0, '127.0.0.1', () => resolve()));
    return endpoint;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.#server?.address() as AddressInfo).port}/${path}`;
  }

  reset(): void {
    this.calls.length = 0;
    this.answer = () => ({ json: {} });
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

const code = (body: Json): string | undefined => body.errors?.[0]?.extensions?.code;

describe.each(STORE_KINDS)('BEFORE functions (%s)', (kind) => {
  let server: TestServer;
  let endpoint: Endpoint;
  let app: TestApp;
  let userToken: string;
  let userId: string;

  const hook = async (name: string, operations: string[], extra: Record<string, unknown> = {}) => {
    const reply = await admin(server, CREATE, { i: { appId: app.id, name, kind: 'BEFORE', url: endpoint.url(name), operations, ...extra } });
    if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
    endpoint.secrets.set(name, reply.body.data.createFunction.secret);
    return reply.body.data.createFunction.function;
  };
  const dropHooks = async () => {
    const listed = await admin(server, `query($id: ID!) { app(id: $id) { functions { ${FUNCTION_FIELDS} } } }`, { id: app.id });
    for (const fn of listed.body.data.app.functions as { name: string }[]) {
      await admin(server, 'mutation($i: DeleteFunctionInput!) { deleteFunction(input: $i) { deleted } }', { i: { appId: app.id, name: fn.name } });
    }
    endpoint.reset();
  };
  const asUser = (query: string, variables: Record<string, unknown> = {}) => app.gql(query, variables, { authorization: `Bearer ${userToken}` });
  const posts = async (): Promise<string[]> => (await app.data('{ viewer { allPosts(orderBy: { field: title, direction: ASC }) { edges { node { title } } } } }')).viewer.allPosts.edges.map((e: Json) => e.node.title);

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    endpoint = await Endpoint.start();
    app = await createTestApp(server, SCHEMA);
    const signUp = await app.gql('mutation { createUser(input: { username: "ada", password: "a long enough password" }) { token changedUser { id } } }', {}, {});
    userToken = signUp.body.data.createUser.token;
    userId = signUp.body.data.createUser.changedUser.id;
  });
  afterAll(async () => {
    await endpoint?.close();
    await server?.close();
  });

  it('calls the hook with a signed body before the write; an answer without input lets the input through', async () => {
    await hook('check', ['createPost']);
    const reply = await asUser('mutation { createPost(input: { title: "Hello", rating: 3 }) { changedPost { title rating } } }');
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.createPost.changedPost).toEqual({ title: 'Hello', rating: 3 });
    expect(endpoint.calls).toHaveLength(1);
    const [call] = endpoint.calls as [Call];
    expect(call.verified).toBe(true);
    expect(call.headers['tessera-event-id']).toBe(call.body.id);
    expect(call.body).toMatchObject({ app: app.id, function: 'check', operation: 'createPost', caller: { userId, admin: false }, input: { title: 'Hello', rating: 3 } });
    expect(Date.parse(call.body.createdAt)).not.toBeNaN();
    // A mutation the hook is not attached to calls nothing.
    await asUser('mutation { createTag(input: { name: "t" }) { changedTag { id } } }');
    expect(endpoint.calls).toHaveLength(1);
    await dropHooks();
  });

  it('writes the input a hook answers, and a later hook sees what the earlier one left', async () => {
    await hook('second', ['createPost'], { order: 2 });
    await hook('first', ['createPost'], { order: 1 });
    endpoint.answer = (body) => ({ json: { input: { ...body.input, title: `${body.input.title}-${body.function}` } } });
    const reply = await asUser('mutation { createPost(input: { title: "x" }) { changedPost { title } } }');
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.createPost.changedPost.title).toBe('x-first-second');
    expect(endpoint.calls.map((c) => [c.body.function, c.body.input.title])).toEqual([
      ['first', 'x'],
      ['second', 'x-first'],
    ]);
    await dropHooks();
  });

  it('refuses the mutation with REJECTED and the function’s message; nothing is written', async () => {
    await hook('policy', ['createPost', 'updatePost']);
    endpoint.answer = (body) => (body.input.title === 'SHOUTING' ? { json: { error: { message: 'Titles must not shout' } } } : { json: {} });
    const before = await posts();
    const refused = await asUser('mutation { createPost(input: { title: "SHOUTING" }) { changedPost { id } } }');
    expect(refused.body.data.createPost).toBeNull();
    expect(refused.body.errors[0]).toMatchObject({ message: 'Titles must not shout', path: ['createPost'], extensions: { code: 'REJECTED', function: 'policy', operation: 'createPost' } });
    expect(await posts()).toEqual(before);
    // Updates too, with the input they carry (the id included).
    const created = await asUser('mutation { createPost(input: { title: "calm" }) { changedPost { id } } }');
    const id = created.body.data.createPost.changedPost.id;
    const update = await asUser('mutation($id: ID!) { updatePost(input: { id: $id, title: "SHOUTING" }) { changedPost { id } } }', { id });
    expect(code(update.body)).toBe('REJECTED');
    expect(endpoint.calls.at(-1)?.body).toMatchObject({ operation: 'updatePost', input: { id, title: 'SHOUTING' } });
    expect((await app.data('query($id: ID!) { getPost(id: $id) { title } }', { id })).getPost.title).toBe('calm');
    await dropHooks();
  });

  it('fails the mutation with FUNCTION_FAILED when the call fails, times out or answers something unreadable; nothing is written', async () => {
    await hook('flaky', ['createPost'], { timeoutMs: 300 });
    const before = await posts();
    const cases: [Answer, RegExp][] = [
      [{ status: 500, json: { error: "boom" } }, /answered 500/],
      [{ delayMs: 1_000 }, /no complete answer within 300 ms/],
      [{ text: 'not json' }, /not a JSON object/],
      [{ json: [1, 2] }, /not a JSON object/],
      [{ json: { input: 'a string' } }, /"input" is not an object/],
      [{ json: { error: { reason: 'no message' } } }, /"error" has no "message"/],
    ];
    for (const [answer, why] of cases) {
      endpoint.answer = () => answer;
      const reply = await asUser('mutation { createPost(input: { title: "never written" }) { changedPost { id } } }');
      expect(reply.body.data.createPost, JSON.stringify(answer)).toBeNull();
      expect(reply.body.errors[0].extensions).toMatchObject({ code: 'FUNCTION_FAILED', function: 'flaky', operation: 'createPost' });
      expect(reply.body.errors[0].message).toMatch(why);
      expect(reply.body.errors[0].message).not.toContain(endpoint.secrets.get('flaky'));
    }
    expect(await posts()).toEqual(before);
    await dropHooks();
  });

  it('checks a replaced input again: its type, the limits and the permission rules', async () => {
    await hook('rewrite', ['createPost']);
    const before = await posts();
    // Not the input type: FUNCTION_FAILED naming where it does not fit.
    endpoint.answer = () => ({ json: { input: { title: 42, rating: 'high' } } });
    const badType = await asUser('mutation { createPost(input: { title: "typed" }) { changedPost { id } } }');
    expect(code(badType.body)).toBe('FUNCTION_FAILED');
    expect(badType.body.errors[0].message).toMatch(/input\.rating/);
    // Over a limit (String values: 10,000 characters): refused as a client's input would be.
    endpoint.answer = () => ({ json: { input: { title: 'x'.repeat(10_001) } } });
    expect(code((await asUser('mutation { createPost(input: { title: "long" }) { changedPost { id } } }')).body)).toBe('BAD_USER_INPUT');
    // A field the caller may not set (only editors may feature a post): FORBIDDEN, as if sent.
    endpoint.answer = (body) => ({ json: { input: { ...body.input, featured: true } } });
    expect(code((await asUser('mutation { createPost(input: { title: "featured?" }) { changedPost { id } } }')).body)).toBe('FORBIDDEN');
    expect(await posts()).toEqual(before);
    // An admin may: the same hook, the same answer, written.
    const asAdmin = await app.gql('mutation { createPost(input: { title: "featured!" }) { changedPost { title featured } } }');
    expect(asAdmin.body.data.createPost.changedPost).toEqual({ title: 'featured!', featured: true });
    expect(endpoint.calls.at(-1)?.body.caller).toEqual({ userId: null, admin: true });
    await dropHooks();
  });

  it('calls each nested create’s own hooks, outer first, and writes what they answer', async () => {
    await hook('authors', ['createAuthor']);
    await hook('posts', ['createPost']);
    endpoint.answer = (body) => (body.function === 'posts' ? { json: { input: { ...body.input, title: body.input.title.toUpperCase() } } } : { json: {} });
    const reply = await asUser('mutation { createAuthor(input: { name: "Grace", posts: [{ title: "one" }, { title: "two" }] }) { changedAuthor { name posts { edges { node { title } } } } } }');
    expect(reply.body.errors).toBeUndefined();
    const titles = reply.body.data.createAuthor.changedAuthor.posts.edges.map((e: Json) => e.node.title).sort();
    expect(titles).toEqual(['ONE', 'TWO']);
    expect(endpoint.calls.map((c) => [c.body.function, c.body.operation])).toEqual([
      ['authors', 'createAuthor'],
      ['posts', 'createPost'],
      ['posts', 'createPost'],
    ]);
    // The outer hook saw the nested objects as sent.
    expect(endpoint.calls[0]?.body.input.posts).toEqual([{ title: 'one' }, { title: 'two' }]);
    // A nested hook's refusal refuses the whole mutation: neither the author nor a post is written.
    endpoint.answer = (body) => (body.function === 'posts' && body.input.title === 'bad' ? { json: { error: { message: 'no bad posts' } } } : { json: {} });
    const refused = await asUser('mutation { createAuthor(input: { name: "Refused", posts: [{ title: "good" }, { title: "bad" }] }) { changedAuthor { id } } }');
    expect(code(refused.body)).toBe('REJECTED');
    const authors = await app.data('{ viewer { allAuthors { edges { node { name } } } } }');
    expect(authors.viewer.allAuthors.edges.map((e: Json) => e.node.name)).not.toContain('Refused');
    expect(await posts()).not.toContain('good');
    await dropHooks();
  });

  it('runs on edge mutations and deletes, and a disabled hook is not called', async () => {
    const post = (await asUser('mutation { createPost(input: { title: "edged" }) { changedPost { id } } }')).body.data.createPost.changedPost.id;
    const tag = (await asUser('mutation { createTag(input: { name: "t1" }) { changedTag { id } } }')).body.data.createTag.changedTag.id;
    await hook('edges', ['addToPostTagsConnection', 'deletePost']);
    endpoint.answer = () => ({ json: { error: { message: 'frozen' } } });
    const added = await app.gql('mutation($p: ID!, $t: ID!) { addToPostTagsConnection(input: { postId: $p, tagId: $t }) { clientMutationId } }', { p: post, t: tag });
    expect(code(added.body)).toBe('REJECTED');
    expect(endpoint.calls.at(-1)?.body.operation).toBe('addToPostTagsConnection');
    const deleted = await app.gql('mutation($id: ID!) { deletePost(input: { id: $id }) { changedPost { id } } }', { id: post });
    expect(code(deleted.body)).toBe('REJECTED');
    expect((await app.data('query($id: ID!) { getPost(id: $id) { tags { edges { node { id } } } } }', { id: post })).getPost.tags.edges).toEqual([]);
    await admin(server, 'mutation($i: UpdateFunctionInput!) { updateFunction(input: $i) { function { enabled } } }', { i: { appId: app.id, name: 'edges', enabled: false } });
    const calls = endpoint.calls.length;
    expect((await app.gql('mutation($id: ID!) { deletePost(input: { id: $id }) { changedPost { id } } }', { id: post })).body.errors).toBeUndefined();
    expect(endpoint.calls).toHaveLength(calls);
    await dropHooks();
  });

  it('never calls the endpoint for an anonymous caller the rules refuse whatever the row; sign-up still reaches its hook', async () => {
    await hook('guarded', ['createPost', 'addToPostTagsConnection', 'createUser']);
    const anonymous = await app.gql('mutation { createPost(input: { title: "anon" }) { changedPost { id } } }', {}, {});
    expect(code(anonymous.body)).toBe('FORBIDDEN');
    const edge = await app.gql('mutation($p: ID!, $t: ID!) { addToPostTagsConnection(input: { postId: $p, tagId: $t }) { clientMutationId } }', { p: 'UG9zdDox', t: 'VGFnOjE=' }, {});
    expect(code(edge.body)).toBe('FORBIDDEN');
    expect(endpoint.calls).toHaveLength(0);
    // Everyone may sign up (the built-in default): the hook hears it, without a caller.
    const signUp = await app.gql('mutation { createUser(input: { username: "bea", password: "another long password" }) { changedUser { username } } }', {}, {});
    expect(signUp.body.errors).toBeUndefined();
    expect(endpoint.calls.map((c) => [c.body.operation, c.body.caller])).toEqual([['createUser', { userId: null, admin: false }]]);
    // The password travels to the app's own endpoint as sent: it is the app's hook, over the URL the app chose.
    expect(endpoint.calls[0]?.body.input.username).toBe('bea');
    await dropHooks();
  });

  it('refuses a hook on a host that resolves to this machine when private addresses are not allowed', async () => {
    const closed = await startFunctionsServer(kind, { allowPrivate: false });
    try {
      const other = await createTestApp(closed, SCHEMA);
      const port = new URL(endpoint.url('x')).port;
      const created = await admin(closed, CREATE, { i: { appId: other.id, name: 'local', kind: 'BEFORE', url: `http://localhost:${port}/local`, operations: ['createTag'] } });
      expect(created.body.errors).toBeUndefined();
      const calls = endpoint.calls.length;
      const reply = await other.gql('mutation { createTag(input: { name: "ssrf" }) { changedTag { id } } }');
      expect(code(reply.body)).toBe('FUNCTION_FAILED');
      expect(endpoint.calls).toHaveLength(calls);
      expect((await other.data('{ viewer { allTags { edges { node { id } } } } }')).viewer.allTags.edges).toEqual([]);
    } finally {
      await closed.close();
    }
  });
});
