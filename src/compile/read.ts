// Root query fields compiled to one statement each: `getX`, `node` and `viewer` (with its
// `user`, whether they have two-factor login on, and `allXs` connections). Each statement
// returns the field's JSON as text.

import type { FieldNode } from 'graphql';
import { badInput } from '../errors/index.js';
import { accountType, quotedId } from '../model/index.js';
import { sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { totpEnabledSql } from '../store/index.js';
import { readArguments } from './args.js';
import { connection } from './connection.js';
import { decodeAnyId, decodeId } from './ids.js';
import { fieldOf, modelFields, modelObject } from './object.js';
import type { RequestValues } from './params.js';
import { collectFields, subSelections } from './selection.js';
import type { CompileState } from './state.js';
import { jsonObject } from './values.js';
import { TRUE } from './where.js';
import { whereAll } from './where.js';
import { getNamedType } from 'graphql';
import { roleOf } from '../graphql/index.js';

/** `SELECT (<json>)::text AS v`: the driver hands the text over without parsing it; with `a`, whether the caller is an app admin, when given. */
export function statementOf(json: SqlFragment, callerIsAppAdmin?: SqlFragment): SqlFragment {
  if (callerIsAppAdmin === undefined) return sql`SELECT (${json})::text AS v`;
  return sql`SELECT (${json})::text AS v, ${callerIsAppAdmin} AS a`;
}

function argumentsOf(s: CompileState, parent: string, node: FieldNode): Record<string, unknown> {
  return readArguments(fieldOf(s, parent, node.name.value).args, node.arguments, s.binder);
}

/**
 * The JSON of row `z` of `type`, an alias already in scope (a write's row, in its RETURNING),
 * or SQL NULL when the caller may not read it.
 */
export function rowAt(s: CompileState, typeName: string, z: SqlFragment, nodes: readonly FieldNode[]): SqlFragment {
  const type = s.app.type(typeName);
  const object = modelObject(s, type, z, modelFields(s, type.name, nodes));
  const allowed = s.allowed(type, 'read', z);
  return allowed === TRUE ? object : sql`CASE WHEN ${allowed} THEN ${object} END`;
}

/** The JSON of one row of `type` by uuid parameter, or SQL NULL. */
export function rowById(s: CompileState, typeName: string, id: SqlFragment, nodes: readonly FieldNode[], from?: SqlFragment): SqlFragment {
  const type = s.app.type(typeName);
  const z = s.alias();
  const object = modelObject(s, type, z, modelFields(s, type.name, nodes));
  return sql`(SELECT ${object} FROM ${from ?? s.app.table(type.name)} ${z} WHERE ${whereAll([sql`${z}.id = ${id}::uuid`, s.allowed(type, 'read', z)])})`;
}

/** The JSON of a root query field (not `__typename` or introspection). */
export function queryField(s: CompileState, nodes: readonly FieldNode[]): SqlFragment {
  const node = nodes[0] as FieldNode;
  const role = roleOf(fieldOf(s, 'Query', node.name.value));
  switch (role.kind) {
    case 'viewer':
      return viewer(s, nodes);
    case 'node':
      return nodeField(s, nodes);
    case 'getById': {
      const args = argumentsOf(s, 'Query', node);
      const id = s.binder.param(args.id, (v) => decodeId(String(v), role.type, 'id'));
      return rowById(s, role.type, id, nodes);
    }
    default:
      throw new Error(`${node.name.value} is not a query field`);
  }
}

function nodeField(s: CompileState, nodes: readonly FieldNode[]): SqlFragment {
  const args = argumentsOf(s, 'Query', nodes[0] as FieldNode);
  const raw = s.binder.shape(args.id, 'idType');
  const decoded = typeof raw === 'string' ? decodeAnyId(raw) : undefined;
  if (!decoded) throw badInput(`node(id): ${quotedId(raw)} is not a valid id`, { argument: 'id' });
  if (!s.app.index.types.has(decoded.type)) throw badInput(`node(id): "${String(raw)}" is not the id of an object of this app`, { argument: 'id' });
  const id = s.binder.param(args.id, (v) => decodeId(String(v), decoded.type, 'id'));
  return rowById(s, decoded.type, id, nodes);
}

/** `viewer.id`: the same for every request of one user (and for every anonymous request). */
export function viewerId(request: RequestValues): string {
  return Buffer.from(`Viewer:${request.userId ?? 'anonymous'}`, 'utf8').toString('base64url');
}

/** The `viewer` object: who is asking, and every type's `allXs` connection. */
export function viewer(s: CompileState, nodes: readonly FieldNode[]): SqlFragment {
  const fields = collectFields(s, subSelections(nodes), new Set(['Viewer']));
  const pairs: [string, SqlFragment][] = [];
  for (const [key, group] of fields) {
    const node = group[0] as FieldNode;
    const name = node.name.value;
    if (name === '__typename') {
      pairs.push([key, sql`'Viewer'::text`]);
      continue;
    }
    const def = fieldOf(s, 'Viewer', name);
    const role = roleOf(def);
    switch (role.kind) {
      case 'viewerId':
        pairs.push([key, sql`${s.binder.fromRequest(viewerId)}::text`]);
        break;
      case 'viewerUser':
        pairs.push([key, rowById(s, accountType(s.app.app.model).name, s.binder.fromRequest((r) => r.userId ?? null), group)]);
        break;
      case 'viewerTwoFactor':
        // Only ever the caller's own: the answer is about whoever's token it is.
        pairs.push([key, totpEnabledSql(s.binder.fromRequest((r) => r.appId), s.binder.fromRequest((r) => r.userId ?? null))]);
        break;
      case 'allRows': {
        const args = readArguments(def.args, node.arguments, s.binder);
        const source = { target: s.app.type(role.type), parent: () => TRUE };
        pairs.push([key, connection(s, source, args, group, `viewer.${name}`, getNamedType(def.type).name)]);
        break;
      }
      default:
        throw new Error(`${name} is not a viewer field`);
    }
  }
  return jsonObject(pairs);
}
