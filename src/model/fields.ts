// Reads the fields of @model, embedded and @join types: field names, type references, and the
// field directives (@unique, @index, @default, @relation, @renamed); relations are collected
// here and inferred later, once every type has been read.

import { Kind } from 'graphql';
import type { ConstDirectiveNode, ConstValueNode, FieldDefinitionNode, NamedTypeNode, ObjectTypeDefinitionNode, TypeNode } from 'graphql';
import { adoptableBuiltin } from './builtins.js';
import { argumentValue, checkDirectives, single, stringArgument } from './directives.js';
import type { DirectiveSite, DirectiveUses } from './directives.js';
import { MAX_IDENTIFIER_BYTES, idColumn, nameProblem } from './names.js';
import type { Report } from './problems.js';
import { SYSTEM_FIELDS } from './types.js';
import type { Field, FieldType, RelationField, ScalarName, ValueField } from './types.js';

/** What a name used as a field type refers to. */
export type TypeKind = 'scalar' | 'enum' | 'embedded' | 'model' | 'join';

export type OwnerKind = 'model' | 'embedded' | 'join';

/** A relation field with what relation inference needs: its relation name and where it was written. */
export interface RelationFieldRef {
  type: string;
  field: RelationField;
  /** Declaration order: built-in fields first (negative), then SDL source order. */
  order: number;
  /** The `name:` value of its @relation (absent for built-in fields). */
  nameNode?: ConstValueNode;
  node?: FieldDefinitionNode;
}

/** A `@default` to check once every enum and embedded type is known. */
export interface PendingDefault {
  field: ValueField;
  label: string;
  value: ConstValueNode;
}

/** `@permission` rules of a field, read once every type and relation is known. */
export interface PendingFieldRules {
  type: string;
  field: Field;
  directives: readonly ConstDirectiveNode[];
}

/** State shared by the reading of every type's fields. */
export interface FieldPass {
  report: Report;
  kindOf(name: string): TypeKind | undefined;
  relationRefs: RelationFieldRef[];
  /** Relation names used on fields that could not be read: their relation is not checked. */
  unreadRelations: Set<string>;
  /** Fields pointing at a @model type without @relation (already reported). */
  withoutRelation: { type: string; target: string }[];
  defaults: PendingDefault[];
  fieldRules: PendingFieldRules[];
}

const SITE: Record<OwnerKind, DirectiveSite> = { model: 'modelField', embedded: 'embeddedField', join: 'joinField' };
const OWNER_LABEL: Record<OwnerKind, string> = { model: '@model types', embedded: 'Embedded types', join: 'Join types' };
const SYSTEM: readonly string[] = SYSTEM_FIELDS;

export interface ReadFields {
  fields: Field[];
  /** Declared fields by name, to point later problems at. */
  nodes: Map<string, FieldDefinitionNode>;
}

/**
 * Reads the declared fields of one type, after `builtins` (User's and Role's own fields).
 * Fields with a problem are reported and left out.
 */
export function readFields(owner: OwnerKind, def: ObjectTypeDefinitionNode, builtins: Field[], pass: FieldPass): ReadFields {
  const typeName = def.name.value;
  const fields: Field[] = [...builtins];
  const nodes = new Map<string, FieldDefinitionNode>();
  const { report } = pass;

  for (const node of def.fields ?? []) {
    const name = node.name.value;
    const label = `${typeName}.${name}`;
    const builtin = builtins.find((f) => f.name === name);
    if (builtin && owner === 'model' && adoptableBuiltin(typeName, name) && !nodes.has(name)) {
      adoptBuiltin(typeName, node, builtin, pass);
      nodes.set(name, node);
      continue;
    }
    const nameIssue = fieldNameProblem(owner, typeName, name, builtins);
    if (nameIssue) report(nameIssue, node.name);
    if (nodes.has(name)) {
      report(`Field ${label} is declared more than once`, node.name);
      continue;
    }
    if (builtins.some((f) => f.name === name)) continue;
    nodes.set(name, node);
    if (node.arguments?.length) report(`Field ${label} cannot take arguments`, node.arguments[0]);
    const directives = checkDirectives(node.directives, SITE[owner], pass.report);
    const field = readField(owner, typeName, node, directives, pass);
    if (field && nameIssue && field.kind === 'relation') forgetRelationField(pass, typeName, field);
    if (!field || nameIssue) continue;
    fields.push(field);
    if (owner === 'model') {
      const rules = directives.get('permission');
      if (rules) pass.fieldRules.push({ type: typeName, field, directives: rules });
    }
  }
  if (owner === 'model') checkRelationInputs(typeName, fields, nodes, report);
  return { fields, nodes };
}

