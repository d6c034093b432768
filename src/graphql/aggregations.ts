// `XAggregations` and its parts: count, min/max over ordered fields (numbers, DateTime,
// String, the timestamps) and sum/avg over numbers, which exist only when X has a number field.

import { GraphQLFloat, GraphQLInt, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import type { ModelType, ValueField } from '../model/index.js';
import type { TypeRegistry } from './registry.js';
import { DateTimeScalar } from './scalars.js';
import { scalarType } from './valueTypes.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

/** Single, readable value fields of one of `scalars`. */
function fieldsOf(type: ModelType, scalars: readonly string[]): ValueField[] {
  return type.fields.filter(
    (f): f is ValueField => f.kind === 'value' && !f.list && !f.writeOnly && f.type.kind === 'scalar' && scalars.includes(f.type.name),
  );
}

const EXTREMES = ['Int', 'Float', 'DateTime', 'String'];
const NUMBERS = ['Int', 'Float'];

/** Whether `XSumAggregate` / `XAvgAggregate` exist (an object type cannot be empty). */
function hasNumbers(type: ModelType): boolean {
  return fieldsOf(type, NUMBERS).length > 0;
}

function extremeType(reg: TypeRegistry, type: ModelType, which: 'Min' | 'Max'): GraphQLObjectType {
  const name = reg.names.aggregate(which === 'Min' ? 'min' : 'max', type.name);
  return reg.named(name, `${which}:${type.name}`, () =>
    new GraphQLObjectType({
      name,
      description: `The ${which === 'Min' ? 'smallest' : 'largest'} value of each field over the matching ${type.name} objects (null when there are none).`,
      fields: () => {
        const fields: Fields = { createdAt: { type: DateTimeScalar }, modifiedAt: { type: DateTimeScalar } };
        for (const field of fieldsOf(type, EXTREMES)) {
          if (field.type.kind === 'scalar') fields[field.name] = { type: scalarType(field.type.name) };
        }
        return fields;
      },
    }),
  );
}

function numericType(reg: TypeRegistry, type: ModelType, which: 'Sum' | 'Avg'): GraphQLObjectType {
  const name = reg.names.aggregate(which === 'Sum' ? 'sum' : 'avg', type.name);
  return reg.named(name, `${which}:${type.name}`, () =>
    new GraphQLObjectType({
      name,
      description: `The ${which === 'Sum' ? 'sum' : 'average'} of each number field over the matching ${type.name} objects, as a Float (null when there are none).`,
      fields: () => {
        const fields: Fields = {};
        for (const field of fieldsOf(type, NUMBERS)) fields[field.name] = { type: GraphQLFloat };
        return fields;
      },
    }),
  );
}

/** `XAggregations`: computed over every object the filter matches, not just one page. */
export function aggregationsType(reg: TypeRegistry, typeName: string): GraphQLObjectType {
  const name = reg.names.aggregations(typeName);
  return reg.named(name, `aggregations:${typeName}`, () => {
    const type = reg.modelType(typeName);
    return new GraphQLObjectType({
      name,
      description: `Aggregates over all ${typeName} objects the connection's filter matches, whatever page is read.`,
      fields: () => {
        const fields: Fields = {
          count: { type: new GraphQLNonNull(GraphQLInt) },
          min: { type: extremeType(reg, type, 'Min') },
          max: { type: extremeType(reg, type, 'Max') },
        };
        if (hasNumbers(type)) {
          fields.sum = { type: numericType(reg, type, 'Sum') };
          fields.avg = { type: numericType(reg, type, 'Avg') };
        }
        return fields;
      },
    });
  });
}
