// The output object of each @model type (`Post implements Node & Timestamped`), the two
// interfaces every one implements, and the join object of each many-to-many relation.

import { GraphQLID, GraphQLInterfaceType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import { builtinTraits } from '../model/index.js';
import type { Relation } from '../model/index.js';
import { connectionArgs, relationConnectionType } from './connections.js';
import { fileUrlArgs } from './fileTransform.js';
import type { TypeRegistry } from './registry.js';
import { DateTimeScalar } from './scalars.js';
import { readableFields, valueOutputType } from './valueTypes.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

const ID = new GraphQLNonNull(GraphQLID);
const DATE_TIME = new GraphQLNonNull(DateTimeScalar);

export function nodeInterface(reg: TypeRegistry): GraphQLInterfaceType {
  return reg.named('Node', 'api:Node', () =>
    new GraphQLInterfaceType({
      name: 'Node',
      description: 'An object with a global id, readable with `node(id:)`.',
      fields: { id: { type: ID, description: "A globally unique, opaque id; it names the object's type." } },
    }),
  );
}

export function timestampedInterface(reg: TypeRegistry): GraphQLInterfaceType {
  return reg.named('Timestamped', 'api:Timestamped', () =>
    new GraphQLInterfaceType({
      name: 'Timestamped',
      fields: {
        createdAt: { type: DATE_TIME, description: 'When the object was created.' },
        modifiedAt: { type: DATE_TIME, description: 'When the object was last changed.' },
      },
    }),
  );
}

/** The object type X of a @model type: the system fields, then the declared fields in order. */
export function modelObjectType(reg: TypeRegistry, typeName: string): GraphQLObjectType {
  return reg.named(typeName, `model:${typeName}`, () => {
    const type = reg.modelType(typeName);
    return new GraphQLObjectType({
      name: typeName,
      interfaces: () => [nodeInterface(reg), timestampedInterface(reg)],
      fields: () => {
        const fields: Fields = { id: { type: ID }, createdAt: { type: DATE_TIME }, modifiedAt: { type: DATE_TIME } };
        for (const field of type.fields) {
          if (field.kind === 'value') {
            if (!field.writeOnly) fields[field.name] = { type: valueOutputType(reg, field) };
          } else if (!field.list) {
            fields[field.name] = { type: modelObjectType(reg, field.target) };
          } else {
            fields[field.name] = { type: relationConnectionType(reg, type, field), args: connectionArgs(reg, field.target) };
          }
        }
        const blob = builtinTraits(type)?.blob;
        if (blob) {
          fields[blob.url] = {
            type: new GraphQLNonNull(GraphQLString),
            description: "A signed URL to download the file's bytes (or, with `transform`, an image variant of them), valid for the app's fileUrlLifetimeSeconds.",
            args: fileUrlArgs(reg, typeName),
          };
        }
        return fields;
      },
    });
  });
}

/**
 * The join object of a many-to-many relation R: its two ends under their end names and its
 * join fields (`Friendship { user1 user2 status since }`). Edge mutations return it.
 */
export function joinObjectType(reg: TypeRegistry, relation: Relation): GraphQLObjectType {
  const R = relation.name;
  return reg.named(R, `join:${R}`, () => {
    if (relation.storage.kind !== 'joinTable') throw new Error(`Relation ${R} has no join table`);
    const { endNames, targets } = relation.storage;
    return new GraphQLObjectType({
      name: R,
      description: `An edge of the many-to-many relation ${R}.`,
      fields: () => {
        const fields: Fields = {
          [endNames[0]]: { type: modelObjectType(reg, targets[0]) },
          [endNames[1]]: { type: modelObjectType(reg, targets[1]) },
        };
        for (const field of readableFields(relation.joinFields)) fields[field.name] = { type: valueOutputType(reg, field) };
        return fields;
      },
    });
  });
}
