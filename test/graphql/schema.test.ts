// Tests of the app schema generator: the demo app's printed, sorted schema as a golden file
// (`blog.schema.graphql`, regenerate with `vitest -u`), validity on edge-case models, the names
// clients rely on, the custom scalars and the schema cache.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLObjectType,
  Kind,
  assertValidSchema,
  getNamedType,
  isInputObjectType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isSpecifiedScalarType,
  lexicographicSortSchema,
  parse,
  parseValue,
  printSchema,
  validate,
} from 'graphql';
import type { GraphQLInputType, GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DateTimeScalar, JSONScalar, SCHEMA_CACHE_SIZE, TextScalar, appSchema, buildAppSchema, parseDateTimeInput } from '../../src/graphql/index.js';
import { API_TYPE_NAMES, ApiNames, declaredNames, parseSchema } from '../../src/model/index.js';

const blogSdl = readFileSync(join(import.meta.dirname, '../../examples/blog/schema.graphql'), 'utf8');
const blog = buildAppSchema(parseSchema(blogSdl));

/** `Type.field` of an object, interface or input type, as SDL (`[Image]!`); undefined when absent. */
function fieldType(schema: GraphQLSchema, path: string): string | undefined {
  const [typeName = '', fieldName = ''] = path.split('.');
  const type = schema.getType(typeName);
  if (!(type instanceof GraphQLObjectType || type instanceof GraphQLInterfaceType || type instanceof GraphQLInputObjectType)) {
    throw new Error(`${typeName} is not a type with fields`);
  }
  const field = type.getFields()[fieldName];
  return field ? String(field.type) : undefined;
}

function fieldNames(schema: GraphQLSchema, typeName: string): string[] {
  const type = schema.getType(typeName);
  if (!(type instanceof GraphQLObjectType || type instanceof GraphQLInterfaceType || type instanceof GraphQLInputObjectType)) {
    throw new Error(`${typeName} is not a type with fields`);
  }
  return Object.keys(type.getFields()).sort();
}

function args(schema: GraphQLSchema, path: string): Record<string, string> {
  const [typeName = '', fieldName = ''] = path.split('.');
  const type = schema.getType(typeName);
  if (!(type instanceof GraphQLObjectType)) throw new Error(`${typeName} is not an object type`);
  const field = type.getFields()[fieldName];
  if (!field) throw new Error(`no field ${path}`);
  return Object.fromEntries(field.args.map((a) => [a.name, String(a.type)]));
}

function enumValues(schema: GraphQLSchema, name: string): string[] {
  const type = schema.getType(name);
  if (!(type instanceof GraphQLEnumType)) throw new Error(`${name} is not an enum`);
  return type.getValues().map((v) => v.name);
}

const EDGE_CASES: Record<string, string> = {
  'no numeric fields': 'type Tag @model { name: String! note: Text }',
  'self many-to-many with join fields': `
    type Person @model { name: String knows: [Person] @relation(name: "Knows") }
    type Knows @join(relation: "Knows") { since: DateTime! weight: Float @default(value: 1.5) labels: [String] mood: Mood }
    enum Mood { GOOD BAD }`,
  'two fields of one type in one many-to-many': `
    type User @model { following: [User] @relation(name: "Follows") followers: [User] @relation(name: "Follows") }
    type Follows @join(relation: "Follows") { muted: Boolean }`,
  'embedded in embedded, and lists': `
    type Place @model { address: Address! history: [Address] meta: JSON data: [JSON] moods: [Mood] scores: [Int] }
    type Address { street: String! geo: Geo lines: [String] previous: [Address] }
    type Geo { lat: Float! lng: Float! tags: [Label] }
    type Label { text: String }
    enum Mood { GOOD BAD }`,
  'one-to-one and plurals': `
    type Country @model { name: String! capital: City @relation(name: "CountryCapital") }
    type City @model { name: String! capitalOf: Country @relation(name: "CountryCapital") }
    type Person @model { age: Int }`,
};

