// The mutations of each @model type X — `createX`, `updateX`, `deleteX` — and their payloads
// `{ changedX changedEdge viewer clientMutationId }` (`createUser` also returns a `token`).

import { GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfig, GraphQLFieldConfigMap, GraphQLInputObjectType } from 'graphql';
import { builtinTraits } from '../model/index.js';
import { edgeType } from './connections.js';
import { modelObjectType } from './modelObjects.js';
import { createInputType, deleteInputType, updateInputType } from './mutationInputs.js';
import type { TypeRegistry } from './registry.js';
import { withRole } from './roles.js';
import type { FieldRole } from './roles.js';
import { viewerType } from './viewer.js';

type Verb = 'create' | 'update' | 'delete';
type Fields = GraphQLFieldConfigMap<unknown, unknown>;

const CHANGED: Record<Verb, string> = {
  create: 'The object created.',
  update: 'The object as it is after the update.',
  delete: 'A last copy of the object deleted; null when no object had that id.',
};

function payloadType(reg: TypeRegistry, typeName: string, verb: Verb): GraphQLObjectType {
  const name = reg.names.payload(verb, typeName);
  return reg.named(name, `payload:${typeName}:${verb}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => {
        const fields: Fields = {
          [reg.names.changed(typeName)]: withRole({ type: modelObjectType(reg, typeName), description: CHANGED[verb] }, { kind: 'changedRow', type: typeName }),
          changedEdge: withRole({ type: edgeType(reg, typeName) }, { kind: 'changedEdge', type: typeName }),
          viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
          clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
        };
        if (verb === 'create' && builtinTraits(reg.modelType(typeName))?.signUp) {
          fields.token = withRole({ type: GraphQLString, description: 'A token for the new user, to send as `Authorization: Bearer <token>`.' }, { kind: 'token' });
          fields.refreshToken = withRole({ type: GraphQLString, description: "The new user's session: give it to refreshUserToken for a new token." }, { kind: 'refreshToken' });
        }
        return fields;
      },
    }),
  );
}

function mutation(payload: GraphQLObjectType, input: GraphQLInputObjectType, description: string, role: FieldRole): GraphQLFieldConfig<unknown, unknown> {
  return withRole({ type: payload, args: { input: { type: new GraphQLNonNull(input) } }, description }, role);
}

/** `createX`, `updateX` and `deleteX` root fields of type X. */
export function objectMutations(reg: TypeRegistry, typeName: string): Fields {
  const type = typeName;
  return {
    [reg.names.mutation('create', typeName)]: mutation(payloadType(reg, typeName, 'create'), createInputType(reg, typeName), `Creates an object of type ${typeName}.`, { kind: 'create', type }),
    [reg.names.mutation('update', typeName)]: mutation(payloadType(reg, typeName, 'update'), updateInputType(reg, typeName), `Changes the given fields of an object of type ${typeName}.`, { kind: 'update', type }),
    [reg.names.mutation('delete', typeName)]: mutation(
      payloadType(reg, typeName, 'delete'),
      deleteInputType(reg, typeName),
      `Deletes an object of type ${typeName}, its many-to-many edges and the references to it.`,
      { kind: 'delete', type },
    ),
  };
}
