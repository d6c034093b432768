// The GraphQL types of value fields: scalars, app enums, and embedded types as output
// objects (`Image`) and inputs (`ImageInput`); inline lists become `[T]`.

import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type {
  GraphQLEnumValueConfigMap,
  GraphQLFieldConfigMap,
  GraphQLInputFieldConfigMap,
  GraphQLInputType,
  GraphQLNamedInputType,
  GraphQLNamedOutputType,
  GraphQLOutputType,
  GraphQLScalarType,
} from 'graphql';
import type { FieldType, ScalarName, ValueField } from '../model/index.js';
import type { TypeRegistry } from './registry.js';
import { DateTimeScalar, JSONScalar, TextScalar } from './scalars.js';

export function scalarType(name: ScalarName): GraphQLScalarType {
  switch (name) {
    case 'ID':
      return GraphQLID;
    case 'String':
      return GraphQLString;
    case 'Text':
      return TextScalar;
    case 'Int':
      return GraphQLInt;
    case 'Float':
      return GraphQLFloat;
    case 'Boolean':
      return GraphQLBoolean;
    case 'DateTime':
      return DateTimeScalar;
    case 'JSON':
      return JSONScalar;
    default: {
      const unreachable: never = name;
      throw new Error(`Unknown scalar ${String(unreachable)}`);
    }
  }
}

/** An app enum; each value's internal value is its name. */
export function enumType(reg: TypeRegistry, name: string): GraphQLEnumType {
  return reg.named(name, `enum:${name}`, () => {
    const values: GraphQLEnumValueConfigMap = {};
    for (const value of reg.enumType(name).values) values[value] = { value };
    return new GraphQLEnumType({ name, values });
  });
}

/** Embedded type `E` as an output object. */
export function embeddedObjectType(reg: TypeRegistry, name: string): GraphQLObjectType {
  return reg.named(name, `embedded:${name}`, () => {
    const embedded = reg.embeddedType(name);
    return new GraphQLObjectType({
      name,
      fields: () => {
        const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
        for (const field of readableFields(embedded.fields)) fields[field.name] = { type: valueOutputType(reg, field) };
        return fields;
      },
    });
  });
}

/** Embedded type `E` as an input, `EInput`: required fields are non-null. */
export function embeddedInputType(reg: TypeRegistry, name: string): GraphQLInputObjectType {
  return reg.named(reg.names.embeddedInput(name), `embeddedInput:${name}`, () => {
    const embedded = reg.embeddedType(name);
    return new GraphQLInputObjectType({
      name: reg.names.embeddedInput(name),
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        for (const field of embedded.fields) fields[field.name] = { type: valueInputType(reg, field, field.required) };
        return fields;
      },
    });
  });
}

/** The value fields the read API shows (write-only ones such as `User.password` never appear). */
export function readableFields(fields: readonly ValueField[]): ValueField[] {
  return fields.filter((f) => !f.writeOnly);
}

/** The output type of one value of `type` (an element, for lists). */
function baseOutputType(reg: TypeRegistry, type: FieldType): GraphQLNamedOutputType {
  switch (type.kind) {
    case 'scalar':
      return scalarType(type.name);
    case 'enum':
      return enumType(reg, type.name);
    case 'embedded':
      return embeddedObjectType(reg, type.name);
    default: {
      const unreachable: never = type;
      throw new Error(`Unknown field type ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The input type of one value of `type` (an element, for lists). */
export function baseInputType(reg: TypeRegistry, type: FieldType): GraphQLNamedInputType {
  switch (type.kind) {
    case 'scalar':
      return scalarType(type.name);
    case 'enum':
      return enumType(reg, type.name);
    case 'embedded':
      return embeddedInputType(reg, type.name);
    default: {
      const unreachable: never = type;
      throw new Error(`Unknown field type ${JSON.stringify(unreachable)}`);
    }
  }
}

/** `T`, `T!`, `[T]` or `[T]!`: list elements are nullable, `required` makes the field non-null. */
export function valueOutputType(reg: TypeRegistry, field: ValueField): GraphQLOutputType {
  const base = baseOutputType(reg, field.type);
  const type = field.list ? new GraphQLList(base) : base;
  return field.required ? new GraphQLNonNull(type) : type;
}

/** The input type of a value field, non-null only when the caller says so (`nonNull`). */
export function valueInputType(reg: TypeRegistry, field: ValueField, nonNull: boolean): GraphQLInputType {
  const base = baseInputType(reg, field.type);
  const type = field.list ? new GraphQLList(base) : base;
  return nonNull ? new GraphQLNonNull(type) : type;
}