/**
 * An app's own declaration of a built-in field it may declare (`email: String` on User): taken
 * as the built-in field, which keeps the app's `@permission` rules. Any other type, or another
 * directive, is refused with what the built-in field is.
 */
function adoptBuiltin(typeName: string, node: FieldDefinitionNode, builtin: Field, pass: FieldPass): void {
  const label = `${typeName}.${node.name.value}`;
  const plain = node.type.kind === Kind.NAMED_TYPE && node.type.name.value === 'String';
  if (!plain) {
    pass.report(`Field ${label} is built in (String, optional, unique ignoring case): declare it as "${node.name.value}: String", or give your field another name`, node.type);
    return;
  }
  const directives = checkDirectives(node.directives, SITE.model, pass.report);
  for (const [name, uses] of directives) {
    // It is unique and indexed already; only rules may be added.
    if (name !== 'permission' && name !== 'unique' && name !== 'index') pass.report(`Field ${label} is built in: only @permission rules may be added to it`, uses[0] ?? node);
  }
  const rules = directives.get('permission');
  if (rules) pass.fieldRules.push({ type: typeName, field: builtin, directives: rules });
}

/**
 * A @relation whose name cannot be read: whatever names it mentions are left out of relation
 * inference, so that the fields on the other side are not reported as incomplete.
 */
function forgetRelation(relation: ConstDirectiveNode, pass: FieldPass) {
  for (const arg of relation.arguments ?? []) {
    if (arg.value.kind === Kind.STRING || arg.value.kind === Kind.ENUM) pass.unreadRelations.add(arg.value.value);
  }
}

/** A relation field left out of its type is left out of relation inference too. */
function forgetRelationField(pass: FieldPass, typeName: string, field: RelationField) {
  const i = pass.relationRefs.findIndex((r) => r.type === typeName && r.field === field);
  if (i >= 0) pass.relationRefs.splice(i, 1);
  pass.unreadRelations.add(field.relation);
}

/**
 * What every JavaScript object answers to (Object.prototype's members, but those starting with
 * `__`, which no GraphQL name may). Inputs arrive as plain objects and are read by field name,
 * by graphql-js as by the server: a field of such a name would read as given when it is not.
 */
