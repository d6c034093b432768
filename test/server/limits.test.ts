// Request limits of the data API: depth, aliases, directives, tokens, cost (page sizes
// multiply, variables read per request), input nesting, the introspection and suggestion
// switches. Each limit at its boundary, refused with LIMIT_EXCEEDED before any statement runs,
// and per-app settings changed through the management API in force on the next request.

import { Lexer, Source, TokenKind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSchema } from '../../src/graphql/index.js';
import { DEFAULT_SETTINGS, parseSchema } from '../../src/model/index.js';
import { MAX_VALUE_DEPTH, nestsDeeperThan, operationCost, withoutSuggestions } from '../../src/server/limits/index.js';
import { createTestApp } from '../api/harness.js';
import type { GraphQLResult, TestApp } from '../api/harness.js';
import { STORE_KINDS, admin, startCountingServer } from './harness.js';
import type { Json, TestServer } from './harness.js';

const SCHEMA = `
type Post @model {
  title: String
  data: JSON
  comments: [Comment] @relation(name: "PostComments")
}
type Comment @model { text: String post: Post @relation(name: "PostComments") }
`;


const UPDATE = 'mutation($i: UpdateAppInput!) { updateApp(input: $i) { app { id } } }';

function codeOf(reply: GraphQLResult): string | undefined {
  return reply.body.errors?.[0]?.extensions?.code;
}

