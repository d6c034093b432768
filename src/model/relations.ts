// Relation inference: pairs the fields that share a @relation name, decides the relation's
// kind and where it is stored (a foreign-key column or a join table), and attaches @join types.

import type { ConstValueNode } from 'graphql';
import { USER_ROLES, builtinJoinFields, isOneSidedBuiltin } from './builtins.js';
import type { TypeDeclaration } from './definitions.js';
import { argumentValue, single, stringArgument } from './directives.js';
import type { ReadFields, RelationFieldRef } from './fields.js';
import { MAX_IDENTIFIER_BYTES, compareNames, idColumn, lowerCamel, nameProblem } from './names.js';
import type { Report } from './problems.js';
import { SYSTEM_FIELDS } from './types.js';
import type { Relation, RelationEnd } from './types.js';

const KIND_LABEL: Record<Relation['kind'], string> = {
  oneToOne: 'one-to-one',
  oneToMany: 'one-to-many',
  manyToMany: 'many-to-many',
  selfManyToMany: 'self many-to-many',
};

/**
 * Infers every relation from its fields (sorted by declaration order). Relations with a field
 * that could not be read (`unread`) are skipped rather than reported as incomplete.
 */
export function inferRelations(
  refs: readonly RelationFieldRef[],
  unread: ReadonlySet<string>,
  withoutRelation: readonly { type: string; target: string }[],
  report: Report,
): Relation[] {
  const groups = new Map<string, RelationFieldRef[]>();
  for (const ref of [...refs].sort((a, b) => a.order - b.order)) {
    const name = ref.field.relation;
    if (name === USER_ROLES && !ref.field.builtin) {
      report(`${label(ref)}: ${USER_ROLES} is the built-in relation between User.roles and Role.members; choose another relation name`, ref.nameNode);
      continue;
    }
    groups.set(name, [...(groups.get(name) ?? []), ref]);
  }
  const relations: Relation[] = [];
  for (const [name, group] of groups) {
    if (unread.has(name)) continue;
    const first = group[0];
    if (!first) continue;
    const problem = nameProblem('Relation name', name);
    if (problem) report(problem, first.nameNode);
    // A lone field whose reverse was written without @relation: that field is reported already.
    const reverseLacksRelation = group.length === 1 && withoutRelation.some((w) => w.type === first.field.target && w.target === first.type);
    if (reverseLacksRelation) continue;
    const relation = relationOf(name, group, report);
    if (relation) relations.push(relation);
  }
  return relations;
}

function label(ref: RelationFieldRef): string {
  return `${ref.type}.${ref.field.name}`;
}

function end(ref: RelationFieldRef): RelationEnd {
  return { type: ref.type, field: ref.field.name, list: ref.field.list };
}

function relationOf(name: string, group: RelationFieldRef[], report: Report): Relation | undefined {
  const [a, b, third] = group;
  if (!a) return undefined;
  if (third) {
    const fields = group.map(label).join(', ');
    report(`Relation ${name} is used on ${group.length} fields (${fields}); a relation name belongs to exactly two fields, or to one list field pointing at its own type`, third.nameNode);
    return undefined;
  }
  if (!b) {
    if (a.field.list && a.field.target === a.type) return selfManyToMany(name, a);
    if (a.field.builtin && !a.field.list && isOneSidedBuiltin(name)) return oneSided(name, a);
    report(noReverseSide(name, a), a.nameNode);
    return undefined;
  }
  if (a.field.target !== b.type || b.field.target !== a.type) {
    report(
      `The two fields of relation ${name} must point at each other's types: ${label(a)} points at ${a.field.target}, ${label(b)} points at ${b.field.target}`,
      b.nameNode,
    );
    return undefined;
  }
  if (!a.field.list && !b.field.list) return oneToOne(name, a, b);
  if (a.field.list && b.field.list) {
    const relation = manyToMany(name, a, b);
    for (const column of relation.storage.kind === 'joinTable' ? relation.storage.columns : []) {
      if (Buffer.byteLength(column) > MAX_IDENTIFIER_BYTES) {
        report(`Relation ${name}: its join table column ${column} would exceed ${MAX_IDENTIFIER_BYTES} bytes; shorten the type name`, a.nameNode ?? b.nameNode);
      }
    }
    return relation;
  }
  const [single, list] = a.field.list ? [b, a] : [a, b];
  return {
    name,
    kind: 'oneToMany',
    ends: [end(single), end(list)],
    storage: { kind: 'foreignKey', table: single.type, column: idColumn(single.field.name), target: list.type, unique: false },
    joinFields: [],
  };
}

/**
 * A built-in singular field whose target declares no reverse field (`File.owner` without a
 * `User` field of `FileOwner`): one-to-many, its list end naming no field. Declaring the reverse
 * later keeps the same storage.
 */
function oneSided(name: string, ref: RelationFieldRef): Relation {
  return {
    name,
    kind: 'oneToMany',
    ends: [end(ref), { type: ref.field.target, field: '', list: true }],
    storage: { kind: 'foreignKey', table: ref.type, column: idColumn(ref.field.name), target: ref.field.target, unique: false },
    joinFields: [],
  };
}

