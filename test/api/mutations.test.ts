// createX over HTTP on both stores: every kind of value written and read back, defaults,
// inline lists and embedded values, the payload (changedX, changedEdge, viewer,
// clientMutationId, aliases, fragments, __typename), and refusals that leave nothing behind.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { WRITE_SCHEMA, countOf, errorCode, unique } from './writes.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const THING_FIELDS = `id title label body quantity ratio active at data mood ref code status rank flag notes tags moods
  address { street city geo { x y } spots { x y } }
  addresses { street city geo { x y } spots { x y } }
  createdAt modifiedAt`;

const CREATE_THING = `mutation($i: CreateThingInput!) { createThing(input: $i) { changedThing { ${THING_FIELDS} } } }`;

describe.each(STORE_KINDS)('createX (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, WRITE_SCHEMA);
  });
  afterAll(async () => server?.close());

  it('stores every scalar kind, enums, inline lists and embedded values, and reads them back exactly', async () => {
    const input = {
      title: unique('all'),
      label: 'a "label" with ünïcödé ✓',
      body: 'Text\nwith lines',
      quantity: -2147483648,
      ratio: 0.125,
      active: false,
      at: '2016-12-08T13:33:56.5+01:00',
      data: { nested: [1, 'two', null, { three: true }], empty: {}, n: 1.5 },
      mood: 'SAD',
      ref: 'external-ref-1',
      code: unique('code'),
      status: 'SAD',
      rank: 0,
      flag: false,
      notes: [],
      tags: ['a', 'b', 'a'],
      moods: ['HAPPY', 'SAD'],
      address: { street: 'Main St 1', city: 'Springfield', geo: { x: 1, y: -1 }, spots: [{ x: 2, y: 3 }, { x: 4, y: null }] },
      addresses: [{ city: 'A', spots: [] }, { street: null, city: 'B', geo: { x: 0, y: 0 } }],
    };
    const data = await app.data(CREATE_THING, { i: input });
    const thing = data.createThing.changedThing;
    expect(thing).toEqual({
      ...input,
      id: expect.any(String),
      at: '2016-12-08T12:33:56.500Z',
      addresses: [
        { street: null, city: 'A', geo: null, spots: [] },
        { street: null, city: 'B', geo: { x: 0, y: 0 }, spots: null },
      ],
      createdAt: expect.stringMatching(ISO),
      modifiedAt: expect.stringMatching(ISO),
    });
    expect(thing.modifiedAt).toBe(thing.createdAt);
    // Read back in a separate request: what was stored, not what was echoed.
    const read = await app.data(`query($id: ID!) { getThing(id: $id) { ${THING_FIELDS} } }`, { id: thing.id });
    expect(read.getThing).toEqual(thing);
  });

  it('accepts partial and offset DateTime input and stores it normalised to UTC', async () => {
    const cases: [string, string][] = [
      ['2017-03', '2017-03-01T00:00:00.000Z'],
      ['2017', '2017-01-01T00:00:00.000Z'],
      ['2017-03-05', '2017-03-05T00:00:00.000Z'],
      ['2017-03-05T10:00', '2017-03-05T10:00:00.000Z'],
      ['2017-03-05T10:00:00.123456Z', '2017-03-05T10:00:00.123Z'],
    ];
    for (const [given, stored] of cases) {
      const data = await app.data('mutation($at: DateTime) { createThing(input: { title: "dt", at: $at }) { changedThing { at } } }', { at: given });
      expect(data.createThing.changedThing.at, given).toBe(stored);
    }
    const literal = await app.data('mutation { createThing(input: { title: "dt", at: "2017-03" }) { changedThing { at } } }');
    expect(literal.createThing.changedThing.at).toBe('2017-03-01T00:00:00.000Z');
    const bad = await app.gql('mutation { createThing(input: { title: "dt", at: "yesterday" }) { changedThing { at } } }');
    expect(errorCode(bad)).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('applies @default values to fields left out, and null to the others', async () => {
    const data = await app.data(CREATE_THING, { i: { title: unique('defaults') } });
    expect(data.createThing.changedThing).toMatchObject({
      status: 'HAPPY', rank: 7, flag: true, notes: ['first'],
      label: null, body: null, quantity: null, ratio: null, active: null, at: null, data: null,
      mood: null, ref: null, code: null, tags: null, moods: null, address: null, addresses: null,
    });
  });

  it('writes JSON given as a GraphQL literal, and a single value given for a list as a one-item list', async () => {
    const data = await app.data('mutation { createThing(input: { title: "lit", data: { a: [1, "x", 2.5], b: null, c: { d: false } }, tags: "only" }) { changedThing { data tags } } }');
    expect(data.createThing.changedThing).toEqual({ data: { a: [1, 'x', 2.5], b: null, c: { d: false } }, tags: ['only'] });
    const scalar = await app.data('mutation { createThing(input: { title: "lit", data: "just a string" }) { changedThing { data } } }');
    expect(scalar.createThing.changedThing.data).toBe('just a string');
  });

  it('echoes clientMutationId and returns the new row as changedEdge and in viewer', async () => {
    const title = unique('payload');
    const before = await countOf(app, 'Thing', 'Things');
    const reply = await app.data(
      `mutation($i: CreateThingInput!) { createThing(input: $i) {
        clientMutationId
        changedThing { id title }
        changedEdge { cursor node { id title } }
        viewer { allThings(where: { title: { eq: "${title}" } }) { edges { node { id } } } all: allThings { aggregations { count } } }
      } }`,
      { i: { title, clientMutationId: 'req-17' } },
    );
    const payload = reply.createThing;
    const id = payload.changedThing.id;
    expect(payload.clientMutationId).toBe('req-17');
    expect(payload.changedEdge.node).toEqual({ id, title });
    expect(payload.changedEdge.cursor).toEqual(expect.any(String));
    expect(payload.viewer.allThings.edges).toEqual([{ node: { id } }]);
    expect(payload.viewer.all.aggregations.count).toBe(before + 1);
    // The cursor is a position in the default order of allThings: the row lies at it, not after it.
    const after = await app.data('query($c: String) { viewer { allThings(after: $c, first: 1000) { edges { node { id } } } } }', { c: payload.changedEdge.cursor });
    expect(after.viewer.allThings.edges.map((e: Json) => e.node.id)).not.toContain(id);
    const without = await app.data('mutation { createThing(input: { title: "no-cmid" }) { clientMutationId } }');
    expect(without.createThing.clientMutationId).toBeNull();
  });

  it('answers payload fields under aliases, in fragments and with __typename', async () => {
    const title = unique('shape');
    const data = await app.data(
      `mutation($t: String!) {
        __typename
        made: createThing(input: { title: $t, clientMutationId: "c1" }) { ...Payload }
      }
      fragment Payload on CreateThingPayload {
        __typename
        cmid: clientMutationId
        thing: changedThing { __typename ... on Node { nodeId: id } ...ThingBits }
        edge: changedEdge { __typename node { __typename name: title } }
        viewer { __typename }
      }
      fragment ThingBits on Thing { heading: title ... on Timestamped { createdAt } }`,
      { t: title },
    );
    expect(data.__typename).toBe('Mutation');
    expect(data.made).toEqual({
      __typename: 'CreateThingPayload',
      cmid: 'c1',
      thing: { __typename: 'Thing', nodeId: expect.any(String), heading: title, createdAt: expect.stringMatching(ISO) },
      edge: { __typename: 'ThingEdge', node: { __typename: 'Thing', name: title } },
      viewer: { __typename: 'Viewer' },
    });
  });

  it('honours @include and @skip in payloads and answers one payload field under two aliases', async () => {
    const data = await app.data(
      `mutation($yes: Boolean!) { createThing(input: { title: "directives", quantity: 2 }) {
        a: changedThing { title }
        b: changedThing { quantity }
        c: changedThing @include(if: $yes) { id }
        viewer @skip(if: $yes) { id }
        clientMutationId @include(if: false)
      } }`,
      { yes: true },
    );
    expect(data.createThing).toEqual({ a: { title: 'directives' }, b: { quantity: 2 }, c: { id: expect.any(String) } });
  });

  it('lets exactly one of concurrent creates with the same unique value through; the others get CONFLICT', async () => {
    const code = unique('race');
    const username = unique('Racer');
    const replies = await Promise.all([
      ...Array.from({ length: 6 }, () => app.gql(CREATE_THING, { i: { title: 'race', code } })),
      ...[username, username.toLowerCase(), username.toUpperCase()].map((u) =>
        app.gql('mutation($u: String!) { createUser(input: { username: $u, password: "pw-123456" }) { changedUser { id } } }', { u })),
    ]);
    const things = replies.slice(0, 6);
    const users = replies.slice(6);
    for (const group of [things, users]) {
      expect(group.filter((r) => r.body.errors === undefined)).toHaveLength(1);
      for (const r of group.filter((r) => r.body.errors !== undefined)) expect(errorCode(r)).toBe('CONFLICT');
    }
    expect(await countOf(app, 'Thing', 'Things', { code: { eq: code } })).toBe(1);
    expect(await countOf(app, 'User', 'Users', { username: { like: username } })).toBe(1);
  });

  it('runs several create fields of one operation in order, each answering under its alias', async () => {
    const prefix = unique('multi');
    const data = await app.data(`mutation {
      a: createThing(input: { title: "${prefix}-a" }) { changedThing { title } }
      b: createThing(input: { title: "${prefix}-b" }) { viewer { allThings(where: { title: { like: "${prefix}-%" } }) { aggregations { count } } } }
    }`);
    expect(data.a.changedThing.title).toBe(`${prefix}-a`);
    expect(data.b.viewer.allThings.aggregations.count).toBe(2);
  });

  it('creates a user whose password is write-only: never selectable, filterable or orderable', async () => {
    const username = unique('pw');
    const data = await app.data('mutation($u: String!) { createUser(input: { username: $u, password: "s3cret-pass" }) { changedUser { id username lastLogin } token } }', { u: username });
    expect(data.createUser.changedUser).toEqual({ id: expect.any(String), username, lastLogin: null });
    for (const query of [
      'mutation { createUser(input: { username: "x-pw", password: "pw-pw-pw" }) { changedUser { password } } }',
      '{ viewer { allUsers { edges { node { username password } } } } }',
      '{ viewer { allUsers(where: { password: { eq: "s3cret-pass" } }) { edges { node { id } } } } }',
      '{ viewer { allUsers(orderBy: { field: password }) { edges { node { id } } } } }',
    ]) {
      expect(errorCode(await app.gql(query)), query).toBe('GRAPHQL_VALIDATION_FAILED');
    }
    expect(await countOf(app, 'User', 'Users', { username: { eq: 'x-pw' } })).toBe(0);
  });

  it('refuses a String over 10,000 characters but not a Text, and keeps nothing of the refused row', async () => {
    const title = unique('long');
    const ok = await app.data('mutation($t: String!, $s: String, $b: Text) { createThing(input: { title: $t, label: $s, body: $b }) { changedThing { label body } } }', {
      t: title, s: 'x'.repeat(10_000), b: 'y'.repeat(20_000),
    });
    expect(ok.createThing.changedThing.label).toHaveLength(10_000);
    expect(ok.createThing.changedThing.body).toHaveLength(20_000);
    const long = 'x'.repeat(10_001);
    const inside: Json[] = [{ tags: ['ok', long] }, { address: { city: long } }, { addresses: [{ city: 'a', spots: [], street: long }] }];
    for (const input of [{ title, label: long }, { title: long }, { title, ref: long }, ...inside.map((extra) => ({ title, ...extra }))]) {
      const reply = await app.gql(CREATE_THING, { i: input });
      expect(errorCode(reply, 'createThing'), Object.keys(input).join()).toBe('BAD_USER_INPUT');
    }
    expect(await countOf(app, 'Thing', 'Things', { title: { eq: title } })).toBe(1);
  });

  it('refuses a NUL character in any string: String, Text, JSON, lists and embedded values', async () => {
    const title = unique('nul');
    const inputs: Json[] = [
      { label: 'a\u0000b' },
      { body: '\u0000' },
      { data: { key: 'v\u0000' } },
      { data: { ['k\u0000']: 1 } },
      { tags: ['fine', 'bad\u0000'] },
      { address: { city: 'c\u0000' } },
      { addresses: [{ city: 'ok' }, { city: 'x', spots: [], street: '\u0000' }] },
    ];
    for (const extra of inputs) {
      const reply = await app.gql(CREATE_THING, { i: { title, ...extra } });
      expect(errorCode(reply, 'createThing'), JSON.stringify(extra)).toBe('BAD_USER_INPUT');
    }
    const titleNul = await app.gql(CREATE_THING, { i: { title: `${title}\u0000` } });
    expect(errorCode(titleNul, 'createThing')).toBe('BAD_USER_INPUT');
    expect(await countOf(app, 'Thing', 'Things', { title: { like: `${title}%` } })).toBe(0);
  });

  it('answers variables the scalars refuse with BAD_USER_INPUT, not an internal error', async () => {
    const cases: [string, Json][] = [
      ['mutation($d: DateTime) { createThing(input: { title: "v", at: $d }) { changedThing { id } } }', { d: 'yesterday' }],
      ['mutation($q: Int) { createThing(input: { title: "v", quantity: $q }) { changedThing { id } } }', { q: 'many' }],
      ['mutation($m: Mood) { createThing(input: { title: "v", mood: $m }) { changedThing { id } } }', { m: 'ANGRY' }],
      [CREATE_THING, { i: { label: 'no title' } }],
      [CREATE_THING, { i: { title: 't', bogus: 1 } }],
      ['query($d: DateTime) { viewer { allThings(where: { at: { eq: $d } }) { edges { node { id } } } } }', { d: '2017-13' }],
    ];
    for (const [query, variables] of cases) {
      const reply = await app.gql(query, variables);
      expect(reply.status, JSON.stringify(variables)).toBe(200);
      expect(reply.body.data, JSON.stringify(variables)).toBeUndefined();
      expect(reply.body.errors[0].extensions.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
    }
  });

  it('reads variables inside a JSON literal', async () => {
    const data = await app.data('mutation($v: Int, $s: String) { createThing(input: { title: "lit", data: { a: [1, "x", $v], s: $s } }) { changedThing { data } } }', { v: 42, s: 'y' });
    expect(data.createThing.changedThing.data).toEqual({ a: [1, 'x', 42], s: 'y' });
    const again = await app.data('mutation($v: Int, $s: String) { createThing(input: { title: "lit", data: { a: [1, "x", $v], s: $s } }) { changedThing { data } } }', { v: 7, s: 'z' });
    expect(again.createThing.changedThing.data).toEqual({ a: [1, 'x', 7], s: 'z' });
  });

  it('leaves lastLogin to the server: no create or update input sets it', async () => {
    const reply = await app.gql('mutation { createUser(input: { username: "ll", password: "pw-123456", lastLogin: "2017" }) { changedUser { id } } }');
    expect(reply.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const user = await app.data('mutation { createUser(input: { username: "ll2", password: "pw-123456" }) { changedUser { id lastLogin } } }');
    expect(user.createUser.changedUser.lastLogin).toBeNull();
  });

  it('refuses an input without a required field at validation', async () => {
    const before = await countOf(app, 'Thing', 'Things');
    for (const query of [
      'mutation { createThing(input: { label: "no title" }) { changedThing { id } } }',
      'mutation { createThing(input: { title: null }) { changedThing { id } } }',
      'mutation { createUser(input: { username: "no-password" }) { changedUser { id } } }',
      'mutation { createThing(input: { title: "x", address: { street: "no city" } }) { changedThing { id } } }',
      'mutation { createThing(input: { title: "x", mood: CONFUSED }) { changedThing { id } } }',
    ]) {
      expect(errorCode(await app.gql(query)), query).toBe('GRAPHQL_VALIDATION_FAILED');
    }
    expect(await countOf(app, 'Thing', 'Things')).toBe(before);
  });

  it('refuses a taken @unique value with CONFLICT, and writes nothing', async () => {
    const code = unique('uniq');
    await app.data(CREATE_THING, { i: { title: 'first', code } });
    const reply = await app.gql(CREATE_THING, { i: { title: 'second', code } });
    expect(errorCode(reply, 'createThing')).toBe('CONFLICT');
    expect(await countOf(app, 'Thing', 'Things', { code: { eq: code } })).toBe(1);
    // Null is not a value: any number of rows may leave a unique field empty.
    await app.data(CREATE_THING, { i: { title: 'no code 1' } });
    await app.data(CREATE_THING, { i: { title: 'no code 2' } });
  });

  it('treats usernames differing only in case or Unicode form as the same (CONFLICT), storing them NFC', async () => {
    const base = unique('ann');
    const created = await app.data('mutation($u: String!) { createUser(input: { username: $u, password: "pw-123456" }) { changedUser { username } } }', { u: `É${base}` });
    expect(created.createUser.changedUser.username).toBe(`\u00c9${base}`);
    for (const other of [`é${base}`, `E\u0301${base}`, `É${base.toUpperCase()}`]) {
      const reply = await app.gql('mutation($u: String!) { createUser(input: { username: $u, password: "pw-123456" }) { changedUser { id } } }', { u: other });
      expect(errorCode(reply, 'createUser'), other).toBe('CONFLICT');
    }
    const decomposed = unique('zoe\u0308');
    const stored = await app.data('mutation($u: String!) { createUser(input: { username: $u, password: "pw-123456" }) { changedUser { username } } }', { u: decomposed });
    expect(stored.createUser.changedUser.username).toBe(decomposed.normalize('NFC'));
    expect(await countOf(app, 'User', 'Users', { username: { like: `%${base}` } })).toBe(1);
  });

  it('refuses an empty username or password with BAD_USER_INPUT', async () => {
    const before = await countOf(app, 'User', 'Users');
    for (const [username, password] of [['', 'pw-123456'], ['  ', 'pw-123456'], [unique('nopw'), '']]) {
      const reply = await app.gql('mutation($u: String!, $p: String!) { createUser(input: { username: $u, password: $p }) { changedUser { id } } }', { u: username, p: password });
      expect(errorCode(reply, 'createUser'), JSON.stringify([username, password])).toBe('BAD_USER_INPUT');
    }
    expect(await countOf(app, 'User', 'Users')).toBe(before);
  });

  it('keeps the other root fields of a failed operation: each mutation is its own transaction', async () => {
    const code = unique('tx');
    const reply = await app.gql(`mutation {
      ok: createThing(input: { title: "kept", code: "${code}" }) { changedThing { code } }
      dup: createThing(input: { title: "refused", code: "${code}" }) { changedThing { code } }
      after: createThing(input: { title: "also kept", code: "${code}-2" }) { changedThing { code } }
    }`);
    expect(reply.body.data).toEqual({ ok: { changedThing: { code } }, dup: null, after: { changedThing: { code: `${code}-2` } } });
    expect(reply.body.errors).toHaveLength(1);
    expect(reply.body.errors[0].path).toEqual(['dup']);
    expect(reply.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await countOf(app, 'Thing', 'Things', { code: { like: `${code}%` } })).toBe(2);
  });
});