/** A document of exactly `depth` levels of selections, going round Comment.post / Post.comments. */
function deepQuery(depth: number): string {
  const cycle = ['post', 'comments(first: 1)', 'edges', 'node'];
  const path = ['viewer', 'allComments(first: 1)', 'edges', 'node'];
  while (path.length < depth - 1) path.push(cycle[(path.length - 4) % cycle.length] as string);
  const fields = path.slice(0, depth - 1);
  return `{ ${fields.map((f) => `${f} { `).join('')}__typename${' }'.repeat(fields.length)} }`;
}

function tokenCount(document: string): number {
  const lexer = new Lexer(new Source(document));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  return count;
}

/** A cheap valid query of exactly `tokens` tokens: one connection filtered by a long `in` list. */
function queryOfTokens(tokens: number): string {
  const make = (n: number) => `{ viewer { allPosts(first: 1, where: { title: { in: [${'"a" '.repeat(n)}] } }) { aggregations { count } } } }`;
  const n = tokens - tokenCount(make(0));
  const query = make(n);
  expect(tokenCount(query)).toBe(tokens);
  return query;
}

function nestedList(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('the cost model', () => {
  const schema = appSchema('costmodel001', 1, parseSchema(SCHEMA));
  const cost = (query: string, variables?: Record<string, unknown>, defaultPageSize = 100) => {
    const document = parse(query);
    const operation = document.definitions.find((d) => d.kind === 'OperationDefinition');
    if (!operation || operation.kind !== 'OperationDefinition') throw new Error('no operation');
    return operationCost({ schema, document, operation, variables, defaultPageSize });
  };

  it('counts the objects a query can return: 1 per model object, scalars and wrappers free', () => {
    expect(cost('{ __typename }')).toBe(0);
    expect(cost('{ viewer { id } }')).toBe(0);
    expect(cost('query($id: ID!) { getPost(id: $id) { id title } }')).toBe(1);
    expect(cost('query($id: ID!) { getComment(id: $id) { text post { title } } }')).toBe(2);
    expect(cost('{ viewer { user { id } } }')).toBe(1);
  });

  it('counts a connection 1 per item of its page, pageInfo and aggregations not at all', () => {
    expect(cost('{ viewer { allPosts(first: 10) { edges { node { title } } } } }')).toBe(10);
    expect(cost('{ viewer { allPosts(last: 10) { edges { cursor } } } }')).toBe(10);
    expect(cost('{ viewer { allPosts(first: 10) { pageInfo { hasNextPage } aggregations { count } } } }')).toBe(0);
    // A singular relation of each item is another object per item.
    expect(cost('{ viewer { allComments(first: 10) { edges { node { post { title } } } } } }')).toBe(10 * 2);
  });

  it('multiplies nested page sizes', () => {
    const query = '{ viewer { allPosts(first: 10) { edges { node { comments(first: 20) { edges { node { text } } } } } } } }';
    // 10 posts × (the post + 20 comments)
    expect(cost(query)).toBe(10 * (1 + 20));
    // The example of docs/security.md.
    expect(cost('{ viewer { allPosts(first: 10) { edges { node { title comments(first: 20) { edges { node { text } } } } } } } }')).toBe(210);
  });

  it('takes the default page size when neither first nor last is given', () => {
    expect(cost('{ viewer { allPosts { edges { node { title } } } } }')).toBe(100);
    expect(cost('{ viewer { allPosts { edges { node { title } } } } }', {}, 7)).toBe(7);
    // Three connections nested at the default size: a million objects.
    expect(cost('{ viewer { allPosts { edges { node { comments { edges { node { post { comments { edges { node { text } } } } } } } } } } } }')).toBe(100 * (1 + 100 * (2 + 100)));
  });

  it('reads first and last from the variables, or their defaults', () => {
    const query = 'query($n: Int, $m: Int = 4) { viewer { allPosts(first: $n) { edges { node { comments(last: $m) { edges { node { text } } } } } } } }';
    expect(cost(query, { n: 5, m: 6 })).toBe(5 * (1 + 6));
    expect(cost(query, { n: 5 })).toBe(5 * (1 + 4));
    expect(cost(query, {})).toBe(100 * (1 + 4));
    expect(cost(query, { n: 5, m: null })).toBe(5 * (1 + 100));
  });

  it('costs the same operation again for each request whose variables or settings could change it', () => {
    // One parsed document, as the document cache hands it to request after request.
    const costOf = (query: string) => {
      const document = parse(query);
      const operation = document.definitions[0];
      if (operation?.kind !== 'OperationDefinition') throw new Error('no operation');
      return (variables: Record<string, unknown>, defaultPageSize = 100, on = schema) => operationCost({ schema: on, document, operation, variables, defaultPageSize });
    };
    const byVariable = costOf('query($n: Int) { viewer { allPosts(first: $n) { edges { node { title } } } } }');
    expect(byVariable({ n: 5 })).toBe(5);
    expect(byVariable({ n: 50_000 })).toBe(50_000);
    expect(byVariable({})).toBe(100);
    const inList = costOf('query($n: Int) { viewer { allPosts(first: 3, last: $n) { edges { node { title } } } } }');
    expect(inList({ n: 1 })).toBe(3);
    expect(inList({ n: 9 })).toBe(9);
    const fixed = costOf('{ viewer { allPosts { edges { node { title } } } } }');
    expect(fixed({})).toBe(100);
    expect(fixed({}, 7)).toBe(7);
    expect(fixed({})).toBe(100);
    const other = appSchema('costmodel003', 1, parseSchema(SCHEMA));
    expect(fixed({}, 100, other)).toBe(100);
    expect(fixed({}, 9, other)).toBe(9);
  });

  it('counts a page of 0 like a page of 1 (pageInfo and aggregations are still answered)', () => {
    expect(cost('{ viewer { allPosts(first: 0) { edges { node { title } } } } }')).toBe(1);
  });

  it('counts fragments where they are spread, with the page size around them', () => {
    const query = `{ viewer { allPosts(first: 10) { ...Page } } }
      fragment Page on PostConnection { edges { ...Item } }
      fragment Item on PostEdge { node { title ... on Post { id } } }`;
    expect(cost(query)).toBe(10);
  });

  it('stays linear however often fragments spread each other', () => {
    const fragments = Array.from({ length: 40 }, (_, i) => `fragment F${i + 1} on Comment { ...F${i} ...F${i} }`);
    const query = `query($id: ID!) { getComment(id: $id) { ...F40 } } fragment F0 on Comment { post { id } } ${fragments.join(' ')}`;
    expect(cost(query)).toBe(1 + 2 ** 40);
  });

  it('counts mutation payloads too', () => {
    const query = 'mutation { createPost(input: { title: "x" }) { changedPost { comments(first: 3) { edges { node { text } } } } } }';
    expect(cost(query)).toBe(1 + 3);
  });

  it('lets an ordinary client query through: all users, each with their posts and roles, no first anywhere', () => {
    const users = appSchema('costmodel002', 1, parseSchema('type User @model { posts: [Post] @relation(name: "PostAuthor") } type Post @model { title: String author: User @relation(name: "PostAuthor") }'));
    const query = '{ viewer { allUsers { edges { node { username posts { edges { node { title } } } roles { edges { node { name } } } } } } } }';
    const document = parse(query);
    const operation = document.definitions[0];
    if (operation?.kind !== 'OperationDefinition') throw new Error('no operation');
    // 100 users × (the user + 100 posts + 100 roles), under the default maxCost of 50,000.
    expect(operationCost({ schema: users, document, operation, variables: {}, defaultPageSize: 100 })).toBe(100 * (1 + 100 + 100));
  });
});

describe('input value nesting and suggestions', () => {
  it('measures nesting of lists and objects, scalars being 0 deep', () => {
    expect(nestsDeeperThan('x', 0)).toBe(false);
    expect(nestsDeeperThan([], 0)).toBe(true);
    expect(nestsDeeperThan(nestedList(MAX_VALUE_DEPTH), MAX_VALUE_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nestedList(MAX_VALUE_DEPTH + 1), MAX_VALUE_DEPTH)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: [] }] }, 3)).toBe(true);
    // Stops early: a very deep value is not walked to its bottom.
    expect(nestsDeeperThan(nestedList(100_000), MAX_VALUE_DEPTH)).toBe(true);
  });

  it('removes every form of graphql-js suggestion', () => {
    expect(withoutSuggestions('Cannot query field "titel" on type "Post". Did you mean "title"?')).toBe('Cannot query field "titel" on type "Post".');
    expect(withoutSuggestions('Unknown type "Pst". Did you mean "Post", "PostEdge", or "PostConnection"?')).toBe('Unknown type "Pst".');
    expect(withoutSuggestions('Value "HAPY" does not exist in "Mood" enum. Did you mean the enum value "HAPPY"?')).toBe('Value "HAPY" does not exist in "Mood" enum.');
    expect(withoutSuggestions('Variable "$i" got invalid value { titel: "x" }; Field "titel" is not defined by type "CreatePostInput". Did you mean "title"?'))
      .toBe('Variable "$i" got invalid value { titel: "x" }; Field "titel" is not defined by type "CreatePostInput".');
  });
});

