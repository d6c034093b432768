// The app's own root fields (`extend type Query { quote(symbol: String!): Quote @function(…) }`)
// on Query and Mutation: their arguments (embedded types as their `EInput` inputs) and results,
// with a role naming the custom field, so the compiler calls its function.

import { GraphQLList, GraphQLNonNull } from 'graphql';
import type { GraphQLFieldConfigArgumentMap, GraphQLFieldConfigMap, GraphQLInputType, GraphQLNamedOutputType, GraphQLOutputType } from 'graphql';
import type { CustomRoot, CustomType, ScalarName } from '../model/index.js';
import { modelObjectType } from './modelObjects.js';
import type { TypeRegistry } from './registry.js';
import { withRole } from './roles.js';
import { baseInputType, embeddedObjectType, enumType, scalarType } from './valueTypes.js';

/** `T`, `T!`, `[T]`, `[T!]`, `[T]!` or `[T!]!` as the type was written. */
function wrapped<T extends GraphQLOutputType | GraphQLInputType>(base: T, type: CustomType): T {
  // The wrappers keep a type's side (input or output); graphql-js types them loosely.
  type Wrappable = GraphQLOutputType & GraphQLInputType;
  let out = base as Wrappable;
  if (type.list) out = new GraphQLList(type.itemRequired ? new GraphQLNonNull(out) : out) as Wrappable;
  if (type.required) out = new GraphQLNonNull(out) as Wrappable;
  return out as T;
}

function outputType(reg: TypeRegistry, type: CustomType): GraphQLOutputType {
  let base: GraphQLNamedOutputType;
  switch (type.kind) {
    case 'scalar':
      base = scalarType(type.name as ScalarName);
      break;
    case 'enum':
      base = enumType(reg, type.name);
      break;
    case 'embedded':
      base = embeddedObjectType(reg, type.name);
      break;
    case 'model':
      base = modelObjectType(reg, type.name);
      break;
    default: {
      const never: never = type.kind;
      throw new Error(`unknown custom type kind ${String(never)}`);
    }
  }
  return wrapped(base, type);
}

function inputType(reg: TypeRegistry, type: CustomType): GraphQLInputType {
  if (type.kind === 'model') throw new Error(`an argument cannot be of the @model type ${type.name}`);
  const base = type.kind === 'scalar' ? scalarType(type.name as ScalarName) : baseInputType(reg, { kind: type.kind, name: type.name });
  return wrapped(base, type);
}

/** The app's custom fields of `root`, in the order the schema declares them. */
export function customFields(reg: TypeRegistry, root: CustomRoot): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const field of reg.model.customFields ?? []) {
    if (field.root !== root) continue;
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const arg of field.arguments) args[arg.name] = { type: inputType(reg, arg.type) };
    fields[field.name] = withRole({ type: outputType(reg, field.type), args }, { kind: 'custom', root, field: field.name });
  }
  return fields;
}