describe('the demo app schema', () => {
  it('matches the golden file', async () => {
    const printed = `${printSchema(lexicographicSortSchema(blog))}\n`;
    await expect(printed).toMatchFileSnapshot(join(import.meta.dirname, 'blog.schema.graphql'));
  });

  it('is valid', () => {
    expect(() => assertValidSchema(blog)).not.toThrow();
  });

  it('takes every name it makes up from the names module: declared, fixed or made up there', () => {
    for (const sdl of [blogSdl, ...Object.values(EDGE_CASES)]) {
      const model = parseSchema(sdl);
      const known = new Set([...API_TYPE_NAMES, ...declaredNames(model).map((n) => n.name), ...ApiNames.of(model).entries().map((n) => n.name)]);
      const used = Object.values(buildAppSchema(model).getTypeMap()).filter((t) => !isIntrospectionType(t) && !isSpecifiedScalarType(t));
      // Operator inputs of enums and embedded types are named after their declared type.
      expect(used.map((t) => t.name).filter((name) => !known.has(name))).toEqual([]);
    }
  });
});

describe('edge-case models', () => {
  it.each(Object.entries(EDGE_CASES))('%s gives a valid schema', (_, sdl) => {
    expect(() => assertValidSchema(buildAppSchema(parseSchema(sdl)))).not.toThrow();
  });

  it('leaves out sum and avg when a type has no number fields', () => {
    const schema = buildAppSchema(parseSchema(EDGE_CASES['no numeric fields'] ?? ''));
    expect(fieldNames(schema, 'TagAggregations')).toEqual(['count', 'max', 'min']);
    expect(schema.getType('TagSumAggregate')).toBeUndefined();
    expect(fieldNames(schema, 'TagMinAggregate')).toEqual(['createdAt', 'modifiedAt', 'name']);
    expect(enumValues(schema, 'TagOrderByField')).toEqual(['id', 'createdAt', 'modifiedAt', 'name', 'note']);
  });

  it('puts join fields on the edges, the join object and the edge mutations of a self many-to-many', () => {
    const schema = buildAppSchema(parseSchema(EDGE_CASES['self many-to-many with join fields'] ?? ''));
    expect(fieldNames(schema, 'PersonKnowsEdge')).toEqual(['cursor', 'labels', 'mood', 'node', 'since', 'weight']);
    expect(fieldType(schema, 'PersonKnowsEdge.since')).toBe('DateTime!');
    expect(fieldNames(schema, 'Knows')).toEqual(['labels', 'mood', 'person1', 'person2', 'since', 'weight']);
    expect(fieldType(schema, 'AddToKnowsConnectionInput.since')).toBe('DateTime!');
    expect(fieldType(schema, 'AddToKnowsConnectionInput.weight')).toBe('Float');
    expect(fieldType(schema, 'UpdateKnowsConnectionInput.since')).toBe('DateTime');
    expect(fieldNames(schema, 'RemoveFromKnowsConnectionInput')).toEqual(['clientMutationId', 'person1Id', 'person2Id']);
    expect(fieldNames(schema, 'KnowsEdgeWhereArgs')).toEqual(['AND', 'NOT', 'OR', 'labels', 'mood', 'since', 'weight']);
    expect(fieldNames(schema, 'KnowsLabelsWhereArgs')).toEqual(['isNull']);
    expect(fieldNames(schema, 'KnowsMoodWhereArgs')).toEqual(['eq', 'in', 'isNull', 'ne', 'notIn']);
  });

  it('names the ends of a many-to-many between two fields of one type 1 and 2', () => {
    const schema = buildAppSchema(parseSchema(EDGE_CASES['two fields of one type in one many-to-many'] ?? ''));
    expect(fieldNames(schema, 'Follows')).toEqual(['muted', 'user1', 'user2']);
    expect(fieldType(schema, 'UserFollowingEdge.muted')).toBe('Boolean');
    expect(fieldType(schema, 'UserFollowersEdge.muted')).toBe('Boolean');
    expect(fieldType(schema, 'UserWhereArgs.following')).toBe('UserFollowingWhereArgs');
    expect(fieldType(schema, 'UserFollowersWhereArgs.edge')).toBe('FollowsEdgeWhereArgs');
    expect(fieldNames(schema, 'FollowsMutedWhereArgs')).toEqual(['eq', 'isNull', 'ne']);
  });

  it('types embedded values, nested ones and lists in output, input and filters', () => {
    const schema = buildAppSchema(parseSchema(EDGE_CASES['embedded in embedded, and lists'] ?? ''));
    expect(fieldType(schema, 'Place.address')).toBe('Address!');
    expect(fieldType(schema, 'Place.history')).toBe('[Address]');
    expect(fieldType(schema, 'Place.data')).toBe('[JSON]');
    expect(fieldType(schema, 'Address.geo')).toBe('Geo');
    expect(fieldType(schema, 'Geo.tags')).toBe('[Label]');
    expect(fieldType(schema, 'AddressInput.street')).toBe('String!');
    expect(fieldType(schema, 'AddressInput.geo')).toBe('GeoInput');
    expect(fieldType(schema, 'AddressInput.previous')).toBe('[AddressInput]');
    expect(fieldType(schema, 'GeoInput.lat')).toBe('Float!');
    expect(fieldType(schema, 'CreatePlaceInput.address')).toBe('AddressInput!');
    expect(fieldType(schema, 'CreatePlaceInput.moods')).toBe('[Mood]');
    expect(fieldType(schema, 'UpdatePlaceInput.address')).toBe('AddressInput');
    for (const f of ['Address', 'History', 'Meta', 'Data', 'Moods', 'Scores']) expect(fieldNames(schema, `Place${f}WhereArgs`)).toEqual(['isNull']);
    expect(enumValues(schema, 'PlaceOrderByField')).toEqual(['id', 'createdAt', 'modifiedAt']);
    expect(fieldNames(schema, 'PlaceMinAggregate')).toEqual(['createdAt', 'modifiedAt']);
    expect(schema.getType('PlaceSumAggregate')).toBeUndefined();
  });

  it('gives both sides of a one-to-one relation an id filter and an id input', () => {
    const schema = buildAppSchema(parseSchema(EDGE_CASES['one-to-one and plurals'] ?? ''));
    expect(fieldType(schema, 'CountryWhereArgs.capitalId')).toBe('CountryCapitalIdWhereArgs');
    expect(fieldType(schema, 'CityWhereArgs.capitalOfId')).toBe('CityCapitalOfIdWhereArgs');
    expect(fieldType(schema, 'UpdateCityInput.capitalOfId')).toBe('ID');
    expect(fieldType(schema, 'Viewer.allCities')).toBe('CityConnection');
    expect(fieldType(schema, 'Viewer.allPeople')).toBe('PersonConnection');
    expect(fieldNames(schema, 'PersonSumAggregate')).toEqual(['age']);
    expect(fieldType(schema, 'PersonAvgAggregate.age')).toBe('Float');
    expect(fieldType(schema, 'PersonMaxAggregate.age')).toBe('Int');
  });
});

