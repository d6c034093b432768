// An object of the response as one SQL JSON expression: a model row with its value fields,
// singular relations (correlated subqueries) and list relations (nested connections), and
// the join object of a many-to-many edge.

import { getNamedType, isObjectType } from 'graphql';
import type { FieldNode, GraphQLField, GraphQLObjectType } from 'graphql';
import { builtinTraits } from '../model/index.js';
import type { ModelType, Relation, RelationField, ValueField } from '../model/index.js';
import { ident, literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { readArguments } from './args.js';
import { connection } from './connection.js';
import type { RowSource } from './connection.js';
import { findField } from './context.js';
import { fileUrl } from './fileUrl.js';
import { idSql } from './ids.js';
import { collectFields, subSelections } from './selection.js';
import { TRUE, whereAll } from './where.js';
import { guarded } from './refusals.js';
import type { Fields } from './selection.js';
import type { CompileState } from './state.js';
import { dateTimeOut, jsonObject, valueOut } from './values.js';
import type { EmbeddedSelection } from './values.js';

/** The type names an object of the GraphQL type `name` satisfies in fragment type conditions: its own and its interfaces'. */
export function typeNamesOf(s: CompileState, name: string): ReadonlySet<string> {
  const type = s.app.app.schema.getType(name);
  return new Set([name, ...(isObjectType(type) ? type.getInterfaces().map((i) => i.name) : [])]);
}

/** The fields of a response key's nodes as asked of a model object. */
export function modelFields(s: CompileState, type: string, nodes: readonly FieldNode[]): Fields {
  return collectFields(s, subSelections(nodes), typeNamesOf(s, type));
}

export function objectType(s: CompileState, name: string): GraphQLObjectType {
  return s.app.app.schema.getType(name) as GraphQLObjectType;
}

/** The field `name` of the GraphQL object type `parent`, whose role says what it does. */
export function fieldOf(s: CompileState, parent: string, name: string): GraphQLField<unknown, unknown> {
  const def = objectType(s, parent).getFields()[name];
  if (!def) throw new Error(`no GraphQL field ${parent}.${name}`);
  return def;
}

/** The selection of an embedded value as a tree of response keys. */
export function embeddedSelection(s: CompileState, typeName: string, nodes: readonly FieldNode[]): EmbeddedSelection[] {
  const fields = collectFields(s, subSelections(nodes), new Set([typeName]));
  const out: EmbeddedSelection[] = [];
  for (const [key, group] of fields) {
    const first = group[0] as FieldNode;
    const name = first.name.value;
    const embedded = s.app.index.embedded.get(typeName);
    const field = embedded?.fields.find((f) => f.name === name);
    if (field?.type.kind === 'embedded') out.push({ key, name, sub: embeddedSelection(s, field.type.name, group) });
    else out.push({ key, name });
  }
  return out;
}

export function valueFieldOut(s: CompileState, field: ValueField, expr: SqlFragment, nodes: readonly FieldNode[]): SqlFragment {
  const sub = field.type.kind === 'embedded' ? embeddedSelection(s, field.type.name, nodes) : undefined;
  return valueOut(s.app, field, expr, sub);
}

/** A model row aliased `row` as a JSON object of the requested fields. */
export function modelObject(s: CompileState, type: ModelType, row: SqlFragment, fields: Fields): SqlFragment {
  const pairs: [string, SqlFragment][] = [];
  for (const [key, nodes] of fields) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    if (name === '__typename') pairs.push([key, sql`${literal(type.name)}::text`]);
    else if (name === 'id') pairs.push([key, idSql(type.name, sql`${row}.id`)]);
    else if (name === 'createdAt' || name === 'modifiedAt') pairs.push([key, dateTimeOut(sql`${row}.${ident(name)}`)]);
    else if (name === builtinTraits(type)?.blob?.url) pairs.push([key, fileUrl(s, type, row, readArguments(fieldOf(s, type.name, name).args, node.arguments, s.binder).transform)]);
    else {
      const field = findField(type, name);
      if (!field) throw new Error(`unknown field ${type.name}.${name}`);
      let value: SqlFragment;
      if (field.kind === 'value') value = valueFieldOut(s, field, sql`${row}.${ident(field.column)}`, nodes);
      else if (!field.list) value = singularRelation(s, type, row, field, nodes);
      else value = listRelation(s, type, row, field, nodes);
      // A field with rules of its own answers a refusal where they do not hold for this row.
      pairs.push([key, guarded(s, s.fieldAllowed(type, field.name, 'read', row), value, type.name, field.name)]);
    }
  }
  return jsonObject(pairs);
}

