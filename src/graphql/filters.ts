// The `where` inputs: `XWhereArgs` (system fields, value fields, relation and relation-id
// filters, AND / OR / NOT), many-to-many `{ edge, node }` filters and `REdgeWhereArgs`.

import { GraphQLInputObjectType, GraphQLList } from 'graphql';
import type { GraphQLInputFieldConfigMap } from 'graphql';
import { idColumn } from '../model/index.js';
import type { ModelType, Relation, RelationField } from '../model/index.js';
import { dateTimeOperatorInput, idOperatorInput, valueOperatorInput } from './operators.js';
import type { TypeRegistry } from './registry.js';
import { readableFields } from './valueTypes.js';

/** `AND`, `OR` and `NOT` of an input combining filters of its own kind. */
export function combinators(self: GraphQLInputObjectType): GraphQLInputFieldConfigMap {
  // Items nullable, as the original service typed them (`AND: [XWhereArgs]`); null items are ignored.
  const list = new GraphQLList(self);
  return {
    AND: { type: list, description: 'Every one of these filters matches.' },
    OR: { type: list, description: 'At least one of these filters matches.' },
    NOT: { type: self, description: 'This filter does not match.' },
  };
}

/** `XWhereArgs`: a filter on objects of type X. */
export function whereArgsType(reg: TypeRegistry, typeName: string): GraphQLInputObjectType {
  const name = reg.names.whereArgs(typeName);
  return reg.named(name, `where:${typeName}`, () => {
    const type = reg.modelType(typeName);
    const self: GraphQLInputObjectType = new GraphQLInputObjectType({
      name,
      description: `A filter on ${typeName} objects; the conditions given must all hold.`,
      fields: () => ({ ...whereFields(reg, type), ...combinators(self) }),
    });
    return self;
  });
}

/** The filters on the system fields every object has: `id`, `createdAt`, `modifiedAt`. */
export function systemFilterFields(reg: TypeRegistry, X: string): GraphQLInputFieldConfigMap {
  return {
    id: { type: idOperatorInput(reg, reg.names.fieldWhereArgs(X, 'id'), `${X}.id`) },
    createdAt: { type: dateTimeOperatorInput(reg, reg.names.fieldWhereArgs(X, 'createdAt'), `${X}.createdAt`) },
    modifiedAt: { type: dateTimeOperatorInput(reg, reg.names.fieldWhereArgs(X, 'modifiedAt'), `${X}.modifiedAt`) },
  };
}

function whereFields(reg: TypeRegistry, type: ModelType): GraphQLInputFieldConfigMap {
  const X = type.name;
  const fields = systemFilterFields(reg, X);
  for (const field of type.fields) {
    if (field.kind === 'value') {
      if (field.writeOnly) continue;
      fields[field.name] = { type: valueOperatorInput(reg, reg.names.fieldWhereArgs(X, field.name), `${X}.${field.name}`, field) };
    } else if (!field.list) {
      fields[field.name] = { type: whereArgsType(reg, field.target), description: `The related ${field.target} matches.` };
      const id = idColumn(field.name);
      fields[id] = { type: idOperatorInput(reg, reg.names.fieldWhereArgs(X, id), `${X}.${id}`), description: `The id of the related ${field.target}.` };
    } else {
      const relation = reg.manyToMany(field);
      fields[field.name] = relation
        ? { type: manyToManyWhereArgsType(reg, type, field, relation), description: `At least one related ${field.target} matches, through an edge that matches.` }
        : { type: whereArgsType(reg, field.target), description: `At least one related ${field.target} matches.` };
    }
  }
  return fields;
}

/** `X<F>WhereArgs` of a many-to-many field: a filter on the edge's join fields and on its far end. */
function manyToManyWhereArgsType(reg: TypeRegistry, type: ModelType, field: RelationField, relation: Relation): GraphQLInputObjectType {
  const name = reg.names.fieldWhereArgs(type.name, field.name);
  return reg.named(name, `manyToManyWhere:${type.name}.${field.name}`, () =>
    new GraphQLInputObjectType({
      name,
      description: `A filter on the ${field.target} objects of ${type.name}.${field.name} and the edges leading to them.`,
      fields: () => ({
        edge: { type: edgeWhereArgsType(reg, relation), description: `The edge's join fields (relation ${relation.name}) match.` },
        node: { type: whereArgsType(reg, field.target), description: `The related ${field.target} matches.` },
      }),
    }),
  );
}

/** `REdgeWhereArgs`: a filter on the join fields of many-to-many relation R. */
export function edgeWhereArgsType(reg: TypeRegistry, relation: Relation): GraphQLInputObjectType {
  const R = relation.name;
  const name = reg.names.edgeWhereArgs(R);
  return reg.named(name, `edgeWhere:${R}`, () => {
    const self: GraphQLInputObjectType = new GraphQLInputObjectType({
      name,
      description: `A filter on the join fields of ${R} edges.`,
      fields: () => {
        const fields: GraphQLInputFieldConfigMap = {};
        for (const field of readableFields(relation.joinFields)) {
          fields[field.name] = { type: valueOperatorInput(reg, reg.names.joinFieldWhereArgs(R, field.name), `${R}.${field.name}`, field) };
        }
        return { ...fields, ...combinators(self) };
      },
    });
    return self;
  });
}