describe('names clients rely on', () => {
  it('has the root fields and connections', () => {
    expect(args(blog, 'Query.getPost')).toEqual({ id: 'ID!' });
    expect(fieldType(blog, 'Query.getPost')).toBe('Post');
    expect(fieldType(blog, 'Query.node')).toBe('Node');
    expect(fieldType(blog, 'Query.viewer')).toBe('Viewer');
    expect(args(blog, 'Viewer.allPosts')).toEqual({
      where: 'PostWhereArgs',
      orderBy: '[PostOrderByArgs]',
      first: 'Int',
      after: 'String',
      last: 'Int',
      before: 'String',
    });
    expect(fieldType(blog, 'Viewer.allPosts')).toBe('PostConnection');
    expect(fieldNames(blog, 'PostConnection')).toEqual(['aggregations', 'edges', 'pageInfo']);
    expect(fieldType(blog, 'PostConnection.edges')).toBe('[PostEdge]');
    expect(fieldType(blog, 'User.posts')).toBe('UserPostsConnection');
    expect(fieldType(blog, 'UserPostsConnection.aggregations')).toBe('PostAggregations');
    expect(fieldType(blog, 'UserFriendsEdge.status')).toBe('FriendshipStatus!');
    expect(fieldType(blog, 'UserRolesEdge.accessLevel')).toBe('AccessLevel');
    expect(fieldType(blog, 'RoleMembersEdge.node')).toBe('User');
    expect(fieldNames(blog, 'PostSumAggregate')).toEqual(['rating']);
    expect(args(blog, 'User.posts')).toEqual({ where: 'PostWhereArgs', orderBy: '[PostOrderByArgs]', first: 'Int', after: 'String', last: 'Int', before: 'String' });
    expect(args(blog, 'Subscription.subscribeToPost')).toEqual({ mutations: '[PostMutationEvent]!', filter: 'PostSubscriptionFilter' });
  });

  it('types no list item non-null in any argument or input field, as the original service did', () => {
    const nonNullItems: string[] = [];
    const check = (where: string, type: GraphQLInputType) => {
      const list = isNonNullType(type) ? type.ofType : type;
      if (isListType(list) && isNonNullType(list.ofType)) nonNullItems.push(`${where}: ${String(type)}`);
    };
    for (const type of Object.values(blog.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isObjectType(type)) for (const field of Object.values(type.getFields())) for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.type);
      if (isInputObjectType(type)) for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.type);
    }
    expect(nonNullItems).toEqual([]);
  });

  it('never shows the write-only password except in inputs', () => {
    for (const type of ['User', 'UserWhereArgs', 'UserMinAggregate', 'UserMaxAggregate']) expect(fieldNames(blog, type)).not.toContain('password');
    expect(enumValues(blog, 'UserOrderByField')).not.toContain('password');
    expect(enumValues(blog, 'PostOrderByField')).toEqual(['id', 'createdAt', 'modifiedAt', 'title', 'slug', 'body', 'status', 'publishedAt', 'rating', 'internalNotes']);
    expect(fieldType(blog, 'CreateUserInput.password')).toBe('String!');
    expect(fieldType(blog, 'UpdateUserInput.password')).toBe('String');
  });

  it('has the mutation inputs and payloads', () => {
    const addFriend = blog.getMutationType()?.getFields().addToFriendshipConnection;
    const input = addFriend && getNamedType(addFriend.args[0]?.type);
    expect(input?.name).toBe('AddToFriendshipConnectionInput');
    expect(fieldNames(blog, 'AddToFriendshipConnectionInput')).toEqual(['clientMutationId', 'since', 'status', 'user1Id', 'user2Id']);
    expect(fieldNames(blog, 'AddToFriendshipConnectionPayload')).toEqual(['changedFriendship', 'clientMutationId', 'user1', 'user2', 'viewer']);
    expect(fieldNames(blog, 'RemoveFromUserEditsConnectionPayload')).toEqual(['changedUserEdits', 'clientMutationId', 'post', 'user', 'viewer']);
    expect(fieldType(blog, 'CreatePostInput.authorId')).toBe('ID');
    expect(fieldType(blog, 'CreatePostInput.author')).toBe('CreateUserInput');
    expect(fieldType(blog, 'CreatePostInput.editors')).toBe('[CreateUserInput]');
    expect(fieldType(blog, 'CreatePostInput.title')).toBe('String!');
    expect(fieldType(blog, 'CreatePostInput.status')).toBe('PostStatus');
    expect(fieldType(blog, 'UpdatePostInput.id')).toBe('ID!');
    expect(fieldType(blog, 'UpdatePostInput.authorId')).toBe('ID');
    expect(fieldType(blog, 'UpdatePostInput.author')).toBeUndefined();
    expect(fieldNames(blog, 'DeletePostInput')).toEqual(['clientMutationId', 'id']);
    expect(fieldNames(blog, 'CreatePostPayload')).toEqual(['changedEdge', 'changedPost', 'clientMutationId', 'viewer']);
    expect(fieldType(blog, 'CreateUserPayload.token')).toBe('String');
    expect(fieldType(blog, 'CreateUserPayload.refreshToken')).toBe('String');
    expect(fieldType(blog, 'UpdateUserPayload.token')).toBeUndefined();
    expect(fieldType(blog, 'UpdateUserPayload.refreshToken')).toBeUndefined();
    const mutations = blog.getMutationType()?.getFields() ?? {};
    expect(String(mutations.loginUser?.type)).toBe('LoginUserPayload');
    expect(Object.keys((blog.getType('LoginUserInput') as GraphQLInputObjectType).getFields())).toEqual(['username', 'password', 'totpCode', 'clientMutationId']);
    expect(Object.keys((blog.getType('LoginUserPayload') as GraphQLObjectType).getFields())).toEqual(['token', 'refreshToken', 'user', 'viewer', 'clientMutationId']);
    expect(Object.keys((blog.getType('ChangeUserPasswordInput') as GraphQLInputObjectType).getFields())).toEqual(['id', 'oldPassword', 'newPassword', 'clientMutationId']);
    expect(String(mutations.changeUserPassword?.type)).toBe('ChangeUserPasswordPayload');
    expect(String(mutations.refreshUserToken?.type)).toBe('RefreshUserTokenPayload');
    expect(Object.keys((blog.getType('RefreshUserTokenInput') as GraphQLInputObjectType).getFields())).toEqual(['refreshToken', 'clientMutationId']);
    expect(Object.keys((blog.getType('RefreshUserTokenPayload') as GraphQLObjectType).getFields())).toEqual(['token', 'refreshToken', 'user', 'viewer', 'clientMutationId']);
    expect(String(mutations.logoutUser?.type)).toBe('LogoutUserPayload');
    expect(Object.keys((blog.getType('LogoutUserInput') as GraphQLInputObjectType).getFields())).toEqual(['refreshToken', 'allSessions', 'userId', 'clientMutationId']);
    expect(Object.keys((blog.getType('LogoutUserPayload') as GraphQLObjectType).getFields())).toEqual(['endedSessions', 'clientMutationId']);
    expect(Object.keys((blog.getType('RequestEmailVerificationInput') as GraphQLInputObjectType).getFields())).toEqual(['userId', 'clientMutationId']);
    expect(Object.keys((blog.getType('VerifyEmailInput') as GraphQLInputObjectType).getFields())).toEqual(['token', 'clientMutationId']);
    expect(Object.keys((blog.getType('VerifyEmailPayload') as GraphQLObjectType).getFields())).toEqual(['user', 'clientMutationId']);
    expect(Object.keys((blog.getType('RequestPasswordResetInput') as GraphQLInputObjectType).getFields())).toEqual(['email', 'clientMutationId']);
    expect(Object.keys((blog.getType('ResetPasswordInput') as GraphQLInputObjectType).getFields())).toEqual(['token', 'newPassword', 'clientMutationId']);
    expect(fieldType(blog, 'User.email')).toBe('String');
    expect(fieldType(blog, 'User.emailVerified')).toBe('Boolean!');
    expect(fieldType(blog, 'CreateUserInput.email')).toBe('String');
    expect(fieldType(blog, 'CreateUserInput.emailVerified')).toBeUndefined();
  });

  it('has two-factor login: enrollTotp, confirmTotp, disableTotp, loginUser(totpCode) and viewer.twoFactorEnabled', () => {
    const mutations = blog.getMutationType()?.getFields() ?? {};
    expect(args(blog, 'Mutation.enrollTotp')).toEqual({ input: 'EnrollTotpInput!' });
    expect(String(mutations.enrollTotp?.type)).toBe('EnrollTotpPayload');
    expect(Object.keys((blog.getType('EnrollTotpInput') as GraphQLInputObjectType).getFields())).toEqual(['clientMutationId']);
    expect(Object.keys((blog.getType('EnrollTotpPayload') as GraphQLObjectType).getFields())).toEqual(['secret', 'otpauthUri', 'clientMutationId']);
    expect(fieldType(blog, 'EnrollTotpPayload.secret')).toBe('String!');
    expect(fieldType(blog, 'EnrollTotpPayload.otpauthUri')).toBe('String!');
    expect(args(blog, 'Mutation.confirmTotp')).toEqual({ input: 'ConfirmTotpInput!' });
    expect(String(mutations.confirmTotp?.type)).toBe('ConfirmTotpPayload');
    expect(Object.keys((blog.getType('ConfirmTotpInput') as GraphQLInputObjectType).getFields())).toEqual(['code', 'clientMutationId']);
    expect(fieldType(blog, 'ConfirmTotpInput.code')).toBe('String!');
    expect(Object.keys((blog.getType('ConfirmTotpPayload') as GraphQLObjectType).getFields())).toEqual(['recoveryCodes', 'clientMutationId']);
    expect(fieldType(blog, 'ConfirmTotpPayload.recoveryCodes')).toBe('[String!]!');
    expect(args(blog, 'Mutation.disableTotp')).toEqual({ input: 'DisableTotpInput!' });
    expect(String(mutations.disableTotp?.type)).toBe('DisableTotpPayload');
    expect(Object.keys((blog.getType('DisableTotpInput') as GraphQLInputObjectType).getFields())).toEqual(['code', 'userId', 'clientMutationId']);
    expect(fieldType(blog, 'DisableTotpInput.code')).toBe('String');
    expect(fieldType(blog, 'DisableTotpInput.userId')).toBe('ID');
    expect(Object.keys((blog.getType('DisableTotpPayload') as GraphQLObjectType).getFields())).toEqual(['disabled', 'clientMutationId']);
    expect(fieldType(blog, 'DisableTotpPayload.disabled')).toBe('Boolean!');
    expect(fieldType(blog, 'LoginUserInput.totpCode')).toBe('String');
    expect(fieldType(blog, 'Viewer.twoFactorEnabled')).toBe('Boolean');
    for (const name of ['EnrollTotpInput', 'EnrollTotpPayload', 'ConfirmTotpInput', 'ConfirmTotpPayload', 'DisableTotpInput', 'DisableTotpPayload']) expect(API_TYPE_NAMES).toContain(name);
    expect(String(mutations.loginUserWithOidc?.type)).toBe('LoginUserWithOidcPayload');
    expect(args(blog, 'Mutation.loginUserWithOidc')).toEqual({ input: 'LoginUserWithOidcInput!' });
    expect(Object.keys((blog.getType('LoginUserWithOidcInput') as GraphQLInputObjectType).getFields())).toEqual(['provider', 'code', 'codeVerifier', 'redirectUri', 'nonce', 'totpCode', 'clientMutationId']);
    expect(fieldType(blog, 'LoginUserWithOidcInput.codeVerifier')).toBe('String!');
    expect(fieldType(blog, 'LoginUserWithOidcInput.nonce')).toBe('String');
    expect(fieldType(blog, 'LoginUserWithOidcInput.totpCode')).toBe('String');
    expect(Object.keys((blog.getType('LoginUserWithOidcPayload') as GraphQLObjectType).getFields())).toEqual(['token', 'refreshToken', 'user', 'newUser', 'viewer', 'clientMutationId']);
    expect(String(mutations.linkOidcIdentity?.type)).toBe('LinkOidcIdentityPayload');
    expect(Object.keys((blog.getType('LinkOidcIdentityInput') as GraphQLInputObjectType).getFields())).toEqual(['provider', 'code', 'codeVerifier', 'redirectUri', 'nonce', 'clientMutationId']);
    expect(Object.keys((blog.getType('LinkOidcIdentityPayload') as GraphQLObjectType).getFields())).toEqual(['user', 'viewer', 'clientMutationId']);
    expect(String(mutations.unlinkOidcIdentity?.type)).toBe('UnlinkOidcIdentityPayload');
    expect(Object.keys((blog.getType('UnlinkOidcIdentityInput') as GraphQLInputObjectType).getFields())).toEqual(['provider', 'clientMutationId']);
    expect(Object.keys((blog.getType('UnlinkOidcIdentityPayload') as GraphQLObjectType).getFields())).toEqual(['unlinkedIdentities', 'user', 'viewer', 'clientMutationId']);
  });

  it('has subscribeToX for every model type with its events, filter and payload', () => {
    const subscriptions = blog.getSubscriptionType()?.getFields() ?? {};
    expect(Object.keys(subscriptions)).toEqual(expect.arrayContaining(['subscribeToPost', 'subscribeToUser', 'subscribeToRole']));
    const post = subscriptions.subscribeToPost;
    expect(String(post?.type)).toBe('PostSubscriptionPayload');
    expect(post?.args.map((a) => `${a.name}: ${String(a.type)}`)).toEqual(['mutations: [PostMutationEvent]!', 'filter: PostSubscriptionFilter']);
    expect(enumValues(blog, 'PostMutationEvent')).toEqual(['createPost', 'updatePost', 'deletePost']);
    expect(enumValues(blog, 'UserMutationEvent')).toEqual(['createUser', 'updateUser', 'deleteUser', 'loginUser']);
    expect(fieldNames(blog, 'PostSubscriptionPayload')).toEqual(['edge', 'mutation', 'value']);
    expect(fieldType(blog, 'PostSubscriptionPayload.mutation')).toBe('PostMutationEvent!');
    expect(fieldType(blog, 'PostSubscriptionPayload.value')).toBe('Post');
    expect(fieldType(blog, 'PostSubscriptionPayload.edge')).toBe('PostEdge');
    expect(fieldType(blog, 'PostSubscriptionFilter.title')).toBe('PostTitleSubscriptionFilterArgs');
    expect(fieldNames(blog, 'PostTitleSubscriptionFilterArgs')).toEqual(expect.arrayContaining(['eq', 'like', 'matches', 'notMatches']));
    expect(fieldType(blog, 'PostSubscriptionFilter.rating')).toBe('PostRatingWhereArgs');
    expect(fieldType(blog, 'PostSubscriptionFilter.authorId')).toBe('PostAuthorIdWhereArgs');
    expect(fieldNames(blog, 'PostSubscriptionFilter')).not.toContain('author');
    expect(fieldNames(blog, 'UserSubscriptionFilter')).not.toContain('password');
    expect(fieldNames(blog, 'PostSubscriptionFilter')).toEqual(expect.arrayContaining(['AND', 'OR', 'NOT', 'id', 'createdAt']));
  });

  it('has the filters and orders', () => {
    expect(fieldType(blog, 'PostWhereArgs.authorId')).toBe('PostAuthorIdWhereArgs');
    expect(fieldType(blog, 'PostWhereArgs.author')).toBe('UserWhereArgs');
    expect(fieldType(blog, 'UserWhereArgs.posts')).toBe('PostWhereArgs');
    expect(fieldType(blog, 'PostEditorsWhereArgs.edge')).toBe('UserEditsEdgeWhereArgs');
    expect(fieldType(blog, 'PostEditorsWhereArgs.node')).toBe('UserWhereArgs');
    expect(fieldType(blog, 'FriendshipEdgeWhereArgs.status')).toBe('FriendshipStatusWhereArgs');
    expect(fieldNames(blog, 'PostAuthorIdWhereArgs')).toEqual(['eq', 'in', 'isNull', 'ne', 'notIn']);
    expect(fieldType(blog, 'PostTitleWhereArgs.between')).toBe('[String]');
    expect(fieldType(blog, 'PostTitleWhereArgs.like')).toBe('String');
    expect(fieldType(blog, 'PostRatingWhereArgs.like')).toBeUndefined();
    expect(fieldType(blog, 'PostCreatedAtWhereArgs.gte')).toBe('DateTime');
    expect(fieldType(blog, 'PostWhereArgs.AND')).toBe('[PostWhereArgs]');
    expect(fieldType(blog, 'PostWhereArgs.NOT')).toBe('PostWhereArgs');
    expect(fieldType(blog, 'PostOrderByArgs.field')).toBe('PostOrderByField!');
    expect(fieldType(blog, 'PostOrderByArgs.direction')).toBe('OrderDirection');
  });

  it('validates a query a client would send', () => {
    const query = `query ($after: String, $since: DateTime) {
      viewer {
        user { username }
        allPosts(where: { title: { like: "%graphql%" }, publishedAt: { gte: "2017" }, OR: [{ status: { eq: PUBLISHED } }, { authorId: { in: ["x"] } }] },
                 orderBy: { field: publishedAt, direction: DESC }, first: 10, after: $after) {
          edges { cursor node { id title cover { url } tags author { username } editors(first: 3) { edges { node { id } } } } }
          pageInfo { hasNextPage endCursor }
          aggregations { count min { publishedAt } avg { rating } }
        }
      }
      me: getUser(id: "x") { friends(where: { username: { like: "a%" } }) { edges { status since node { username } } } }
      friendly: viewer { allUsers(where: { friends: { edge: { status: { eq: ACCEPTED }, since: { gt: $since } }, node: { username: { eq: "ann" } } } }) { edges { node { id } } } }
    }`;
    expect(validate(blog, parse(query)).map((e) => e.message)).toEqual([]);
    const mutation = `mutation {
      createPost(input: { title: "t", slug: "s", tags: ["a"], cover: { url: "u" }, author: { username: "u", password: "p" }, editors: [{ username: "e", password: "p" }] }) {
        changedPost { id } changedEdge { cursor } viewer { id } clientMutationId
      }
      addToFriendshipConnection(input: { user1Id: "a", user2Id: "b", status: ACCEPTED, since: "2017-03" }) { changedFriendship { status user1 { id } user2 { id } } }
    }`;
    expect(validate(blog, parse(mutation)).map((e) => e.message)).toEqual([]);
    const [badDate, ...more] = validate(blog, parse('{ viewer { allPosts(where: { publishedAt: { gte: "soon" } }) { edges { cursor } } } }'));
    expect(more).toEqual([]);
    expect(badDate?.message).toMatch(/^DateTime must be an ISO 8601 date-time such as 2016-12-08T12:33:56.000Z \(got "soon"\)$/);
    expect(badDate?.locations).toEqual([{ line: 1, column: 50 }]);
    expect(validate(blog, parse('{ getUser(id: "x") { password } }'))).toHaveLength(1);
  });
});

