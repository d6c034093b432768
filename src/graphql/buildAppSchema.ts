// Builds the GraphQL schema of one app version from its model: types only, no resolvers —
// operations are compiled to SQL and executed elsewhere.

import { GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { GraphQLFieldConfigMap, GraphQLNamedType } from 'graphql';
import type { AppModel } from '../model/index.js';
import { customFields } from './customFields.js';
import { edgeMutations } from './edgeMutations.js';
import { modelObjectType, nodeInterface } from './modelObjects.js';
import { objectMutations } from './objectMutations.js';
import { subscriptionType } from './subscriptions.js';
import { twoFactorMutations } from './twoFactorMutations.js';
import { userMutations } from './userMutations.js';
import { TypeRegistry, isManyToMany } from './registry.js';
import { withRole } from './roles.js';
import { DateTimeScalar, JSONScalar, TextScalar } from './scalars.js';
import { embeddedInputType, embeddedObjectType, enumType } from './valueTypes.js';
import { viewerType } from './viewer.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

function queryType(reg: TypeRegistry): GraphQLObjectType {
  return new GraphQLObjectType({
    name: 'Query',
    fields: () => {
      const fields: Fields = {};
      for (const type of reg.model.types) {
        fields[reg.names.getter(type.name)] = withRole(
          {
            type: modelObjectType(reg, type.name),
            args: { id: { type: new GraphQLNonNull(GraphQLID) } },
            description: `The ${type.name} with this id; null when there is none or the caller may not read it.`,
          },
          { kind: 'getById', type: type.name },
        );
      }
      fields.node = withRole(
        {
          type: nodeInterface(reg),
          args: { id: { type: new GraphQLNonNull(GraphQLID) } },
          description: 'The object with this id, of any type; null when there is none or the caller may not read it.',
        },
        { kind: 'node' },
      );
      fields.viewer = withRole({ type: viewerType(reg) }, { kind: 'viewer' });
      return { ...fields, ...customFields(reg, 'Query') };
    },
  });
}

function mutationType(reg: TypeRegistry): GraphQLObjectType {
  return new GraphQLObjectType({
    name: 'Mutation',
    fields: () => {
      const fields: Fields = {};
      for (const type of reg.model.types) Object.assign(fields, objectMutations(reg, type.name));
      Object.assign(fields, userMutations(reg));
      Object.assign(fields, twoFactorMutations());
      for (const relation of reg.model.relations) {
        if (isManyToMany(relation)) Object.assign(fields, edgeMutations(reg, relation));
      }
      return { ...fields, ...customFields(reg, 'Mutation') };
    },
  });
}

export function buildAppSchema(model: AppModel): GraphQLSchema {
  const reg = new TypeRegistry(model);
  // Reachable from the roots anyway, except the scalars, enums and embedded types no field uses:
  // listing them keeps every app's API with the same scalars and every declared type visible.
  const types: GraphQLNamedType[] = [
    DateTimeScalar,
    JSONScalar,
    TextScalar,
    ...model.types.map((t) => modelObjectType(reg, t.name)),
    ...model.enums.map((e) => enumType(reg, e.name)),
    ...model.embedded.flatMap((e) => [embeddedObjectType(reg, e.name), embeddedInputType(reg, e.name)]),
  ];
  return new GraphQLSchema({ query: queryType(reg), mutation: mutationType(reg), subscription: subscriptionType(reg), types });
}
