// Persisted queries and trusted documents through the real server on both stores: Apollo
// Client 4's persisted-query link (POST, and GET for hashed queries), the protocol as raw
// requests (unknown hash, wrong hash, registration, revalidated GET with ETag and 304), and an
// app's trusted documents pushed with `tessera documents push` and enforced over HTTP and
// WebSocket for users and admin tokens alike — never for the platform key or the management API.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { parse, print } from 'graphql';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { GraphQLResult, Json, TestApp } from '../api/harness.js';
import { runCli } from '../cli/run.js';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';

const SCHEMA = 'type Note @model @permission(scope: EVERYONE, read: true) { text: String }';
const NOTES = 'query Notes { viewer { allNotes(orderBy: { field: text }) { edges { node { text } } } } }';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const codes = (reply: GraphQLResult | { body: Json }) => (reply.body.errors ?? []).map((e: Json) => e.extensions?.code as string);

describe.each(STORE_KINDS)('persisted queries and trusted documents (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    app = await createTestApp(server, SCHEMA);
    await app.data('mutation { a: createNote(input: { text: "a" }) { clientMutationId } b: createNote(input: { text: "b" }) { clientMutationId } }');
    dir = mkdtempSync(join(tmpdir(), 'tessera-documents-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A request with `extensions.persistedQuery`, and the document when `withQuery`. */
  const persisted = (query: string, withQuery: boolean, headers: Record<string, string> = {}) =>
    fetch(app.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...(withQuery ? { query } : {}), extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } } }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));

  it('runs Apollo Client 4 with its persisted-query link, over POST and over GET for hashed queries', async () => {
    for (const useGETForHashedQueries of [false, true]) {
      const sent: { method: string; hasQuery: boolean }[] = [];
      const recording: typeof fetch = async (input, init) => {
        const url = new URL(String(input));
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Json) : undefined;
        sent.push({ method: init?.method ?? 'GET', hasQuery: body ? typeof body.query === 'string' : url.searchParams.has('query') });
        return fetch(input, init);
      };
      const apollo = new ApolloClient({
        link: new PersistedQueryLink({ sha256: async (q) => sha256(q), useGETForHashedQueries }).concat(new HttpLink({ uri: app.endpoint, fetch: recording })),
        cache: new InMemoryCache(),
      });
      const query = gql(NOTES.replace('Notes', `Notes${useGETForHashedQueries ? 'Get' : 'Post'}`));
      const first = await apollo.query({ query, fetchPolicy: 'network-only' });
      expect(first.data).toEqual({ viewer: { __typename: 'Viewer', allNotes: { __typename: 'NoteConnection', edges: [{ __typename: 'NoteEdge', node: { __typename: 'Note', text: 'a' } }, { __typename: 'NoteEdge', node: { __typename: 'Note', text: 'b' } }] } } });
      const second = await apollo.query({ query, fetchPolicy: 'network-only' });
      expect(second.data).toEqual(first.data);
      // Unknown hash, then the document with it, then the hash alone.
      expect(sent).toEqual([
        { method: useGETForHashedQueries ? 'GET' : 'POST', hasQuery: false },
        { method: 'POST', hasQuery: true },
        { method: useGETForHashedQueries ? 'GET' : 'POST', hasQuery: false },
      ]);
      apollo.stop();
    }
  });

  it('answers the protocol: unknown hash, a hash that does not match, registration, then the hash alone', async () => {
    const query = '{ viewer { allNotes { aggregations { count } } } }';
    const unknown = await persisted(query, false);
    expect(codes(unknown)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(unknown.body.errors[0].message).toBe('PersistedQueryNotFound');
    const wrong = await fetch(app.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(`${query} `) } } }),
    }).then(async (r) => (await r.json()) as Json);
    expect(codes({ body: wrong })).toEqual(['BAD_USER_INPUT']);
    expect((await persisted(query, true)).body.data.viewer.allNotes.aggregations.count).toBe(2);
    expect((await persisted(query, false)).body.data.viewer.allNotes.aggregations.count).toBe(2);
    const bad = await fetch(app.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ extensions: { persistedQuery: { version: 2, sha256Hash: 'x' } } }) });
    expect(bad.status).toBe(400);
  });

  it('answers a GET query with an ETag and Cache-Control: no-cache, and 304 to a client that has it', async () => {
    const url = `${app.endpoint}?query=${encodeURIComponent(NOTES)}`;
    const first = await fetch(url);
    const etag = first.headers.get('etag');
    expect(first.status).toBe(200);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.headers.get('vary')).toContain('Authorization');
    const again = await fetch(url, { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await app.data('mutation { createNote(input: { text: "c" }) { clientMutationId } }');
    const changed = await fetch(url, { headers: { 'if-none-match': etag as string } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('enforces trusted documents pushed with the CLI, for users and admin tokens, over HTTP and WebSocket; not for the platform key', async () => {
    const signUp = await app.data('mutation { createUser(input: { username: "trusty", password: "pw-123456" }) { token } }');
    const file = join(dir, 'operations.graphql');
    writeFileSync(file, `${NOTES}\nquery Count { viewer { ...Total } }\nfragment Total on Viewer { allNotes { aggregations { count } } }\nsubscription OnNote { subscribeToNote(mutations: [createNote]) { value { text } } }\n`);
    const pushed = await runCli(['documents', 'push', app.id, file, '--enforce', '--url', server.base, '--admin-key', server.key]);
    expect(pushed.stderr).toBe('');
    expect(pushed.stdout).toBe('3 trusted documents, enforced\n');
    const listed = await admin(server, 'query($id: ID!) { app(id: $id) { trustedDocuments { enforce count } } }', { id: app.id });
    expect(listed.body.data.app.trustedDocuments).toEqual({ enforce: true, count: 3 });
    const asUser = { authorization: `Bearer ${signUp.createUser.token}` };
    const asToken = { authorization: `Bearer ${app.token}` };
    // Each operation of the file is trusted as graphql-js prints it (with the fragments it uses),
    // the text clients such as Apollo send.
    const countDoc = `${print(parse('query Count { viewer { ...Total } }'))}\n\n${print(parse('fragment Total on Viewer { allNotes { aggregations { count } } }'))}`;
    // A trusted document runs, sent whole or by hash.
    expect(codes(await app.gql(print(parse(NOTES)), {}, asUser))).toEqual([]);
    expect((await persisted(countDoc, false, asToken)).body.data.viewer.allNotes.aggregations.count).toBe(3);
    // Anything else is refused, for a user and an admin token, registered or not.
    for (const headers of [asUser, asToken, {}]) {
      expect(codes(await app.gql('{ viewer { id } }', {}, headers))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
      expect(codes(await persisted('{ viewer { id } }', true, headers))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    }
    // The platform key (the operator, the console) is not bound by them, nor is the management API.
    expect(codes(await app.gql('{ viewer { id } }', {}, { authorization: `Bearer ${server.key}` }))).toEqual([]);
    expect((await admin(server, '{ apps { id } }')).body.errors).toBeUndefined();
    // Over WebSocket: the trusted subscription opens, another document is refused.
    const c = client(app.endpoint, app.token);
    const trustedSub = subscribe(c, 'subscription OnNote {\n  subscribeToNote(mutations: [createNote]) {\n    value {\n      text\n    }\n  }\n}');
    const other = subscribe(c, 'subscription { subscribeToNote(mutations: [deleteNote]) { mutation } }');
    await expect(other.take(1, 3_000)).rejects.toThrow(/PERSISTED_QUERY_NOT_FOUND|PersistedQueryNotFound/);
    // The trusted one is open on the server before the write it should hear of.
    await waitForSubscriptions(server.base, 1);
    await app.gql('mutation { createNote(input: { text: "d" }) { clientMutationId } }', {}, { authorization: `Bearer ${server.key}` });
    expect((await trustedSub.take(1))[0].data.subscribeToNote.value.text).toBe('d');
    await trustedSub.close();
    await c.dispose();
    // Turned off again: every document runs.
    const off = await runCli(['documents', 'push', app.id, file, '--url', server.base, '--admin-key', server.key]);
    expect(off.stdout).toBe('3 trusted documents (not enforced)\n');
    expect(codes(await app.gql('{ viewer { id } }', {}, asUser))).toEqual([]);
  });

  it('refuses a document that does not parse, naming it', async () => {
    const reply = await admin(server, 'mutation($i: SetTrustedDocumentsInput!) { setTrustedDocuments(input: $i) { count } }', { i: { appId: app.id, documents: ['{ ok }', '{ broken'], enforce: true } });
    expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(reply.body.errors[0].message).toContain('documents[1]');
  });
});
