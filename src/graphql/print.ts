// An app's generated API printed as SDL, types and fields sorted: what clients' tools take as
// their schema (relay-compiler, graphql-codegen, graphql-inspector), stable from one printing to
// the next so that a diff shows only what changed.

import { lexicographicSortSchema, printSchema } from 'graphql';
import type { GraphQLSchema } from 'graphql';

export function printApiSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