describe('scalars', () => {
  it('normalises full and partial DateTime inputs', () => {
    expect(parseDateTimeInput('2017')).toBe('2017-01-01T00:00:00.000Z');
    expect(parseDateTimeInput('2017-03')).toBe('2017-03-01T00:00:00.000Z');
    expect(parseDateTimeInput('2017-03-05')).toBe('2017-03-05T00:00:00.000Z');
    expect(parseDateTimeInput('2017-03-05T10:00')).toBe('2017-03-05T10:00:00.000Z');
    expect(parseDateTimeInput('2016-12-08T12:33:56.5+01:00')).toBe('2016-12-08T11:33:56.500Z');
    expect(parseDateTimeInput('2016-12-08T12:33:56.000Z')).toBe('2016-12-08T12:33:56.000Z');
    expect(DateTimeScalar.parseValue('2017-03')).toBe('2017-03-01T00:00:00.000Z');
    expect(DateTimeScalar.parseLiteral(parseValue('"2017"'), undefined)).toBe('2017-01-01T00:00:00.000Z');
    expect(DateTimeScalar.serialize('2016-12-08T12:33:56.000Z')).toBe('2016-12-08T12:33:56.000Z');
    expect(DateTimeScalar.serialize(new Date(Date.UTC(2017, 0, 1)))).toBe('2017-01-01T00:00:00.000Z');
  });

  it('rejects anything else', () => {
    for (const bad of ['', 'soon', '17', '2017-13', '2017-02-30', '2017-03-05T25:00', '2017/03/05', ' 2017', '2017-3']) {
      expect(parseDateTimeInput(bad), bad).toBeUndefined();
      expect(() => DateTimeScalar.parseValue(bad)).toThrow(/DateTime must be an ISO 8601 date-time such as 2016-12-08T12:33:56.000Z/);
    }
    for (const bad of [2017, null, {}, true]) expect(() => DateTimeScalar.parseValue(bad)).toThrow(GraphQLError);
    expect(() => DateTimeScalar.parseLiteral(parseValue('2017'), undefined)).toThrow(/DateTime must be an ISO 8601 date-time/);
  });

  it('parses JSON literals of any shape, variables included', () => {
    const literal = parseValue('{ a: [1, 2.5, "x", true, null], b: { c: $v }, d: ENUMISH }');
    expect(JSONScalar.parseLiteral(literal, { v: { deep: [1] } })).toEqual({ a: [1, 2.5, 'x', true, null], b: { c: { deep: [1] } }, d: 'ENUMISH' });
    expect(JSONScalar.parseLiteral(parseValue('42'), undefined)).toBe(42);
    expect(JSONScalar.parseValue({ any: ['thing'] })).toEqual({ any: ['thing'] });
    expect(JSONScalar.serialize([1, { a: 2 }])).toEqual([1, { a: 2 }]);
  });

  it('treats Text as a string', () => {
    expect(TextScalar.parseValue('long text')).toBe('long text');
    expect(TextScalar.parseLiteral({ kind: Kind.STRING, value: 'x' }, undefined)).toBe('x');
    expect(() => TextScalar.parseValue(5)).toThrow(GraphQLError);
    expect(() => TextScalar.parseLiteral(parseValue('5'), undefined)).toThrow(GraphQLError);
    expect(TextScalar.serialize('x')).toBe('x');
  });
});

