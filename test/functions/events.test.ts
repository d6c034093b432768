// EVENT functions end to end on both stores, against a real HTTP receiver that checks every
// call's signature: one event per write the API names — a create, each row of a nested create,
// an update (before and after), a delete, an edge added and removed — with the body's id equal
// to Tessera-Event-Id; the caller told; nothing for operations the function does not want, for
// a disabled function, or for a write that rolled back.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/functions/index.js';
import { sql } from '../../src/sql/index.js';
import { admin } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { sleep } from '../helpers/wait.js';
import { Receiver, SCHEMA, UPDATE, codeOf, createEventFunction, deliveries, startFunctionsServer, waitForDeliveries } from './harness.js';

const OPERATIONS = ['createAuthor', 'createPost', 'updatePost', 'deletePost', 'addToPostTagsConnection', 'removeFromPostTagsConnection'];

describe.each(STORE_KINDS)('EVENT functions (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startFunctionsServer(kind);
    app = await createTestApp(server, SCHEMA);
    receiver = await Receiver.start();
    await createEventFunction(server, app.id, receiver, OPERATIONS, 'hook', { headers: [{ name: 'X-Api-Key', value: 'endpoint-key-7f3a' }] });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.down();
  });

  /** The event arrived for the object with this id. */
  const eventFor = async (operation: string, match: (event: Json) => boolean): Promise<Json> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = receiver.bodies(operation).find((b) => match(b.event));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${operation} event; got ${JSON.stringify(receiver.bodies())}`);
      await sleep(20);
    }
  };

  it('posts a signed create event whose id is the Tessera-Event-Id, with the row as the API shows it', async () => {
    const data = await app.data('mutation { createPost(input: { title: "First", rating: 3, publishedAt: "2024-05-01T10:00:00Z" }) { changedPost { id createdAt } } }');
    const post = data.createPost.changedPost;
    const body = await eventFor('createPost', (e) => e.after?.id === post.id);
    const call = receiver.received.find((r) => r.body === body);
    expect(call?.verified).toBe(true);
    expect(call?.eventId).toBe(body.id);
    expect(call?.headers['x-api-key']).toBe('endpoint-key-7f3a');
    expect(call?.headers['content-type']).toBe('application/json');
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app: app.id,
      function: 'hook',
      operation: 'createPost',
      caller: { userId: null, admin: true },
      event: {
        operation: 'createPost',
        type: 'Post',
        before: null,
        after: { id: post.id, title: 'First', rating: 3, publishedAt: '2024-05-01T10:00:00.000Z', authorId: null, createdAt: post.createdAt, modifiedAt: post.createdAt },
        edge: null,
      },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    // A signature made with another secret, or over another body, does not verify.
    expect(verifySignature('tfs_not-the-secret', call?.headers['tessera-signature'] as string, call?.raw ?? '')).toBe(false);
    expect(verifySignature(receiver.secret, call?.headers['tessera-signature'] as string, `${call?.raw} `)).toBe(false);
    const listed = await waitForDeliveries(server, app.id, (list) => list.some((d) => d.id === body.id && d.status === 'DELIVERED'));
    expect(listed.find((d) => d.id === body.id)).toMatchObject({ operation: 'createPost', status: 'DELIVERED', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
  });

  it('tells of each row of a nested create under its type’s create mutation', async () => {
    const data = await app.data('mutation { createAuthor(input: { name: "Ann", posts: [{ title: "Nested one" }, { title: "Nested two" }] }) { changedAuthor { id posts { edges { node { id title } } } } } }');
    const author = data.createAuthor.changedAuthor;
    const authorEvent = await eventFor('createAuthor', (e) => e.after?.id === author.id);
    expect(authorEvent.event).toMatchObject({ type: 'Author', before: null, after: { id: author.id, name: 'Ann' } });
    for (const { node } of author.posts.edges) {
      const postEvent = await eventFor('createPost', (e) => e.after?.id === node.id);
      expect(postEvent.event).toMatchObject({ operation: 'createPost', type: 'Post', after: { title: node.title, authorId: author.id } });
    }
  });

  it('tells an update with the row before and after it', async () => {
    const created = await app.data('mutation { createPost(input: { title: "Draft", rating: 1 }) { changedPost { id } } }');
    const id = created.createPost.changedPost.id;
    await app.data('mutation($id: ID!) { updatePost(input: { id: $id, title: "Final", rating: 5 }) { changedPost { id } } }', { id });
    const body = await eventFor('updatePost', (e) => e.after?.id === id);
    expect(body.event.before).toMatchObject({ id, title: 'Draft', rating: 1 });
    expect(body.event.after).toMatchObject({ id, title: 'Final', rating: 5 });
    expect(receiver.received.find((r) => r.body === body)?.verified).toBe(true);
  });

  it('tells a delete with the row as it was and no row after', async () => {
    const created = await app.data('mutation { createPost(input: { title: "Doomed" }) { changedPost { id } } }');
    const id = created.createPost.changedPost.id;
    await app.data('mutation($id: ID!) { deletePost(input: { id: $id }) { changedPost { id } } }', { id });
    const body = await eventFor('deletePost', (e) => e.before?.id === id);
    expect(body.event).toMatchObject({ operation: 'deletePost', type: 'Post', before: { id, title: 'Doomed' }, after: null, edge: null });
  });

  it('tells an edge added and removed, with its two ends', async () => {
    const post = (await app.data('mutation { createPost(input: { title: "Tagged" }) { changedPost { id } } }')).createPost.changedPost.id;
    const tag = (await app.data('mutation { createTag(input: { name: "news" }) { changedTag { id } } }')).createTag.changedTag.id;
    await app.data('mutation($p: ID!, $t: ID!) { addToPostTagsConnection(input: { postId: $p, tagId: $t }) { changedPostTags { post { id } } } }', { p: post, t: tag });
    const added = await eventFor('addToPostTagsConnection', (e) => e.edge?.postId === post);
    expect(added.event).toMatchObject({ type: 'PostTags', before: null, after: { postId: post, tagId: tag }, edge: { relation: 'PostTags', postId: post, tagId: tag } });
    await app.data('mutation($p: ID!, $t: ID!) { removeFromPostTagsConnection(input: { postId: $p, tagId: $t }) { changedPostTags { post { id } } } }', { p: post, t: tag });
    const removed = await eventFor('removeFromPostTagsConnection', (e) => e.edge?.postId === post);
    expect(removed.event).toMatchObject({ before: { postId: post, tagId: tag }, after: null, edge: { postId: post, tagId: tag } });
    // createTag is not among the function's operations: no event for it.
    expect(receiver.bodies('createTag')).toEqual([]);
  });

  it('writes no event for a write that rolled back (a unique violation in a nested create)', async () => {
    await app.data('mutation { createPost(input: { title: "Taken" }) { changedPost { id } } }');
    const before = (await deliveries(server, app.id)).length;
    const failed = await app.gql('mutation { createAuthor(input: { name: "Rolled back", posts: [{ title: "Fresh" }, { title: "Taken" }] }) { changedAuthor { id } } }');
    expect(codeOf(failed.body)).toBe('CONFLICT');
    // The outbox row of the create that did commit (Taken) is there; the rolled-back mutation added none.
    const after = await deliveries(server, app.id);
    expect(after.length).toBe(before);
    const titles = (await server.store.query<{ t: string }>(sql`
      SELECT payload->'event'->'after'->>'title' AS t FROM tessera.function_deliveries WHERE app_id = ${app.id}`)).rows.map((r) => r.t);
    expect(titles).not.toContain('Fresh');
    expect(titles.filter((t) => t === 'Rolled back')).toEqual([]);
  });

  it('tells the calling user, by their id', async () => {
    const userApp = await createTestApp(server, SCHEMA);
    const userReceiver = await Receiver.start();
    try {
      // Everyone may sign up: createUser is the user's own mutation, with no admin token.
      await createEventFunction(server, userApp.id, userReceiver, ['createUser', 'updateUser']);
      const signUp = await userApp.gql('mutation { createUser(input: { username: "ada", password: "correct horse battery" }) { changedUser { id } token } }', {}, {});
      expect(signUp.body.errors).toBeUndefined();
      const { id } = signUp.body.data.createUser.changedUser;
      const token: string = signUp.body.data.createUser.token;
      await userApp.gql('mutation($id: ID!) { updateUser(input: { id: $id, username: "ada.l" }) { changedUser { id } } }', { id }, { authorization: `Bearer ${token}` });
      const [update] = await userReceiver.waitFor(1, 'updateUser');
      expect(update.caller).toEqual({ userId: id, admin: false });
      expect(update.event.after).toMatchObject({ id, username: 'ada.l' });
      // The password is write-only: never in an event.
      const [created] = await userReceiver.waitFor(1, 'createUser');
      expect(created.caller).toEqual({ userId: null, admin: false });
      expect(JSON.stringify(userReceiver.received.map((r) => r.raw))).not.toMatch(/password|correct horse/);
    } finally {
      await userReceiver.down();
    }
  });

  it('counts calls per function in /metrics and logs each delivery without its body, secret or header values', async () => {
    await app.data('mutation { createPost(input: { title: "Counted", rating: 42 }) { changedPost { id } } }');
    await eventFor('createPost', (e) => e.after?.title === 'Counted');
    await waitForDeliveries(server, app.id, (list) => list.every((d) => d.status === 'DELIVERED'));
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    const ok = new RegExp(`tessera_function_calls_total\\{app="${app.id}",function="hook",kind="EVENT",outcome="ok"\\} (\\d+)`).exec(metrics);
    expect(Number(ok?.[1])).toBeGreaterThanOrEqual(receiver.received.length);
    expect(metrics).toMatch(new RegExp(`tessera_function_call_duration_seconds_count\\{app="${app.id}",function="hook",kind="EVENT"\\}`));
    expect(metrics).toMatch(/^tessera_function_deliveries_pending \d+$/m);
    const lines = server.logs.filter((l) => l.msg === 'event delivered');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatchObject({ appId: app.id, function: 'hook', status: 200, origin: new URL(receiver.url).origin });
    const all = JSON.stringify(server.logs);
    expect(all).not.toContain(receiver.secret);
    expect(all).not.toContain('endpoint-key-7f3a');
    expect(all).not.toContain('Counted');
  });

  it('sends nothing for a disabled function, and again once it is enabled', async () => {
    const other = await createTestApp(server, SCHEMA);
    const quiet = await Receiver.start();
    try {
      await createEventFunction(server, other.id, quiet, ['createTag'], 'quiet', { enabled: false });
      await other.data('mutation { createTag(input: { name: "unheard" }) { changedTag { id } } }');
      expect(await deliveries(server, other.id, 'quiet')).toEqual([]);
      const enabled = await admin(server, UPDATE, { i: { appId: other.id, name: 'quiet', enabled: true } });
      expect(enabled.body.data.updateFunction.function.enabled).toBe(true);
      await other.data('mutation { createTag(input: { name: "heard" }) { changedTag { id } } }');
      const [body] = await quiet.waitFor(1);
      expect(body.event.after.name).toBe('heard');
      expect(quiet.received.length).toBe(1);
    } finally {
      await quiet.down();
    }
  });
});
