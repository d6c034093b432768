// Apps of one model share their compiled query statements (compiled once in the model's shared
// context, each request binding its own app's schema, id and settings), on both stores. What
// must not cross from one app to another through a shared statement: rows, cursors (a cursor
// names its app, literal or variable, whichever app compiled the statement first), page limits
// (each app's own settings, literal page sizes and sizes written into the text included).

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { cachedPlans, executeOperation } from '../../src/compile/index.js';
import type { MutationPorts } from '../../src/compile/index.js';
import { DEFAULT_SETTINGS } from '../../src/model/index.js';
import { AppRegistry } from '../../src/server/appRegistry.js';
import type { LiveApp } from '../../src/server/appRegistry.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import { admin, startTestServer } from './harness.js';
import type { Json, TestServer } from './harness.js';

const NOTES = 'type Note @model { text: String! @index }';
const CREATE_NOTE = 'mutation($t: String!) { createNote(input: { text: $t }) { changedNote { id } } }';
const PAGE = 'query($after: String) { viewer { allNotes(first: 1, after: $after, orderBy: { field: text, direction: ASC }) { edges { cursor node { text } } pageInfo { hasNextPage endCursor } } } }';
const literalPage = (after: string) => `{ viewer { allNotes(first: 1, after: ${JSON.stringify(after)}, orderBy: { field: text, direction: ASC }) { edges { node { text } } } } }`;

const codeOf = (body: Json): string | undefined => body.errors?.[0]?.extensions?.code;
/** The app a cursor names (its signature's first part). */
const appOfCursor = (cursor: string): string => (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as string[])[0]!.split('/')[0]!;

