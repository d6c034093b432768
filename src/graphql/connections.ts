// Relay connections: `XConnection`/`XEdge` (viewer.allXs, mutation payloads), the
// connections of list relation fields (`UserPostsConnection`, whose many-to-many edges carry
// the join fields), `PageInfo`, and the arguments every connection field takes.

import { GraphQLBoolean, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigArgumentMap, GraphQLFieldConfigMap } from 'graphql';
import type { ModelType, RelationField } from '../model/index.js';
import { aggregationsType } from './aggregations.js';
import { whereArgsType } from './filters.js';
import { modelObjectType } from './modelObjects.js';
import { orderByArgsType } from './ordering.js';
import type { TypeRegistry } from './registry.js';
import { readableFields, valueOutputType } from './valueTypes.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

export function pageInfoType(reg: TypeRegistry): GraphQLObjectType {
  return reg.named('PageInfo', 'api:PageInfo', () =>
    new GraphQLObjectType({
      name: 'PageInfo',
      fields: {
        hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
        hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
        startCursor: { type: GraphQLString, description: 'The cursor of the first edge of the page.' },
        endCursor: { type: GraphQLString, description: 'The cursor of the last edge of the page.' },
      },
    }),
  );
}

/** The arguments of a connection of `target` objects: filter, order, and a page (`first`/`after` or `last`/`before`). */
export function connectionArgs(reg: TypeRegistry, target: string): GraphQLFieldConfigArgumentMap {
  return {
    where: { type: whereArgsType(reg, target) },
    // Items nullable, as the original service typed it: clients declare `$orderBy: [XOrderByArgs]`.
    orderBy: { type: new GraphQLList(orderByArgsType(reg, target)) },
    first: { type: GraphQLInt },
    after: { type: GraphQLString },
    last: { type: GraphQLInt },
    before: { type: GraphQLString },
  };
}

/** The fields every connection has: its edges, its page and aggregates over the whole filtered set. */
function connectionFields(reg: TypeRegistry, edge: GraphQLObjectType, target: string): Fields {
  return {
    edges: { type: new GraphQLList(edge) },
    pageInfo: { type: new GraphQLNonNull(pageInfoType(reg)) },
    aggregations: { type: aggregationsType(reg, target) },
  };
}

/** `XEdge { cursor: String! node: X }`. */
export function edgeType(reg: TypeRegistry, typeName: string): GraphQLObjectType {
  const name = reg.names.edge(typeName);
  return reg.named(name, `edge:${typeName}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => ({
        cursor: { type: new GraphQLNonNull(GraphQLString) },
        node: { type: modelObjectType(reg, typeName) },
      }),
    }),
  );
}

/** `XConnection`: a page of X objects. */
export function connectionType(reg: TypeRegistry, typeName: string): GraphQLObjectType {
  const name = reg.names.connection(typeName);
  return reg.named(name, `connection:${typeName}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => connectionFields(reg, edgeType(reg, typeName), typeName),
    }),
  );
}

/** `X<F>Edge`: the related object, and for many-to-many relations the edge's join fields. */
function relationEdgeType(reg: TypeRegistry, owner: ModelType, field: RelationField): GraphQLObjectType {
  const name = reg.names.relationEdge(owner.name, field.name);
  return reg.named(name, `relationEdge:${owner.name}.${field.name}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => {
        const fields: Fields = {
          cursor: { type: new GraphQLNonNull(GraphQLString) },
          node: { type: modelObjectType(reg, field.target) },
        };
        const relation = reg.manyToMany(field);
        for (const join of readableFields(relation?.joinFields ?? [])) fields[join.name] = { type: valueOutputType(reg, join) };
        return fields;
      },
    }),
  );
}

/** `X<F>Connection`: the objects a list relation field leads to. */
export function relationConnectionType(reg: TypeRegistry, owner: ModelType, field: RelationField): GraphQLObjectType {
  const name = reg.names.relationConnection(owner.name, field.name);
  return reg.named(name, `relationConnection:${owner.name}.${field.name}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => connectionFields(reg, relationEdgeType(reg, owner, field), field.target),
    }),
  );
}
