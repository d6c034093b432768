// The app's mutations a function can be attached to, read from its generated API: every
// mutation for a BEFORE function; for an EVENT function only those that write objects or edges,
// recognised by the shape of their payload (docs/api.md), never by their names.

import { buildSchema, getNamedType, isObjectType } from 'graphql';
import type { GraphQLNamedType, GraphQLObjectType } from 'graphql';

export interface MutationInfo {
  name: string;
  description: string;
  /** Whether it writes objects or edges, so that an EVENT function can be told of it. */
  writes: boolean;
}

function isNodeType(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}

/**
 * A row mutation's payload holds `changedEdge` (the object's edge); an edge mutation's holds the
 * edge (an object type that is no Node) and the object at each of its two ends.
 */
function writesObjectsOrEdges(payload: GraphQLObjectType): boolean {
  const fields = Object.values(payload.getFields());
  if (fields.some((f) => f.name === 'changedEdge')) return true;
  if (!fields.some((f) => f.name === 'viewer')) return false;
  const types = fields.filter((f) => f.name !== 'viewer').map((f) => getNamedType(f.type));
  const ends = types.filter(isNodeType).length;
  const edges = types.filter((t) => isObjectType(t) && !isNodeType(t)).length;
  return ends === 2 && edges === 1;
}

/** The Mutation fields of an app's API (its SDL, as `app { apiSchema }` answers it), by name. */
export function mutationsOf(apiSchema: string): MutationInfo[] {
  const schema = buildSchema(apiSchema, { assumeValidSDL: true });
  const fields = Object.values(schema.getMutationType()?.getFields() ?? {});
  return fields
    .map((field) => {
      const payload = getNamedType(field.type);
      return { name: field.name, description: field.description ?? '', writes: isObjectType(payload) && writesObjectsOrEdges(payload) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
