// The `orderBy` inputs: `XOrderByField` (the fields X can be sorted on), `XOrderByArgs` and
// the shared `OrderDirection`.

import { GraphQLEnumType, GraphQLInputObjectType, GraphQLNonNull } from 'graphql';
import type { GraphQLEnumValueConfigMap } from 'graphql';
import { SYSTEM_FIELDS } from '../model/index.js';
import type { ValueField } from '../model/index.js';
import type { TypeRegistry } from './registry.js';

export function orderDirectionType(reg: TypeRegistry): GraphQLEnumType {
  return reg.named('OrderDirection', 'api:OrderDirection', () =>
    new GraphQLEnumType({
      name: 'OrderDirection',
      values: {
        ASC: { value: 'ASC', description: 'Smallest first; nulls last.' },
        DESC: { value: 'DESC', description: 'Largest first; nulls first.' },
      },
    }),
  );
}

/**
 * Whether objects can be sorted on a field: single (not list) readable values of a scalar
 * other than JSON, or of an enum; never embedded values.
 */
export function isOrderable(field: ValueField): boolean {
  if (field.list || field.writeOnly) return false;
  switch (field.type.kind) {
    case 'enum':
      return true;
    case 'embedded':
      return false;
    case 'scalar':
      return field.type.name !== 'JSON';
    default: {
      const unreachable: never = field.type;
      throw new Error(`Unknown field type ${JSON.stringify(unreachable)}`);
    }
  }
}

/** `XOrderByField`: `id`, `createdAt`, `modifiedAt` and the orderable fields of X, by name. */
export function orderByFieldType(reg: TypeRegistry, typeName: string): GraphQLEnumType {
  const name = reg.names.typeName('OrderByField', typeName);
  return reg.named(name, `orderByField:${typeName}`, () => {
    const values: GraphQLEnumValueConfigMap = {};
    for (const field of SYSTEM_FIELDS) values[field] = { value: field };
    for (const field of reg.modelType(typeName).fields) {
      if (field.kind === 'value' && isOrderable(field)) values[field.name] = { value: field.name };
    }
    return new GraphQLEnumType({ name, description: `The fields ${typeName} objects can be ordered by.`, values });
  });
}

/** `XOrderByArgs { field: XOrderByField!, direction: OrderDirection = ASC }`. */
export function orderByArgsType(reg: TypeRegistry, typeName: string): GraphQLInputObjectType {
  const name = reg.names.typeName('OrderByArgs', typeName);
  return reg.named(name, `orderBy:${typeName}`, () =>
    new GraphQLInputObjectType({
      name,
      description: `One sort key for ${typeName} objects; ties are broken by the next key, and finally by id.`,
      fields: () => ({
        field: { type: new GraphQLNonNull(orderByFieldType(reg, typeName)) },
        direction: { type: orderDirectionType(reg), defaultValue: 'ASC' },
      }),
    }),
  );
}
