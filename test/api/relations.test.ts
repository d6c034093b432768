// One-to-one and one-to-many relations over HTTP on both stores: links set, moved and cleared
// by id from either side, seen from both sides, and the list side's connection with
// pagination, ordering, filters and aggregations.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';
import { WRITE_SCHEMA, countOf, errorCode, missingId, newPost, newUser, unique } from './writes.js';

describe.each(STORE_KINDS)('relations (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, WRITE_SCHEMA);
  });
  afterAll(async () => server?.close());

  describe('one-to-one (Country.capitalCity / City.capitalOf)', () => {
    async function city(extra: Json = {}): Promise<string> {
      const data = await app.data('mutation($i: CreateCityInput!) { createCity(input: $i) { changedCity { id } } }', { i: { name: unique('city'), ...extra } });
      return data.createCity.changedCity.id;
    }
    async function country(extra: Json = {}): Promise<string> {
      const data = await app.data('mutation($i: CreateCountryInput!) { createCountry(input: $i) { changedCountry { id } } }', { i: { name: unique('country'), ...extra } });
      return data.createCountry.changedCountry.id;
    }
    /** Who holds whom, read from both sides in one request: country id → its capital's id, city id → its country's id. */
    async function links(countries: string[], cities: string[]): Promise<Record<string, string | null>> {
      const data = await app.data(
        'query($c: [ID!], $t: [ID!]) { viewer { allCountries(where: { id: { in: $c } }) { edges { node { id capitalCity { id } } } } allCities(where: { id: { in: $t } }) { edges { node { id capitalOf { id } } } } } }',
        { c: countries, t: cities },
      );
      const out: Record<string, string | null> = {};
      for (const e of data.viewer.allCountries.edges) out[e.node.id] = e.node.capitalCity?.id ?? null;
      for (const e of data.viewer.allCities.edges) out[e.node.id] = e.node.capitalOf?.id ?? null;
      return out;
    }

    it('is set with <field>Id on create from either side and seen from both', async () => {
      const x = await city();
      const a = await country({ capitalCityId: x });
      const b = await country();
      const y = await city({ capitalOfId: b });
      expect(await links([a, b], [x, y])).toEqual({ [a]: x, [x]: a, [b]: y, [y]: b });
    });

    it('is set with <field>Id on update from either side and seen from both', async () => {
      const [a, b, x, y] = [await country(), await country(), await city(), await city()];
      const fromCountry = await app.data('mutation($a: ID!, $x: ID) { updateCountry(input: { id: $a, capitalCityId: $x }) { changedCountry { capitalCity { id capitalOf { id } } } } }', { a, x });
      expect(fromCountry.updateCountry.changedCountry.capitalCity).toEqual({ id: x, capitalOf: { id: a } });
      const fromCity = await app.data('mutation($y: ID!, $b: ID) { updateCity(input: { id: $y, capitalOfId: $b }) { changedCity { capitalOf { id capitalCity { id } } } } }', { y, b });
      expect(fromCity.updateCity.changedCity.capitalOf).toEqual({ id: b, capitalCity: { id: y } });
      expect(await links([a, b], [x, y])).toEqual({ [a]: x, [x]: a, [b]: y, [y]: b });
    });

    it('moving a link takes it from its previous holder on both sides, whichever side moves it', async () => {
      const x = await city();
      const a = await country({ capitalCityId: x });
      // Country B claims X on create: A loses its capital.
      const b = await country({ capitalCityId: x });
      expect(await links([a, b], [x])).toEqual({ [a]: null, [b]: x, [x]: b });
      // City Y claims B from the city side: X loses its country, B's capital is Y.
      const y = await city();
      await app.data('mutation($y: ID!, $b: ID) { updateCity(input: { id: $y, capitalOfId: $b }) { clientMutationId } }', { y, b });
      expect(await links([a, b], [x, y])).toEqual({ [a]: null, [b]: y, [x]: null, [y]: b });
      // Country A claims Y from the country side: B is left without a capital.
      await app.data('mutation($a: ID!, $y: ID) { updateCountry(input: { id: $a, capitalCityId: $y }) { clientMutationId } }', { a, y });
      expect(await links([a, b], [x, y])).toEqual({ [a]: y, [b]: null, [x]: null, [y]: a });
      // A new city Z created as A's capital: Y is released.
      const z = await city({ capitalOfId: a });
      expect(await links([a, b], [x, y, z])).toEqual({ [a]: z, [b]: null, [x]: null, [y]: null, [z]: a });
      // Setting the link it already has changes nothing.
      await app.data('mutation($z: ID!, $a: ID) { updateCity(input: { id: $z, capitalOfId: $a }) { clientMutationId } }', { z, a });
      await app.data('mutation($a: ID!, $z: ID) { updateCountry(input: { id: $a, capitalCityId: $z }) { clientMutationId } }', { a, z });
      expect(await links([a], [z])).toEqual({ [a]: z, [z]: a });
    });

    it('is cleared with "" from either side', async () => {
      const [x, y] = [await city(), await city()];
      const [a, b] = [await country({ capitalCityId: x }), await country({ capitalCityId: y })];
      const fromCountry = await app.data('mutation($a: ID!) { updateCountry(input: { id: $a, capitalCityId: "" }) { changedCountry { capitalCity { id } } } }', { a });
      expect(fromCountry.updateCountry.changedCountry.capitalCity).toBeNull();
      const fromCity = await app.data('mutation($y: ID!) { updateCity(input: { id: $y, capitalOfId: "" }) { changedCity { capitalOf { id } } } }', { y });
      expect(fromCity.updateCity.changedCity.capitalOf).toBeNull();
      expect(await links([a, b], [x, y])).toEqual({ [a]: null, [b]: null, [x]: null, [y]: null });
    });

    it('filters by the link from both sides with <field>Id and the related object', async () => {
      const x = await city({ name: unique('filter-city') });
      const a = await country({ capitalCityId: x });
      const lonely = await country();
      const data = await app.data(
        `query($a: ID!, $x: ID!, $both: [ID!]) { viewer {
          byId: allCities(where: { capitalOfId: { eq: $a } }) { edges { node { id } } }
          byCountry: allCountries(where: { id: { in: $both }, capitalCityId: { eq: $x } }) { edges { node { id } } }
          none: allCountries(where: { id: { in: $both }, capitalCityId: { isNull: true } }) { edges { node { id } } }
          nested: allCountries(where: { capitalCity: { name: { like: "filter-city%" } }, id: { in: $both } }) { edges { node { id } } }
        } }`,
        { a, x, both: [a, lonely] },
      );
      expect(data.viewer).toEqual({
        byId: { edges: [{ node: { id: x } }] },
        byCountry: { edges: [{ node: { id: a } }] },
        none: { edges: [{ node: { id: lonely } }] },
        nested: { edges: [{ node: { id: a } }] },
      });
    });

    it('refuses an id of nothing or of another type from either side with BAD_USER_INPUT, writing nothing', async () => {
      const x = await city();
      const a = await country({ capitalCityId: x });
      const [countries, cities] = [await countOf(app, 'Country', 'Countries'), await countOf(app, 'City', 'Cities')];
      const cases: [string, Json][] = [
        ['mutation($i: CreateCountryInput!) { createCountry(input: $i) { changedCountry { id } } }', { name: unique('c'), capitalCityId: missingId('City') }],
        ['mutation($i: CreateCountryInput!) { createCountry(input: $i) { changedCountry { id } } }', { name: unique('c'), capitalCityId: a }],
        ['mutation($i: CreateCityInput!) { createCity(input: $i) { changedCity { id } } }', { name: 'c', capitalOfId: missingId('Country') }],
        ['mutation($i: CreateCityInput!) { createCity(input: $i) { changedCity { id } } }', { name: 'c', capitalOfId: x }],
        ['mutation($i: UpdateCountryInput!) { updateCountry(input: $i) { changedCountry { id } } }', { id: a, capitalCityId: missingId('City') }],
        ['mutation($i: UpdateCityInput!) { updateCity(input: $i) { changedCity { id } } }', { id: x, capitalOfId: missingId('Country') }],
        ['mutation($i: UpdateCityInput!) { updateCity(input: $i) { changedCity { id } } }', { id: x, capitalOfId: 'nonsense' }],
      ];
      for (const [query, input] of cases) {
        expect(errorCode(await app.gql(query, { i: input })), JSON.stringify(input)).toBe('BAD_USER_INPUT');
      }
      expect([await countOf(app, 'Country', 'Countries'), await countOf(app, 'City', 'Cities')]).toEqual([countries, cities]);
      // The failed updates did not clear the link they would have replaced.
      expect(await links([a], [x])).toEqual({ [a]: x, [x]: a });
    });
  });

  describe('one-to-many (Post.author / User.posts)', () => {
    const POSTS = `query($u: ID!, $first: Int, $after: String, $last: Int, $before: String, $where: PostWhereArgs) {
      getUser(id: $u) { posts(first: $first, after: $after, last: $last, before: $before, where: $where, orderBy: [{ field: rating, direction: DESC }]) {
        edges { cursor node { rating author { id } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } aggregations { count sum { rating } }
      } }
    }`;
    const ratings = (connection: Json): number[] => connection.edges.map((e: Json) => e.node.rating);

    it('is set on create, moved and cleared from the singular side, and the list side follows', async () => {
      const [ann, bob] = [await newUser(app), await newUser(app)];
      const post = await newPost(app, { authorId: ann, rating: 1 });
      const sides = async () => {
        const data = await app.data('query($a: ID!, $b: ID!, $p: ID!) { a: getUser(id: $a) { posts { edges { node { id } } } } b: getUser(id: $b) { posts { edges { node { id } } } } p: getPost(id: $p) { author { id } } }', { a: ann, b: bob, p: post });
        return { ann: data.a.posts.edges.length, bob: data.b.posts.edges.length, author: data.p.author?.id ?? null };
      };
      expect(await sides()).toEqual({ ann: 1, bob: 0, author: ann });
      await app.data('mutation($p: ID!, $b: ID) { updatePost(input: { id: $p, authorId: $b }) { clientMutationId } }', { p: post, b: bob });
      expect(await sides()).toEqual({ ann: 0, bob: 1, author: bob });
      await app.data('mutation($p: ID!) { updatePost(input: { id: $p, authorId: "" }) { clientMutationId } }', { p: post });
      expect(await sides()).toEqual({ ann: 0, bob: 0, author: null });
    });

    it('pages through the list side forward and backward in the order asked, with aggregations over the whole set', async () => {
      const user = await newUser(app);
      for (const rating of [3, 1, 5, 2, 4]) await newPost(app, { authorId: user, rating });
      await newPost(app, { rating: 9 });
      const first = (await app.data(POSTS, { u: user, first: 2 })).getUser.posts;
      expect(ratings(first)).toEqual([5, 4]);
      expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false, endCursor: first.edges[1].cursor });
      expect(first.aggregations).toEqual({ count: 5, sum: { rating: 15 } });
      const second = (await app.data(POSTS, { u: user, first: 2, after: first.pageInfo.endCursor })).getUser.posts;
      expect(ratings(second)).toEqual([3, 2]);
      expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
      const third = (await app.data(POSTS, { u: user, first: 2, after: second.pageInfo.endCursor })).getUser.posts;
      expect(ratings(third)).toEqual([1]);
      expect(third.pageInfo.hasNextPage).toBe(false);
      const back = (await app.data(POSTS, { u: user, last: 2, before: third.pageInfo.startCursor })).getUser.posts;
      expect(ratings(back)).toEqual([3, 2]);
      expect(back.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
      for (const page of [first, second, third]) for (const e of page.edges) expect(e.node.author).toEqual({ id: user });
    });

    it('filters the list side with where, aggregations following the filter, and pages within it', async () => {
      const user = await newUser(app);
      for (const rating of [1, 2, 3, 4, 5, 6]) await newPost(app, { authorId: user, rating, title: rating % 2 === 0 ? `even ${rating}` : `odd ${rating}` });
      const where = { title: { like: 'EVEN%' }, rating: { gte: 3 } };
      const page = (await app.data(POSTS, { u: user, first: 1, where })).getUser.posts;
      expect(ratings(page)).toEqual([6]);
      expect(page.aggregations).toEqual({ count: 2, sum: { rating: 10 } });
      const next = (await app.data(POSTS, { u: user, first: 1, after: page.pageInfo.endCursor, where })).getUser.posts;
      expect(ratings(next)).toEqual([4]);
      expect(next.pageInfo.hasNextPage).toBe(false);
    });

    it('filters either side by the other: "at least one" from the list side, the related object from the singular side', async () => {
      const name = unique('filtered');
      const [top, low] = [await newUser(app, name), await newUser(app)];
      await newPost(app, { authorId: top, rating: 100 });
      await newPost(app, { authorId: top, rating: 1 });
      await newPost(app, { authorId: low, rating: 1 });
      const data = await app.data(
        `query($ids: [ID!], $name: String) { viewer {
          some: allUsers(where: { id: { in: $ids }, posts: { rating: { gte: 100 } } }) { edges { node { id } } }
          none: allUsers(where: { id: { in: $ids }, NOT: { posts: { rating: { gte: 100 } } } }) { edges { node { id } } }
          byAuthor: allPosts(where: { author: { username: { eq: $name } } }, orderBy: { field: rating }) { edges { node { rating } } }
        } }`,
        { ids: [top, low], name },
      );
      expect(data.viewer).toEqual({
        some: { edges: [{ node: { id: top } }] },
        none: { edges: [{ node: { id: low } }] },
        byAuthor: { edges: [{ node: { rating: 1 } }, { node: { rating: 100 } }] },
      });
    });
  });
});
