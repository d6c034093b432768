// The mutations of each @model type X — `createX`, `updateX`, `deleteX` — and their payloads
// `{ changedX changedEdge viewer clientMutationId }` (`createUser` also returns a `token`).

import { GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfig, GraphQLFieldConfigMap, GraphQLInputObjectType } from 'graphql';
import { USER } from '../model/index.js';
import { edgeType } from './connections.js';
import { modelObjectType } from './modelObjects.js';
import { createInputType, deleteInputType, updateInputType } from './mutationInputs.js';
import type { TypeRegistry } from './registry.js';
import { viewerType } from './viewer.js';

type Verb = 'create' | 'update' | 'delete';
type Fields = GraphQLFieldConfigMap<unknown, unknown>;

const CHANGED: Record<Verb, string> = {
  create: 'The object created.',
  update: 'The object as it is after the update.',
  delete: 'A last copy of the object deleted; null when no object had that id.',
};

function payloadType(reg: TypeRegistry, typeName: string, verb: Verb): GraphQLObjectType {
  const Verb = `${verb.charAt(0).toUpperCase()}${verb.slice(1)}`;
  const name = `${Verb}${typeName}Payload`;
  return reg.named(name, `${verb}Payload:${typeName}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => {
        const fields: Fields = {
          [`changed${typeName}`]: { type: modelObjectType(reg, typeName), description: CHANGED[verb] },
          changedEdge: { type: edgeType(reg, typeName) },
          viewer: { type: viewerType(reg) },
          clientMutationId: { type: GraphQLString },
        };
        if (verb === 'create' && typeName === USER) {
          fields.token = { type: GraphQLString, description: 'A token for the new user, to send as `Authorization: Bearer <token>`.' };
        }
        return fields;
      },
    }),
  );
}

function mutation(payload: GraphQLObjectType, input: GraphQLInputObjectType, description: string): GraphQLFieldConfig<unknown, unknown> {
  return { type: payload, args: { input: { type: new GraphQLNonNull(input) } }, description };
}

/** `createX`, `updateX` and `deleteX` root fields of type X. */
export function objectMutations(reg: TypeRegistry, typeName: string): Fields {
  return {
    [`create${typeName}`]: mutation(payloadType(reg, typeName, 'create'), createInputType(reg, typeName), `Creates an object of type ${typeName}.`),
    [`update${typeName}`]: mutation(payloadType(reg, typeName, 'update'), updateInputType(reg, typeName), `Changes the given fields of an object of type ${typeName}.`),
    [`delete${typeName}`]: mutation(
      payloadType(reg, typeName, 'delete'),
      deleteInputType(reg, typeName),
      `Deletes an object of type ${typeName}, its many-to-many edges and the references to it.`,
    ),
  };
}
