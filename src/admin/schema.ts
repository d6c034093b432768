// Builds the executable management schema: the SDL of sdl.ts with the resolvers of
// resolvers.ts attached and the DateTime scalar's serialisation defined.

import { GraphQLError, GraphQLObjectType, GraphQLScalarType, assertValidSchema, buildSchema } from 'graphql';
import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { PORTABILITY_MUTATIONS, PORTABILITY_SDL, uploadedArchive } from './portabilityApi.js';
import { ADMIN_RESOLVERS } from './resolvers.js';
import { FUNCTIONS_SDL } from './functionsSdl.js';
import { ADMIN_SDL } from './sdl.js';

function serializeDateTime(value: unknown): string {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  throw new GraphQLError(`DateTime cannot represent ${String(value)}`);
}

function attachResolvers(schema: GraphQLSchema): void {
  const resolvers = { ...ADMIN_RESOLVERS, Mutation: { ...ADMIN_RESOLVERS.Mutation, ...PORTABILITY_MUTATIONS } };
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`Resolvers given for unknown type ${typeName}`);
    const fieldMap = type.getFields();
    for (const [fieldName, resolve] of Object.entries(fields)) {
      const field = fieldMap[fieldName];
      if (!field) throw new Error(`Resolver given for unknown field ${typeName}.${fieldName}`);
      // The resolver table is typed per field; graphql-js sees them all as the generic signature.
      field.resolve = resolve as unknown as GraphQLFieldResolver<unknown, unknown>;
    }
  }
}

/** The management API schema (built once; contexts are per request). */
export function createAdminSchema(): GraphQLSchema {
  const schema = buildSchema(ADMIN_SDL + FUNCTIONS_SDL + PORTABILITY_SDL);
  attachResolvers(schema);
  const dateTime = schema.getType('DateTime');
  if (!(dateTime instanceof GraphQLScalarType)) throw new Error('DateTime scalar missing from the admin SDL');
  // buildSchema gives custom scalars identity serialisation; this is the documented place to set it.
  dateTime.serialize = serializeDateTime;
  const upload = schema.getType('Upload');
  if (!(upload instanceof GraphQLScalarType)) throw new Error('Upload scalar missing from the admin SDL');
  upload.parseValue = uploadedArchive;
  upload.parseLiteral = () => uploadedArchive(undefined);
  upload.serialize = () => {
    throw new GraphQLError('Upload is an input type only');
  };
  assertValidSchema(schema);
  return schema;
}