function singularRelation(s: CompileState, type: ModelType, row: SqlFragment, field: RelationField, nodes: readonly FieldNode[]): SqlFragment {
  const target = s.app.type(field.target);
  const link = s.app.link(type, field);
  const z = s.alias();
  const object = modelObject(s, target, z, modelFields(s, target.name, nodes));
  const table = s.app.table(target.name);
  const readable = s.allowed(target, 'read', z);
  if (link.kind === 'holds') return sql`(SELECT ${object} FROM ${table} ${z} WHERE ${whereAll([sql`${z}.id = ${row}.${ident(link.column)}`, readable])})`;
  if (link.kind === 'heldBy') return sql`(SELECT ${object} FROM ${table} ${z} WHERE ${whereAll([sql`${z}.${ident(link.column)} = ${row}.id`, readable])} LIMIT 1)`;
  throw new Error(`${type.name}.${field.name} is not a singular relation`);
}

function listRelation(s: CompileState, type: ModelType, row: SqlFragment, field: RelationField, nodes: readonly FieldNode[]): SqlFragment {
  const node = nodes[0] as FieldNode;
  const def = objectType(s, type.name).getFields()[field.name];
  if (!def) throw new Error(`no GraphQL field ${type.name}.${field.name}`);
  const args = readArguments(def.args, node.arguments, s.binder);
  const link = s.app.link(type, field);
  let source: RowSource;
  if (link.kind === 'heldBy') {
    source = { target: s.app.type(field.target), parent: (z) => sql`${z}.${ident(link.column)} = ${row}.id` };
  } else if (link.kind === 'join') {
    source = { target: s.app.type(field.target), parent: () => TRUE, join: { link, row } };
  } else {
    throw new Error(`${type.name}.${field.name} is not a list relation`);
  }
  return connection(s, source, args, nodes, `${type.name}.${field.name}`, getNamedType(def.type).name);
}

/** The join object of a many-to-many relation (`Friendship { user1 user2 status }`) for join row `j`. */
export function joinObject(s: CompileState, relation: Relation, j: SqlFragment, fields: Fields): SqlFragment {
  const storage = relation.storage;
  if (storage.kind !== 'joinTable') throw new Error(`${relation.name} has no join table`);
  const pairs: [string, SqlFragment][] = [];
  for (const [key, nodes] of fields) {
    const name = (nodes[0] as FieldNode).name.value;
    if (name === '__typename') {
      pairs.push([key, sql`${literal(relation.name)}::text`]);
      continue;
    }
    const end = storage.endNames.indexOf(name);
    if (end >= 0) {
      const target = s.app.type(storage.targets[end as 0 | 1]);
      const z = s.alias();
      const object = modelObject(s, target, z, modelFields(s, target.name, nodes));
      const condition = whereAll([sql`${z}.id = ${j}.${ident(storage.columns[end as 0 | 1])}`, s.allowed(target, 'read', z)]);
      pairs.push([key, sql`(SELECT ${object} FROM ${s.app.table(target.name)} ${z} WHERE ${condition})`]);
      continue;
    }
    const field = relation.joinFields.find((f) => f.name === name);
    if (!field) throw new Error(`unknown join field ${relation.name}.${name}`);
    pairs.push([key, valueFieldOut(s, field, sql`${j}.${ident(field.column)}`, nodes)]);
  }
  return jsonObject(pairs);
}
