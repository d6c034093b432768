// The inputs of `createX`, `updateX` and `deleteX`. Create inputs nest: a relation field takes
// the related type's create input (one, or a list for list relations), so they may recurse.

import { GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql';
import type { GraphQLInputFieldConfig, GraphQLInputFieldConfigMap } from 'graphql';
import { builtinTraits, idColumn, isManagedField } from '../model/index.js';
import type { ValueField } from '../model/index.js';
import type { TypeRegistry } from './registry.js';
import { UploadScalar } from './upload.js';
import { valueInputType } from './valueTypes.js';

/** Every mutation input's `clientMutationId`, echoed in the payload (Relay). */
export const CLIENT_MUTATION_ID: GraphQLInputFieldConfig = { type: GraphQLString };

/** A value must be given on create when it is required and has no default. */
export function mustBeGiven(field: ValueField): boolean {
  return field.required && field.default === undefined;
}

/** `CreateXInput`: every value field (write-only ones included), relation ids and nested creates. */
export function createInputType(reg: TypeRegistry, typeName: string): GraphQLInputObjectType {
  const name = reg.names.input('create', typeName);
  return reg.named(name, `createInput:${typeName}`, () => {
    const type = reg.modelType(typeName);
    return new GraphQLInputObjectType({
      name,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        const blob = builtinTraits(type)?.blob;
        // A file's name and media type default to the uploaded part's.
        const fromUpload = new Set(blob ? [blob.name, blob.contentType] : []);
        if (blob) fields[blob.upload] = { type: new GraphQLNonNull(UploadScalar), description: 'The file: a part of the same multipart request.' };
        for (const field of type.fields) {
          if (isManagedField(field)) continue;
          if (field.kind === 'value') {
            fields[field.name] = { type: valueInputType(reg, field, mustBeGiven(field) && !fromUpload.has(field.name)) };
          } else if (!field.list) {
            fields[idColumn(field.name)] = { type: GraphQLID, description: `The id of an existing object of type ${field.target} to relate to.` };
            fields[field.name] = {
              type: createInputType(reg, field.target),
              description: `A new object of type ${field.target} to create and relate to (ignored when ${idColumn(field.name)} is given).`,
            };
          } else {
            fields[field.name] = {
              // Items nullable, as the original service typed them; null items create nothing.
              type: new GraphQLList(createInputType(reg, field.target)),
              description: `New objects of type ${field.target} to create and relate to.`,
            };
          }
        }
        fields.clientMutationId = CLIENT_MUTATION_ID;
        return fields;
      },
    });
  });
}

/** `UpdateXInput`: the id, then any value fields and relation ids to change (`""` clears a relation). */
export function updateInputType(reg: TypeRegistry, typeName: string): GraphQLInputObjectType {
  const name = reg.names.input('update', typeName);
  return reg.named(name, `updateInput:${typeName}`, () => {
    const type = reg.modelType(typeName);
    return new GraphQLInputObjectType({
      name,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = { id: { type: new GraphQLNonNull(GraphQLID) } };
        for (const field of type.fields) {
          if (isManagedField(field)) continue;
          if (field.kind === 'value') fields[field.name] = { type: valueInputType(reg, field, false) };
          else if (!field.list) {
            fields[idColumn(field.name)] = { type: GraphQLID, description: `The id of the ${field.target} to relate to; \`""\` removes the association.` };
          }
        }
        fields.clientMutationId = CLIENT_MUTATION_ID;
        return fields;
      },
    });
  });
}

/** `DeleteXInput { id: ID! clientMutationId: String }`. */
export function deleteInputType(reg: TypeRegistry, typeName: string): GraphQLInputObjectType {
  const name = reg.names.input('delete', typeName);
  return reg.named(name, `deleteInput:${typeName}`, () =>
    new GraphQLInputObjectType({
      name,
      fields: { id: { type: new GraphQLNonNull(GraphQLID) }, clientMutationId: CLIENT_MUTATION_ID },
    }),
  );
}