function noReverseSide(name: string, ref: RelationFieldRef): string {
  const { target } = ref.field;
  const head = `Relation ${name} has no reverse side: ${label(ref)} is its only field`;
  if (target === ref.type && !ref.field.list) {
    return `${head}. A singular field cannot be its own reverse (symmetric one-to-one relations are not supported): add a second ${target} field with @relation(name: "${name}"), or make this one a list`;
  }
  return `${head}. Add a field of type ${ref.type} or [${ref.type}] to ${target} with @relation(name: "${name}")`;
}

/** The side whose `Type.field` sorts first holds the unique foreign key. */
function oneToOne(name: string, a: RelationFieldRef, b: RelationFieldRef): Relation {
  const [owner, other] = compareNames(label(a), label(b)) <= 0 ? [a, b] : [b, a];
  return {
    name,
    kind: 'oneToOne',
    ends: [end(owner), end(other)],
    storage: { kind: 'foreignKey', table: owner.type, column: idColumn(owner.field.name), target: other.type, unique: true },
    joinFields: [],
  };
}

/** End 1 is the field declared first; two ends of one type are told apart as `<type>1`/`<type>2`. */
function manyToMany(name: string, a: RelationFieldRef, b: RelationFieldRef): Relation {
  const [lcA, lcB] = [lowerCamel(a.type), lowerCamel(b.type)];
  // Types whose lower-camel names coincide (`URL`, `Url`) are numbered like a self relation.
  const endNames: [string, string] = lcA === lcB ? [`${lcA}1`, `${lcB}2`] : [lcA, lcB];
  return {
    name,
    kind: 'manyToMany',
    ends: [end(a), end(b)],
    storage: { kind: 'joinTable', table: name, columns: [idColumn(endNames[0]), idColumn(endNames[1])], targets: [a.type, b.type], endNames },
    joinFields: builtinJoinFields(name),
  };
}

function selfManyToMany(name: string, a: RelationFieldRef): Relation {
  const lc = lowerCamel(a.type);
  return {
    name,
    kind: 'selfManyToMany',
    ends: [end(a), end(a)],
    storage: { kind: 'joinTable', table: name, columns: [`${lc}1Id`, `${lc}2Id`], targets: [a.type, a.type], endNames: [`${lc}1`, `${lc}2`] },
    joinFields: [],
  };
}

/** Names a join field cannot take: the join object's ends, their id inputs, and edge and system fields. */
function reservedJoinFieldNames(relation: Relation): Map<string, string> {
  const reserved = new Map<string, string>();
  if (relation.storage.kind !== 'joinTable') return reserved;
  for (const endName of relation.storage.endNames) {
    reserved.set(endName, `the end ${endName} of relation ${relation.name}`);
    reserved.set(idColumn(endName), `the end input ${idColumn(endName)} of relation ${relation.name}`);
  }
  for (const name of SYSTEM_FIELDS) reserved.set(name, 'a system field of the join object');
  for (const name of ['cursor', 'node']) reserved.set(name, `the edge field ${name} (join fields are exposed on the relation's edges)`);
  return reserved;
}

/**
 * Attaches the fields of each `type R @join(relation: "R")` to the many-to-many relation R.
 * `read` holds the fields read from each join type.
 */
export function attachJoinTypes(
  relations: Relation[],
  joins: ReadonlyMap<string, TypeDeclaration>,
  read: ReadonlyMap<string, ReadFields>,
  unread: ReadonlySet<string>,
  report: Report,
) {
  const byName = new Map(relations.map((r) => [r.name, r]));
  const taken = new Set<string>();
  for (const [typeName, declaration] of joins) {
    const directive = single(declaration.directives, 'join');
    const relationName = directive ? stringArgument(directive, 'relation') : undefined;
    const at: ConstValueNode | undefined = directive ? argumentValue(directive, 'relation') : undefined;
    if (relationName === undefined || unread.has(relationName)) continue;
    if (relationName !== typeName) {
      report(`A join type is named after its relation: @join(relation: "${relationName}") belongs on type ${relationName}, not ${typeName}`, at);
      continue;
    }
    const relation = byName.get(relationName);
    if (!relation) {
      report(`@join(relation: "${relationName}"): there is no relation named ${relationName}`, at);
      continue;
    }
    if (relation.kind !== 'manyToMany' && relation.kind !== 'selfManyToMany') {
      report(`@join(relation: "${relationName}"): ${relationName} is a ${KIND_LABEL[relation.kind]} relation; only many-to-many relations have join types`, at);
      continue;
    }
    if (taken.has(relationName)) {
      report(`Relation ${relationName} already has a join type`, declaration.node.name);
      continue;
    }
    taken.add(relationName);
    const fields = read.get(typeName);
    if (!fields) continue;
    const reserved = reservedJoinFieldNames(relation);
    for (const field of fields.fields) {
      const clash = reserved.get(field.name);
      if (clash) report(`Join field ${typeName}.${field.name} clashes with ${clash}`, fields.nodes.get(field.name)?.name);
      if (field.kind === 'value') relation.joinFields.push(field);
    }
  }
}

/** Relations sorted by name, as the model lists them. */
export function sortRelations(relations: Relation[]): Relation[] {
  return [...relations].sort((x, y) => compareNames(x.name, y.name));
}