describe.each(STORE_KINDS)('request limits of the data API (%s)', (kind) => {
  let server: Awaited<ReturnType<typeof startCountingServer>>;
  let app: TestApp;

  /** An app of its own, for tests that change settings. */
  async function freshApp(settings?: Record<string, unknown>): Promise<TestApp> {
    const created = await createTestApp(server, SCHEMA);
    if (settings) await updateSettings(created, settings);
    return created;
  }

  async function updateSettings(target: TestApp, settings: Record<string, unknown>): Promise<void> {
    const reply = await admin(server, UPDATE, { i: { appId: target.id, settings } });
    expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
    // Loads the app again (catalog reads), so the request measured next counts only its own work.
    expect((await target.gql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  }

  /** Asserts the request is refused with LIMIT_EXCEEDED for `limit`, no statement sent. */
  async function refused(target: TestApp, query: string, limit: string | RegExp, variables: Record<string, unknown> = {}): Promise<Json> {
    await target.gql('{ __typename }');
    const before = server.statements();
    const reply = await target.gql(query, variables);
    expect(server.statements(), 'statements sent for a refused request').toBe(before);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toBeUndefined();
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors[0].extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: typeof limit === 'string' ? limit : expect.stringMatching(limit) });
    return reply.body.errors[0];
  }

  async function passes(target: TestApp, query: string, variables: Record<string, unknown> = {}): Promise<Json> {
    const reply = await target.gql(query, variables);
    expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
    expect(reply.status).toBe(200);
    return reply.body.data;
  }

  beforeAll(async () => {
    server = await startCountingServer(kind);
    app = await createTestApp(server, SCHEMA);
    await app.data('mutation { a: createPost(input: { title: "a", comments: [{ text: "1" }, { text: "2" }] }) { changedPost { id } } }');
  });
  afterAll(async () => server?.close());

  describe('depth', () => {
    it('allows 15 levels and refuses 16 by default, naming the limit and its value', async () => {
      await passes(app, deepQuery(15));
      const error = await refused(app, deepQuery(16), 'maxDepth');
      expect(error.extensions.maximum).toBe(15);
      expect(error.message).toMatch(/15/);
      expect(error.message).toMatch(/maxDepth/);
    });

    it('counts fragments as the selections they hold', async () => {
      const target = await freshApp({ maxDepth: 5 });
      const viaFragment = '{ viewer { ...V } } fragment V on Viewer { allPosts(first: 1) { edges { node { title } } } }';
      await passes(target, viaFragment);
      await refused(target, '{ viewer { ...V } } fragment V on Viewer { allPosts(first: 1) { edges { node { id comments(first: 1) { __typename } } } } }', 'maxDepth');
    });

    it('follows a settings change on the next request, also for a document validated before', async () => {
      const target = await freshApp();
      await passes(target, deepQuery(6));
      await updateSettings(target, { maxDepth: 5 });
      await refused(target, deepQuery(6), 'maxDepth');
      await passes(target, deepQuery(5));
      await updateSettings(target, { maxDepth: 6 });
      await passes(target, deepQuery(6));
    });

    it('counts introspection like any selection: the standard introspection query needs 15', async () => {
      const { getIntrospectionQuery } = await import('graphql');
      const data = await passes(app, getIntrospectionQuery());
      expect(data.__schema.queryType.name).toBe('Query');
      const target = await freshApp({ maxDepth: 14 });
      await refused(target, getIntrospectionQuery(), 'maxDepth');
    });
  });

  describe('aliases', () => {
    const aliased = (n: number) => `{ viewer { ${Array.from({ length: n }, (_, i) => `a${i}: id`).join(' ')} } }`;

    it('allows 30 and refuses 31 by default; aliases of __typename are free', async () => {
      await passes(app, aliased(30));
      const error = await refused(app, aliased(31), 'maxAliases');
      expect(error.extensions.maximum).toBe(30);
      await passes(app, `{ ${Array.from({ length: 40 }, (_, i) => `t${i}: __typename`).join(' ')} }`);
    });

    it('counts a fragment as often as it is spread', async () => {
      const fragment = `fragment A on Viewer { ${Array.from({ length: 16 }, (_, i) => `a${i}: id`).join(' ')} }`;
      await passes(app, `{ viewer { ...A } } ${fragment}`);
      await refused(app, `{ viewer { ...A } v: viewer { ...A } } ${fragment}`, 'maxAliases');
    });

    it('follows maxAliases set through updateApp', async () => {
      const target = await freshApp({ maxAliases: 3 });
      await passes(target, aliased(3));
      await refused(target, aliased(4), 'maxAliases');
    });
  });

  describe('directives', () => {
    const directed = (n: number) => `{ viewer { ${'id @include(if: true) '.repeat(n)} } }`;

    it('allows 50 and refuses 51 by default', async () => {
      await passes(app, directed(50));
      const error = await refused(app, directed(51), 'maxDirectives');
      expect(error.extensions.maximum).toBe(50);
    });

    it('counts a fragment as often as it is spread', async () => {
      const fragment = `fragment D on Viewer { ${'id @skip(if: false) '.repeat(26)} }`;
      await passes(app, `{ viewer { ...D } } ${fragment}`);
      await refused(app, `{ viewer { ...D } v: viewer { ...D } } ${fragment}`, 'maxDirectives');
    });

    it('is a setting of its own, within bounds, shown by the management API', async () => {
      const target = await freshApp();
      const settings = await admin(server, 'query($id: ID!) { app(id: $id) { settings { maxDirectives } } }', { id: target.id });
      expect(settings.body.data.app.settings.maxDirectives).toBe(DEFAULT_SETTINGS.maxDirectives);
      for (const bad of [0, 1001, 2.5]) {
        const reply = await admin(server, UPDATE, { i: { appId: target.id, settings: { maxDirectives: bad } } });
        expect(reply.body.errors[0].extensions.code, String(bad)).toMatch(/BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED/);
      }
      await updateSettings(target, { maxDirectives: 2 });
      await passes(target, directed(2));
      await refused(target, directed(3), 'maxDirectives');
    });
  });

  describe('tokens', () => {
    it('allows 5,000 tokens and refuses 5,001 by default, as LIMIT_EXCEEDED rather than a syntax error', async () => {
      await passes(app, queryOfTokens(5000));
      const error = await refused(app, queryOfTokens(5001), 'maxTokens');
      expect(error.extensions.maximum).toBe(5000);
    });

    it('follows maxTokens set through updateApp', async () => {
      const target = await freshApp({ maxTokens: 100 });
      await passes(target, queryOfTokens(100));
      await refused(target, queryOfTokens(101), 'maxTokens');
    });

    it('bound the management API too (20,000 tokens)', async () => {
      const reply = await admin(server, `{ apps { ${'id '.repeat(20_000)} } }`);
      expect(reply.body.errors[0].extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'maxTokens', maximum: 20_000 });
    });

    it('still answers a real syntax error as GRAPHQL_VALIDATION_FAILED', async () => {
      const reply = await app.gql('{ viewer { ');
      expect(codeOf(reply)).toBe('GRAPHQL_VALIDATION_FAILED');
    });
  });

  describe('cost', () => {
    // a posts × (the post + b comments), and one more object when `extra` is set.
    const costly = (extra: boolean) =>
      `query($a: Int, $b: Int) { ${extra ? 'viewer { user { id } }' : ''} viewer { allPosts(first: $a) { edges { node { comments(first: $b) { edges { node { text } } } } } } } }`;

    it('allows a cost of 50,000 and refuses 50,001 by default', async () => {
      await passes(app, costly(false), { a: 100, b: 499 });
      const error = await refused(app, costly(true), 'maxCost', { a: 100, b: 499 });
      expect(error.extensions.maximum).toBe(50_000);
      expect(error.message).toContain('50001');
    });

    it('reads page sizes from the variables of each request, with the same document', async () => {
      await passes(app, costly(false), { a: 10, b: 10 });
      await refused(app, costly(false), 'maxCost', { a: 100, b: 1000 });
      await passes(app, costly(false), { a: 10, b: 10 });
    });

    it('multiplies nested default page sizes', async () => {
      const target = await freshApp({ defaultPageSize: 10, maxCost: 10 * (1 + 10) });
      const query = '{ viewer { allPosts { edges { node { comments { edges { node { text } } } } } } } }';
      await passes(target, query);
      await updateSettings(target, { defaultPageSize: 11 });
      await refused(target, query, 'maxCost');
    });

    it('follows maxCost set through updateApp', async () => {
      const target = await freshApp({ maxCost: 100 });
      // 100 posts; then one object more (the viewer's user)
      await passes(target, '{ viewer { id allPosts(first: 100) { edges { node { title } } } } }');
      await refused(target, '{ viewer { id user { id } allPosts(first: 100) { edges { node { title } } } } }', 'maxCost');
    });

    it('bounds mutations before anything is written', async () => {
      const target = await freshApp({ maxCost: 10 });
      const create = 'mutation { createPost(input: { title: "costly" }) { changedPost { comments(first: 10) { edges { node { text } } } } } }';
      await refused(target, create, 'maxCost');
      const count = await target.data('{ viewer { allPosts { aggregations { count } } } }');
      expect(count.viewer.allPosts.aggregations.count).toBe(0);
    });
  });

  describe('input value nesting', () => {
    const create = 'mutation($d: JSON) { createPost(input: { title: "nested", data: $d }) { changedPost { data } } }';

    it('takes variables nested 32 deep and refuses 33, before anything is written', async () => {
      const data = await passes(app, create, { d: nestedList(32) });
      expect(data.createPost.changedPost.data).toEqual(nestedList(32));
      const error = await refused(app, create, 'valueDepth', { d: nestedList(33) });
      expect(error.extensions.maximum).toBe(32);
      expect(error.message).toContain('$d');
    });

    it('puts literal argument values under the same bound, the input object counting as a level', async () => {
      const literal = (depth: number) => `mutation { createPost(input: { title: "lit", data: ${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)} }) { changedPost { id } } }`;
      await passes(app, literal(32));
      await refused(app, literal(33), 'valueDepth');
    });

    it('refuses a document too deeply nested to be parsed as LIMIT_EXCEEDED, not INTERNAL', async () => {
      const deep = `{ viewer(x: ${'['.repeat(2400)}${']'.repeat(2400)}) { id } }`;
      // Past the parser's stack; were the stack deeper, the bound on values would refuse it.
      await refused(app, deep, /^(nesting|valueDepth)$/);
    });
  });

  describe('status codes', () => {
    it('answer 400 with application/graphql-response+json and 200 with application/json', async () => {
      const post = (accept: string) =>
        fetch(app.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${app.token}` },
          body: JSON.stringify({ query: deepQuery(16) }),
        });
      const modern = await post('application/graphql-response+json');
      expect(modern.status).toBe(400);
      expect(modern.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
      expect(((await modern.json()) as Json).errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
      const legacy = await post('application/json');
      expect(legacy.status).toBe(200);
      expect(((await legacy.json()) as Json).errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
    });

    it('apply over GET as well', async () => {
      const reply = await fetch(`${app.endpoint}?query=${encodeURIComponent(deepQuery(16))}`, { headers: { authorization: `Bearer ${app.token}` } });
      expect(((await reply.json()) as Json).errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
    });
  });

  describe('introspection switch', () => {
    it('refuses __schema and __type once closed, keeps __typename, and opens again', async () => {
      const target = await freshApp();
      const schemaQuery = '{ __schema { queryType { name } } }';
      expect((await passes(target, schemaQuery)).__schema.queryType.name).toBe('Query');
      await updateSettings(target, { introspection: false });
      // The change reaches the server by a notification, and the request that meets it first
      // loads the app again (catalog reads): the requests counted below come after that.
      const deadline = Date.now() + 10_000;
      while (codeOf(await target.gql(schemaQuery)) !== 'GRAPHQL_VALIDATION_FAILED' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const query of [schemaQuery, '{ __type(name: "Post") { name } }', '{ viewer { id } t: __type(name: "Post") { fields { name } } }']) {
        const before = server.statements();
        const reply = await target.gql(query);
        expect(server.statements()).toBe(before);
        expect(reply.body.data).toBeUndefined();
        expect(codeOf(reply), query).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(reply.body.errors[0].message).toMatch(/introspection/i);
      }
      expect(await passes(target, '{ __typename viewer { __typename } }')).toEqual({ __typename: 'Query', viewer: { __typename: 'Viewer' } });
      await updateSettings(target, { introspection: true });
      expect((await passes(target, schemaQuery)).__schema.queryType.name).toBe('Query');
    });
  });

  describe('field suggestions switch', () => {
    it('drops "Did you mean" from validation and variable errors once turned off', async () => {
      const target = await freshApp();
      const typo = '{ viewer { allPosts { edges { node { titel } } } } }';
      const input = 'mutation($i: CreatePostInput!) { createPost(input: $i) { changedPost { id } } }';
      expect((await target.gql(typo)).body.errors[0].message).toMatch(/Did you mean "title"\?/);
      expect((await target.gql(input, { i: { titel: 'x' } })).body.errors[0].message).toMatch(/Did you mean "title"\?/);
      await updateSettings(target, { fieldSuggestions: false });
      const validation = await target.gql(typo);
      expect(codeOf(validation)).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(validation.body.errors[0].message).toBe('Cannot query field "titel" on type "Post".');
      const variables = await target.gql(input, { i: { titel: 'x' } });
      expect(codeOf(variables)).toBe('BAD_USER_INPUT');
      expect(variables.body.errors[0].message).not.toMatch(/Did you mean/);
      expect(variables.body.errors[0].message).toMatch(/"titel" is not defined/);
    });
  });
});