describe.each(STORE_KINDS)('statements shared by the apps of one model (%s)', (kind) => {
  let server: TestServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    server = await startTestServer(kind);
    a = await createTestApp(server, NOTES);
    b = await createTestApp(server, NOTES);
    for (const t of ['a1', 'a2', 'a3']) await a.data(CREATE_NOTE, { t });
    for (const t of ['b1', 'b2']) await b.data(CREATE_NOTE, { t });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers each app from its own rows, with cursors naming it', async () => {
    const pageA = (await a.data(PAGE)).viewer.allNotes;
    const pageB = (await b.data(PAGE)).viewer.allNotes;
    expect(pageA.edges.map((e: Json) => e.node.text)).toEqual(['a1']);
    expect(pageB.edges.map((e: Json) => e.node.text)).toEqual(['b1']);
    expect(appOfCursor(pageA.edges[0].cursor)).toBe(a.id);
    expect(appOfCursor(pageA.pageInfo.endCursor)).toBe(a.id);
    expect(appOfCursor(pageB.edges[0].cursor)).toBe(b.id);
    const nextB = (await b.data(PAGE, { after: pageB.pageInfo.endCursor })).viewer.allNotes;
    expect(nextB.edges.map((e: Json) => e.node.text)).toEqual(['b2']);
    expect(nextB.pageInfo.hasNextPage).toBe(false);
  });

  it("refuses one app's cursor in another, as a variable or a literal, whichever app ran the document first", async () => {
    const cursorA = (await a.data(PAGE)).viewer.allNotes.pageInfo.endCursor as string;
    const cursorB = (await b.data(PAGE)).viewer.allNotes.pageInfo.endCursor as string;
    // A ran PAGE first; B's statement is A's.
    const asVariable = await b.gql(PAGE, { after: cursorA });
    expect(codeOf(asVariable.body)).toBe('BAD_USER_INPUT');
    expect(asVariable.body.data?.viewer?.allNotes ?? null).toBeNull();
    // The literal form: A compiles and runs it first, then B is given the same text.
    const literal = literalPage(cursorA);
    expect((await a.data(literal)).viewer.allNotes.edges.map((e: Json) => e.node.text)).toEqual(['a2']);
    const refused = await b.gql(literal);
    expect(codeOf(refused.body)).toBe('BAD_USER_INPUT');
    expect(refused.body.data?.viewer?.allNotes ?? null).toBeNull();
    // And the other way round: B's literal cursor, B first, then A.
    expect((await b.data(literalPage(cursorB))).viewer.allNotes.edges.map((e: Json) => e.node.text)).toEqual(['b2']);
    expect(codeOf((await a.gql(literalPage(cursorB))).body)).toBe('BAD_USER_INPUT');
  });

  it("bounds each app's pages by its own settings, literal page sizes included", async () => {
    const set = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: a.id, settings: { maxPageSize: 2, defaultPageSize: 2 } } });
    expect(set.body.errors, JSON.stringify(set.body.errors)).toBeUndefined();
    const three = '{ viewer { allNotes(first: 3) { edges { node { text } } } } }';
    // B runs it first (its limit is the default), then A, whose limit is 2, is refused.
    expect((await b.data(three)).viewer.allNotes.edges).toHaveLength(2);
    const refused = await a.gql(three);
    expect(codeOf(refused.body)).toBe('LIMIT_EXCEEDED');
    expect((await b.data(three)).viewer.allNotes.edges).toHaveLength(2);
    // A statement that compares no row with the size (its scan's count is then the bound size).
    const noRows = '{ viewer { allNotes(first: 3) { pageInfo { hasPreviousPage } } } }';
    expect((await b.data(noRows)).viewer.allNotes.pageInfo.hasPreviousPage).toBe(false);
    expect(codeOf((await a.gql(noRows)).body)).toBe('LIMIT_EXCEEDED');
    // A size from a variable is written into the statement's text, one statement per size:
    // each size answers its own count, and each app's bound still holds for each.
    const sized = 'query($n: Int) { viewer { allNotes(first: $n, orderBy: { field: text, direction: ASC }) { edges { node { text } } } } }';
    expect((await b.data(sized, { n: 3 })).viewer.allNotes.edges).toHaveLength(2);
    expect(codeOf((await a.gql(sized, { n: 3 })).body)).toBe('LIMIT_EXCEEDED');
    expect((await a.data(sized, { n: 1 })).viewer.allNotes.edges.map((e: Json) => e.node.text)).toEqual(['a1']);
    expect((await a.data(sized, { n: 2 })).viewer.allNotes.edges.map((e: Json) => e.node.text)).toEqual(['a1', 'a2']);
    expect((await b.data(sized, { n: 1 })).viewer.allNotes.edges.map((e: Json) => e.node.text)).toEqual(['b1']);
    const reset = await admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId: a.id, settings: { maxPageSize: DEFAULT_SETTINGS.maxPageSize, defaultPageSize: DEFAULT_SETTINGS.defaultPageSize } } });
    expect(reset.body.errors).toBeUndefined();
    expect((await a.data(three)).viewer.allNotes.edges).toHaveLength(3);
  });

  it('keeps apart the statements of apps whose default page sizes differ (a page without a size scans as many rows)', async () => {
    const settings = (appId: string, defaultPageSize: number) =>
      admin(server, 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }', { i: { appId, settings: { defaultPageSize } } });
    expect((await settings(a.id, 2)).body.errors).toBeUndefined();
    // No size given: each app's default, written into the statement as its scan's row count.
    const unsized = '{ viewer { allNotes(orderBy: { field: text, direction: ASC }) { edges { node { text } } pageInfo { hasNextPage } } } }';
    const pageA = (await a.data(unsized)).viewer.allNotes;
    expect(pageA.edges.map((e: Json) => e.node.text)).toEqual(['a1', 'a2']);
    expect(pageA.pageInfo.hasNextPage).toBe(true);
    // B, at the default of 100, must not scan as few rows as A's statement does.
    for (const t of ['b3', 'b4']) await b.data(CREATE_NOTE, { t });
    const pageB = (await b.data(unsized)).viewer.allNotes;
    expect(pageB.edges.map((e: Json) => e.node.text)).toEqual(['b1', 'b2', 'b3', 'b4']);
    expect(pageB.pageInfo.hasNextPage).toBe(false);
    expect((await settings(a.id, DEFAULT_SETTINGS.defaultPageSize)).body.errors).toBeUndefined();
    expect((await a.data(unsized)).viewer.allNotes.edges.map((e: Json) => e.node.text)).toEqual(['a1', 'a2', 'a3']);
  });
});