const OBJECT_MEMBERS: readonly string[] = ['constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'toString', 'valueOf'];
const OBJECT_MEMBERS_TEXT = `${OBJECT_MEMBERS.slice(0, -1).join(', ')} and ${OBJECT_MEMBERS.at(-1) ?? ''}`;

function fieldNameProblem(owner: OwnerKind, typeName: string, name: string, builtins: Field[]): string | undefined {
  const problem = nameProblem('Field name', name, `${typeName}.${name}`);
  if (problem) return problem;
  if (owner === 'model' && SYSTEM.includes(name)) {
    return `Field ${typeName}.${name} cannot be declared: id, createdAt and modifiedAt are added to every @model type automatically`;
  }
  if (builtins.some((f) => f.name === name)) return `Field ${typeName}.${name} is built in and cannot be redeclared`;
  if (name === 'clientMutationId') return `Field ${typeName}.${name}: the name clientMutationId is reserved for mutation inputs`;
  if (['AND', 'OR', 'NOT'].includes(name)) return `Field ${typeName}.${name}: AND, OR and NOT are reserved for combining filters in where arguments`;
  // Orderable fields become values of the XOrderByField enum, which GraphQL forbids these names.
  if (['true', 'false', 'null'].includes(name)) return `Field ${typeName}.${name}: true, false and null cannot be field names`;
  if (OBJECT_MEMBERS.includes(name)) return `Field ${typeName}.${name}: ${OBJECT_MEMBERS_TEXT} cannot be field names (every JavaScript object has them)`;
  return undefined;
}

interface TypeRef {
  named: NamedTypeNode;
  list: boolean;
  required: boolean;
  /** `[T!]`: non-null list items, which the model does not represent. */
  itemRequired: boolean;
}

function typeRef(type: TypeNode, report: Report): TypeRef | undefined {
  const required = type.kind === Kind.NON_NULL_TYPE;
  const inner = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  if (inner.kind === Kind.NAMED_TYPE) return { named: inner, list: false, required, itemRequired: false };
  const item = inner.type;
  const itemRequired = item.kind === Kind.NON_NULL_TYPE;
  const named = item.kind === Kind.NON_NULL_TYPE ? item.type : item;
  if (named.kind !== Kind.NAMED_TYPE) {
    report('Nested lists are not supported: use a list of an embedded type instead', named);
    return undefined;
  }
  return { named, list: true, required, itemRequired };
}

function readField(owner: OwnerKind, typeName: string, node: FieldDefinitionNode, directives: DirectiveUses, pass: FieldPass): Field | undefined {
  const { report } = pass;
  const label = `${typeName}.${node.name.value}`;
  const relation = single(directives, 'relation');
  const relationName = relation ? stringArgument(relation, 'name') : undefined;
  if (relation && relationName === undefined) forgetRelation(relation, pass);
  const ref = typeRef(node.type, report);
  const kind = ref ? pass.kindOf(ref.named.name.value) : undefined;
  if (!ref || !kind || kind === 'join' || (kind === 'model' && owner !== 'model')) {
    if (ref && !kind) report(`Unknown type ${ref.named.name.value} (field ${label})`, ref.named);
    if (ref && kind === 'join') {
      report(`${ref.named.name.value} is a @join type: it only adds fields to its relation and cannot be a field type (${label})`, ref.named);
    }
    if (ref && kind === 'model') {
      report(`${OWNER_LABEL[owner]} cannot hold relations: ${label} points at the @model type ${ref.named.name.value}`, ref.named);
    }
    if (relationName !== undefined) pass.unreadRelations.add(relationName);
    return undefined;
  }
  if (kind === 'model') return readRelationField(typeName, node, ref, directives, relationName, pass);

  if (relation) report(`${label}: @relation belongs on fields that point at @model types; ${ref.named.name.value} is ${article(kind)} ${kind} type`, relation);
  if (ref.itemRequired) report(`${label}: list items cannot be non-null; write [${ref.named.name.value}]`, node.type);
  const type: FieldType =
    kind === 'scalar' ? { kind: 'scalar', name: ref.named.name.value as ScalarName } : { kind, name: ref.named.name.value };
  const field: ValueField = {
    kind: 'value',
    name: node.name.value,
    type,
    list: ref.list,
    required: ref.required,
    unique: directives.has('unique'),
    index: directives.has('unique') || directives.has('index'),
    builtin: false,
    writeOnly: false,
    column: node.name.value,
    permissions: [],
  };
  checkIndexable(field, label, directives, report);
  const renamed = single(directives, 'renamed');
  const from = renamed ? stringArgument(renamed, 'from') : undefined;
  if (from !== undefined) field.renamedFrom = from;
  const dflt = single(directives, 'default');
  const value = dflt ? argumentValue(dflt, 'value') : undefined;
  if (dflt && value && defaultAllowed(field, label, dflt, report)) pass.defaults.push({ field, label, value });
  return field;
}

function article(kind: TypeKind): string {
  return kind === 'enum' || kind === 'embedded' ? 'an' : 'a';
}

function readRelationField(
  typeName: string,
  node: FieldDefinitionNode,
  ref: TypeRef,
  directives: DirectiveUses,
  relationName: string | undefined,
  pass: FieldPass,
): RelationField | undefined {
  const { report } = pass;
  const label = `${typeName}.${node.name.value}`;
  const target = ref.named.name.value;
  if (ref.required || ref.itemRequired) {
    const written = ref.list ? `[${target}]` : target;
    report(`Relation field ${label} cannot be non-null: write ${written} (a relation may always be empty)`, node.type);
  }
  for (const name of ['unique', 'index', 'default'] as const) {
    const directive = single(directives, name);
    if (directive) report(`${label}: @${name} is not allowed on relation fields`, directive);
  }
  if (!directives.has('relation')) {
    report(`Field ${label} points at the @model type ${target} and needs @relation(name: "…")`, node.name);
    pass.withoutRelation.push({ type: typeName, target });
    return undefined;
  }
  if (relationName === undefined) return undefined;
  const field: RelationField = { kind: 'relation', name: node.name.value, target, list: ref.list, relation: relationName, builtin: false, permissions: [] };
  const renamed = single(directives, 'renamed');
  const from = renamed ? stringArgument(renamed, 'from') : undefined;
  if (from !== undefined) field.renamedFrom = from;
  const relation = single(directives, 'relation');
  const nameNode = relation ? argumentValue(relation, 'name') : undefined;
  pass.relationRefs.push({ type: typeName, field, order: node.loc?.start ?? 0, node, ...(nameNode ? { nameNode } : {}) });
  return field;
}

/** What keeps a field from an index, or undefined when it can have one. */
function unindexable(field: ValueField): string | undefined {
  if (field.list) return 'list fields';
  if (field.type.kind === 'embedded') return 'embedded values';
  if (field.type.kind === 'scalar' && field.type.name === 'Text') return 'Text fields (use String for short, indexable text)';
  if (field.type.kind === 'scalar' && field.type.name === 'JSON') return 'JSON fields';
  return undefined;
}

function checkIndexable(field: ValueField, label: string, directives: DirectiveUses, report: Report) {
  const reason = unindexable(field);
  if (!reason) return;
  for (const name of ['unique', 'index'] as const) {
    const directive = single(directives, name);
    if (directive) report(`${label}: @${name} is not allowed on ${reason}`, directive);
  }
}

function defaultAllowed(field: ValueField, label: string, directive: ConstDirectiveNode, report: Report): boolean {
  if (field.type.kind !== 'scalar' || (field.type.name !== 'ID' && field.type.name !== 'Text')) return true;
  const why = field.type.name === 'ID' ? 'ID fields cannot have a default' : 'Text fields cannot have a default (use String)';
  report(`${label}: ${why}`, directive);
  return false;
}

/**
 * A singular relation field `author` is set through the input and column `authorId`: no value
 * field may take that name, and the column must fit PostgreSQL's identifier limit.
 */
function checkRelationInputs(typeName: string, fields: Field[], nodes: Map<string, FieldDefinitionNode>, report: Report) {
  for (const field of fields) {
    if (field.kind !== 'relation' || field.list) continue;
    const column = idColumn(field.name);
    const clash = fields.find((f) => f.name === column);
    if (clash) report(`Field ${typeName}.${column} clashes with the input ${column} of the relation field ${typeName}.${field.name}`, nodes.get(column)?.name);
    if (Buffer.byteLength(column) > MAX_IDENTIFIER_BYTES) {
      report(`Relation field name ${typeName}.${field.name} is too long: its column ${column} would exceed ${MAX_IDENTIFIER_BYTES} bytes`, nodes.get(field.name)?.name);
    }
  }
}