describe('appSchema', () => {
  // Identity checks as booleans: vitest's toBe deep-compares objects that differ, and a schema is a large cyclic graph.
  const same = (a: GraphQLSchema, b: GraphQLSchema) => a === b;

  it('returns the same schema for the same app version and a new one for a new version', () => {
    const model = parseSchema(blogSdl);
    const v1 = appSchema('cache-test', 1, model);
    expect(same(appSchema('cache-test', 1, model), v1)).toBe(true);
    const v2 = appSchema('cache-test', 2, parseSchema(`${blogSdl}\ntype Extra @model { n: Int }`));
    expect(same(v2, v1)).toBe(false);
    expect(v2.getType('Extra')).toBeDefined();
    expect(same(appSchema('other-app', 1, model), v1)).toBe(false);
  });

  it('keeps the most recently used versions and drops the others', () => {
    const model = parseSchema('type Tag @model { name: String }');
    const kept = appSchema('lru', 0, model);
    const dropped = appSchema('lru', 1, model);
    const half = Math.floor(SCHEMA_CACHE_SIZE / 2);
    for (let v = 2; v < 2 + half; v += 1) appSchema('lru', v, model);
    expect(same(appSchema('lru', 0, model), kept)).toBe(true); // a use makes it the most recent again
    for (let v = 2 + half; v < 2 + SCHEMA_CACHE_SIZE; v += 1) appSchema('lru', v, model);
    expect(same(appSchema('lru', 0, model), kept)).toBe(true);
    expect(same(appSchema('lru', 1, model), dropped)).toBe(false);
  });
});
