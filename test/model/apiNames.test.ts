// The names of the generated API: today's names where nothing clashes, and for every kind of
// made-up name a schema that takes it first — the schema is accepted, the declared name stays,
// the made-up one takes the number the rule in docs/api.md gives, and the built API is valid
// and uses it.

import { assertValidSchema, isInputObjectType, isObjectType } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildAppSchema } from '../../src/graphql/index.js';
import { ApiNames, parseSchema } from '../../src/model/index.js';

const BASE = `
type Post @model { title: String rating: Int author: User @relation(name: "PostAuthor") tags: [Tag] @relation(name: "PostTags") }
type Tag @model { label: String posts: [Post] @relation(name: "PostTags") }
type User @model { posts: [Post] @relation(name: "PostAuthor") home: Address }
type Address { street: String }
type PostTags @join(relation: "PostTags") { weight: Int }
enum Mood { HAPPY }
`;

describe('made-up names without a clash', () => {
  const names = ApiNames.of(parseSchema(BASE));

  it('are the names clients of the original service know', () => {
    expect([
      names.getter('Post'),
      names.list('Post'),
      names.mutation('create', 'Post'),
      names.edgeMutation('addTo', 'PostTags'),
      names.edgeMutation('removeFrom', 'PostTags'),
      names.subscribe('Post'),
      names.changed('Post'),
      names.changed('PostTags'),
    ]).toEqual(['getPost', 'allPosts', 'createPost', 'addToPostTagsConnection', 'removeFromPostTagsConnection', 'subscribeToPost', 'changedPost', 'changedPostTags']);
    expect([
      names.connection('Post'),
      names.edge('Post'),
      names.whereArgs('Post'),
      names.typeName('OrderByArgs', 'Post'),
      names.typeName('OrderByField', 'Post'),
      names.aggregations('Post'),
      names.aggregate('min', 'Post'),
      names.aggregate('avg', 'Post'),
      names.typeName('MutationEvent', 'Post'),
      names.typeName('SubscriptionFilter', 'Post'),
      names.subscriptionPayload('Post'),
      names.input('create', 'Post'),
      names.payload('delete', 'Post'),
      names.fieldWhereArgs('Post', 'id'),
      names.fieldWhereArgs('Post', 'title'),
      names.fieldSubscriptionFilterArgs('Post', 'title'),
      names.fieldWhereArgs('Post', 'authorId'),
      names.fieldWhereArgs('Post', 'tags'),
      names.relationConnection('Post', 'tags'),
      names.relationEdge('User', 'posts'),
      names.embeddedInput('Address'),
      names.edgeWhereArgs('PostTags'),
      names.joinFieldWhereArgs('PostTags', 'weight'),
      names.edgeInput('update', 'PostTags'),
      names.edgePayload('addTo', 'PostTags'),
    ]).toEqual([
      'PostConnection',
      'PostEdge',
      'PostWhereArgs',
      'PostOrderByArgs',
      'PostOrderByField',
      'PostAggregations',
      'PostMinAggregate',
      'PostAvgAggregate',
      'PostMutationEvent',
      'PostSubscriptionFilter',
      'PostSubscriptionPayload',
      'CreatePostInput',
      'DeletePostPayload',
      'PostIdWhereArgs',
      'PostTitleWhereArgs',
      'PostTitleSubscriptionFilterArgs',
      'PostAuthorIdWhereArgs',
      'PostTagsWhereArgs',
      'PostTagsConnection',
      'UserPostsEdge',
      'AddressInput',
      'PostTagsEdgeWhereArgs',
      'PostTagsWeightWhereArgs',
      'UpdatePostTagsConnectionInput',
      'AddToPostTagsConnectionPayload',
    ]);
    expect(names.entries().filter((e) => e.name !== e.wanted)).toEqual([]);
  });

  it('never repeat within a namespace', () => {
    const seen = new Set<string>();
    for (const e of names.entries()) {
      const key = `${e.namespace}:${e.name}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
});

/** A schema that takes a made-up name first, and where that name moves to. */
interface Clash {
  /** Declarations added to BASE. */
  sdl: string;
  /** Fields added to BASE's User. */
  userFields?: string;
  /** The made-up name, read from the names module. */
  read: (n: ApiNames) => string;
  moved: string;
  /** Where the built schema must show the moved name: a type, or `Type.field` holding it. */
  shownAt: string;
}

const declared = (name: string) => `type ${name} @model { x: Int }`;

const CLASHES: Record<string, Clash> = {
  'XConnection (a type is named PostConnection)': { sdl: declared('PostConnection'), read: (n) => n.connection('Post'), moved: 'Post2Connection', shownAt: 'Viewer.allPosts' },
  'XEdge (an embedded type is named PostEdge)': { sdl: 'type PostEdge { x: Int }', read: (n) => n.edge('Post'), moved: 'Post2Edge', shownAt: 'PostConnection.edges' },
  'XWhereArgs (an enum is named PostWhereArgs)': { sdl: 'enum PostWhereArgs { A }', read: (n) => n.whereArgs('Post'), moved: 'Post2WhereArgs', shownAt: 'Post2WhereArgs' },
  'XOrderByArgs': { sdl: declared('PostOrderByArgs'), read: (n) => n.typeName('OrderByArgs', 'Post'), moved: 'Post2OrderByArgs', shownAt: 'Post2OrderByArgs' },
  'XOrderByField': { sdl: declared('PostOrderByField'), read: (n) => n.typeName('OrderByField', 'Post'), moved: 'Post2OrderByField', shownAt: 'Post2OrderByField' },
  'XAggregations': { sdl: declared('PostAggregations'), read: (n) => n.aggregations('Post'), moved: 'Post2Aggregations', shownAt: 'PostConnection.aggregations' },
  'XMinAggregate': { sdl: declared('PostMinAggregate'), read: (n) => n.aggregate('min', 'Post'), moved: 'Post2MinAggregate', shownAt: 'PostAggregations.min' },
  'XSumAggregate': { sdl: declared('PostSumAggregate'), read: (n) => n.aggregate('sum', 'Post'), moved: 'Post2SumAggregate', shownAt: 'PostAggregations.sum' },
  'XMutationEvent': { sdl: declared('PostMutationEvent'), read: (n) => n.typeName('MutationEvent', 'Post'), moved: 'Post2MutationEvent', shownAt: 'Post2MutationEvent' },
  'XSubscriptionFilter': { sdl: declared('PostSubscriptionFilter'), read: (n) => n.typeName('SubscriptionFilter', 'Post'), moved: 'Post2SubscriptionFilter', shownAt: 'Post2SubscriptionFilter' },
  'XSubscriptionPayload': { sdl: declared('PostSubscriptionPayload'), read: (n) => n.subscriptionPayload('Post'), moved: 'Post2SubscriptionPayload', shownAt: 'Subscription.subscribeToPost' },
  'CreateXInput': { sdl: 'type CreatePostInput { x: Int }', read: (n) => n.input('create', 'Post'), moved: 'CreatePost2Input', shownAt: 'CreatePost2Input' },
  'UpdateXPayload': { sdl: declared('UpdatePostPayload'), read: (n) => n.payload('update', 'Post'), moved: 'UpdatePost2Payload', shownAt: 'Mutation.updatePost' },
  'X<System>WhereArgs': { sdl: declared('PostCreatedAtWhereArgs'), read: (n) => n.fieldWhereArgs('Post', 'createdAt'), moved: 'PostCreatedAt2WhereArgs', shownAt: 'PostWhereArgs.createdAt' },
  'X<Field>WhereArgs': { sdl: declared('PostTitleWhereArgs'), read: (n) => n.fieldWhereArgs('Post', 'title'), moved: 'PostTitle2WhereArgs', shownAt: 'PostWhereArgs.title' },
  'X<Field>SubscriptionFilterArgs (numbered with its field)': { sdl: declared('PostTitleSubscriptionFilterArgs'), read: (n) => n.fieldSubscriptionFilterArgs('Post', 'title'), moved: 'PostTitle2SubscriptionFilterArgs', shownAt: 'PostSubscriptionFilter.title' },
  'X<Relation>IdWhereArgs': { sdl: declared('PostAuthorIdWhereArgs'), read: (n) => n.fieldWhereArgs('Post', 'authorId'), moved: 'PostAuthorId2WhereArgs', shownAt: 'PostWhereArgs.authorId' },
  'X<List>Connection and X<List>Edge': { sdl: declared('UserPostsConnection'), read: (n) => `${n.relationConnection('User', 'posts')} ${n.relationEdge('User', 'posts')}`, moved: 'UserPosts2Connection UserPosts2Edge', shownAt: 'User.posts' },
  'X<ManyToMany>WhereArgs': { sdl: declared('PostTagsWhereArgs'), read: (n) => n.fieldWhereArgs('Post', 'tags'), moved: 'PostTags2WhereArgs', shownAt: 'PostWhereArgs.tags' },
  EInput: { sdl: 'enum AddressInput { A }', read: (n) => n.embeddedInput('Address'), moved: 'Address2Input', shownAt: 'CreateUserInput.home' },
  'REdgeWhereArgs': { sdl: declared('PostTagsEdgeWhereArgs'), read: (n) => n.edgeWhereArgs('PostTags'), moved: 'PostTags2EdgeWhereArgs', shownAt: 'PostTags2EdgeWhereArgs' },
  'AddToRConnectionInput': { sdl: declared('AddToPostTagsConnectionInput'), read: (n) => n.edgeInput('addTo', 'PostTags'), moved: 'AddToPostTags2ConnectionInput', shownAt: 'AddToPostTags2ConnectionInput' },
  'RemoveFromRConnectionPayload': { sdl: declared('RemoveFromPostTagsConnectionPayload'), read: (n) => n.edgePayload('removeFrom', 'PostTags'), moved: 'RemoveFromPostTags2ConnectionPayload', shownAt: 'Mutation.removeFromPostTagsConnection' },
  'R<Join>WhereArgs': { sdl: declared('PostTagsWeightWhereArgs'), read: (n) => n.joinFieldWhereArgs('PostTags', 'weight'), moved: 'PostTagsWeight2WhereArgs', shownAt: 'PostTagsEdgeWhereArgs.weight' },
  // Two made-up names: the type's own wins over the field's.
  'a type UserMeta beside a list field User.meta': {
    sdl: 'type UserMeta @model { key: String owner: User @relation(name: "UserMetas") }',
    userFields: 'meta: [UserMeta] @relation(name: "UserMetas")',
    read: (n) => `${n.relationConnection('User', 'meta')} ${n.relationEdge('User', 'meta')} ${n.connection('UserMeta')}`,
    moved: 'UserMeta2Connection UserMeta2Edge UserMetaConnection',
    shownAt: 'User.meta',
  },
  // Root fields: two types with one plural, a mutation and a payload field.
  'all<Plural> (Datum and Data share the plural Data)': { sdl: 'type Datum @model { x: Int }\ntype Data @model { y: Int }', read: (n) => `${n.list('Data')} ${n.list('Datum')}`, moved: 'allData allData2', shownAt: 'Viewer.allData2' },
  'update<R>Connection (a type named PostTagsConnection)': { sdl: declared('PostTagsConnection'), read: (n) => `${n.mutation('update', 'PostTagsConnection')} ${n.edgeMutation('update', 'PostTags')}`, moved: 'updatePostTagsConnection updatePostTags2Connection', shownAt: 'Mutation.updatePostTags2Connection' },
  'changedX (a type named Edge)': { sdl: declared('Edge'), read: (n) => n.changed('Edge'), moved: 'changedEdge2', shownAt: 'CreateEdgePayload.changedEdge2' },
};

/** The schema's type `name`, or the type of field `Type.field`. */
function shown(schema: GraphQLSchema, at: string): string | undefined {
  const [typeName, fieldName] = at.split('.');
  const type = schema.getType(typeName ?? '');
  if (fieldName === undefined) return type?.name;
  if (isObjectType(type) || isInputObjectType(type)) return type.getFields()[fieldName]?.type.toString();
  return undefined;
}

describe('a schema that takes a made-up name first', () => {
  it.each(Object.entries(CLASHES))('%s', (_, clash) => {
    const base = clash.userFields ? BASE.replace('home: Address }', `home: Address ${clash.userFields} }`) : BASE;
    const model = parseSchema(`${base}\n${clash.sdl}`);
    expect(clash.read(ApiNames.of(model))).toBe(clash.moved);
    const schema = buildAppSchema(model);
    expect(() => assertValidSchema(schema)).not.toThrow();
    const at = shown(schema, clash.shownAt);
    expect(at, `${clash.shownAt} in the built schema`).toBeDefined();
    // The moved name is what the schema shows there (a type's own name, or in a field's type).
    const fieldName = clash.shownAt.split('.')[1];
    expect(clash.moved.split(' ').some((name) => at === name || at?.replace(/[[\]!]/g, '') === name || fieldName === name)).toBe(true);
  });
});