describe.each(STORES)('one compiled statement for the apps of a model (%s)', (kind) => {
  let t: Awaited<ReturnType<typeof openTestStore>>;
  let registry: AppRegistry;
  const ports = { accounts: {}, events: {} } as unknown as MutationPorts;

  beforeAll(async () => {
    t = await openTestStore(kind);
    registry = new AppRegistry(t.store);
    await registry.start();
  });
  afterAll(async () => {
    await registry?.stop();
    await t?.close();
  });

  it('compiles a query once for two apps of one model, and runs it on each app’s tables', async () => {
    const service = createAdminService(t.store);
    const ids = [(await service.createApp({ name: 'one', schema: NOTES })).id, (await service.createApp({ name: 'two', schema: NOTES })).id];
    const apps = (await Promise.all(ids.map((id) => registry.get(id)))) as LiveApp[];
    expect(apps[0]!.shared).toBe(apps[1]!.shared);
    const run = (live: LiveApp, query: string, variables: Record<string, unknown> = {}) =>
      executeOperation({ app: live.context, shared: live.shared, store: live.store, ports, document: parse(query), query, variables, admin: true });
    for (const [i, live] of apps.entries()) {
      const created = await run(live, CREATE_NOTE, { t: `note of ${i}` });
      expect(created.errors).toEqual([]);
    }
    const read = '{ viewer { allNotes { edges { node { text } } } } }';
    const before = cachedPlans(apps[0]!.shared);
    const answers = await Promise.all(apps.map(async (live) => JSON.parse((await run(live, read)).data ?? 'null')));
    expect(answers.map((d) => d.viewer.allNotes.edges.map((e: Json) => e.node.text))).toEqual([['note of 0'], ['note of 1']]);
    expect(cachedPlans(apps[0]!.shared)).toBe(before + 1);
  });

  it('shares a sized page between apps whose default page sizes differ, and keeps an unsized one apart', async () => {
    const service = createAdminService(t.store);
    const ids = [(await service.createApp({ name: 'small', schema: NOTES })).id, (await service.createApp({ name: 'large', schema: NOTES })).id];
    await service.updateApp({ appId: ids[0]!, settings: { defaultPageSize: 1 } });
    const apps = (await Promise.all(ids.map((id) => registry.get(id)))) as LiveApp[];
    expect(apps[0]!.shared).toBe(apps[1]!.shared);
    expect(apps.map((live) => live.context.app.settings.defaultPageSize)).toEqual([1, DEFAULT_SETTINGS.defaultPageSize]);
    const run = async (live: LiveApp, query: string, variables: Record<string, unknown> = {}) => {
      const result = await executeOperation({ app: live.context, shared: live.shared, store: live.store, ports, document: parse(query), query, variables, admin: true });
      expect(result.errors).toEqual([]);
      return JSON.parse(result.data ?? 'null');
    };
    for (const live of apps) for (const text of ['x', 'y']) await run(live, CREATE_NOTE, { t: text });
    const texts = (data: Json) => data.viewer.allNotes.edges.map((e: Json) => e.node.text);
    // A size given: the text does not depend on the default, one plan serves both apps.
    const sized = '{ viewer { allNotes(first: 2, orderBy: { field: text, direction: ASC }) { edges { node { text } } } } }';
    let before = cachedPlans(apps[0]!.shared);
    for (const live of apps) expect(texts(await run(live, sized))).toEqual(['x', 'y']);
    expect(cachedPlans(apps[0]!.shared)).toBe(before + 1);
    // No size: each default is written into the text, a plan each.
    const unsized = '{ viewer { allNotes(orderBy: { field: text, direction: ASC }) { edges { node { text } } } } }';
    before = cachedPlans(apps[0]!.shared);
    expect(texts(await run(apps[0]!, unsized))).toEqual(['x']);
    expect(texts(await run(apps[1]!, unsized))).toEqual(['x', 'y']);
    expect(texts(await run(apps[0]!, unsized))).toEqual(['x']);
    expect(cachedPlans(apps[0]!.shared)).toBe(before + 2);
  });
});
