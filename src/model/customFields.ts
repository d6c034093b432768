// Reads the app's own root fields: `extend type Query { … }` and `extend type Mutation { … }`,
// each answered by a RESOLVER function (`@function(name:)`), with arguments of scalars, enums
// and embedded types, a result of those or of a @model type, and who may call it (@permission).

import { Kind } from 'graphql';
import type { ConstDirectiveNode, FieldDefinitionNode, InputValueDefinitionNode, ObjectTypeExtensionNode, TypeNode } from 'graphql';
import { argumentNode, argumentValue, booleanArgument, checkDirectives, enumArgument, single, stringArgument, stringListArgument } from './directives.js';
import type { TypeKind } from './fields.js';
import { nameProblem } from './names.js';
import type { Report } from './problems.js';
import type { CustomArgument, CustomField, CustomRoot, CustomType, PermissionRule, ScalarName } from './types.js';

/** The operation a custom field's rules grant: calling a Query field is reading, a Mutation field creating. */
export const CUSTOM_OPERATION: Record<CustomRoot, 'read' | 'create'> = { Query: 'read', Mutation: 'create' };

export interface CustomFieldReading {
  report: Report;
  kindOf(name: string): TypeKind | undefined;
  /** The app's RESOLVER functions by name; when given, `@function(name:)` must name one of them. */
  functions?: ReadonlySet<string> | undefined;
}

/** A custom field with the nodes later checks point at. */
export interface ReadCustomField {
  field: CustomField;
  node: FieldDefinitionNode;
}

export function readCustomFields(extensions: readonly ObjectTypeExtensionNode[], c: CustomFieldReading): ReadCustomField[] {
  const out: ReadCustomField[] = [];
  const seen = new Map<string, number>();
  for (const extension of extensions) {
    const root = extension.name.value as CustomRoot;
    for (const node of extension.fields ?? []) {
      const label = `${root}.${node.name.value}`;
      const key = `${root}.${node.name.value}`;
      const first = seen.get(key);
      if (first !== undefined) {
        c.report(`Field ${label} is declared more than once (first on line ${first})`, node.name);
        continue;
      }
      seen.set(key, node.name.loc?.startToken.line ?? 1);
      const field = readCustomField(root, node, label, c);
      if (field) out.push({ field, node });
    }
  }
  return out;
}

function readCustomField(root: CustomRoot, node: FieldDefinitionNode, label: string, c: CustomFieldReading): CustomField | undefined {
  let ok = true;
  const fail = (message: string, at: Parameters<Report>[1]) => {
    c.report(message, at);
    ok = false;
  };
  const problem = nameProblem('Field name', node.name.value, label);
  if (problem) fail(problem, node.name);
  const directives = checkDirectives(node.directives, 'customField', c.report);
  const fn = single(directives, 'function');
  const functionName = fn && stringArgument(fn, 'name');
  if (!fn) fail(`Field ${label} needs @function(name: "…"): the RESOLVER function that answers it`, node.name);
  else if (functionName === undefined) ok = false;
  else if (functionName.trim() === '') fail(`Field ${label}: @function(name:) cannot be empty`, argumentValue(fn, 'name'));
  else if (c.functions && !c.functions.has(functionName)) {
    fail(`Field ${label}: @function(name: "${functionName}") names no RESOLVER function of the app (create it first with createFunction, kind RESOLVER)`, argumentValue(fn, 'name'));
  }
  const args = readArguments(node.arguments ?? [], label, c, fail);
  const type = customType(node.type, `Field ${label}`, c, fail);
  if (type?.kind === 'model' && (type.list ? type.itemRequired : type.required)) {
    const written = type.list ? `[${type.name}] or [${type.name}]!` : type.name;
    fail(`Field ${label}: a @model result may be hidden from the caller by its rules, so it cannot be non-null; write ${written}`, node.type);
  }
  const permissions = readCustomRules(directives.get('permission') ?? [], root, label, fail);
  if (!ok || !type || functionName === undefined) return undefined;
  return { root, name: node.name.value, function: functionName, arguments: args, type, permissions };
}

function readArguments(nodes: readonly InputValueDefinitionNode[], label: string, c: CustomFieldReading, fail: Report): CustomArgument[] {
  const args: CustomArgument[] = [];
  const names = new Set<string>();
  for (const node of nodes) {
    const name = node.name.value;
    const where = `${label}(${name}:)`;
    const problem = nameProblem('Argument name', name, where);
    if (problem) fail(problem, node.name);
    if (names.has(name)) fail(`Argument ${where} is declared more than once`, node.name);
    names.add(name);
    checkDirectives(node.directives, 'customArgument', fail);
    if (node.defaultValue) fail(`Argument ${where}: default values are not supported; the function decides what a missing argument means`, node.defaultValue);
    const type = customType(node.type, `Argument ${where}`, c, fail);
    if (type?.kind === 'model') {
      fail(`Argument ${where} cannot be of the @model type ${type.name}: take its id (ID) and let the function look it up`, node.type);
      continue;
    }
    if (type && !problem) args.push({ name, type });
  }
  return args;
}

/** `T`, `T!`, `[T]`, `[T!]`, `[T]!`, `[T!]!` of a scalar, enum, embedded or @model type. */
function customType(node: TypeNode, what: string, c: CustomFieldReading, fail: Report): CustomType | undefined {
  const required = node.kind === Kind.NON_NULL_TYPE;
  const inner = node.kind === Kind.NON_NULL_TYPE ? node.type : node;
  let list = false;
  let itemRequired = false;
  let named = inner;
  if (inner.kind === Kind.LIST_TYPE) {
    list = true;
    itemRequired = inner.type.kind === Kind.NON_NULL_TYPE;
    named = inner.type.kind === Kind.NON_NULL_TYPE ? inner.type.type : inner.type;
  }
  if (named.kind !== Kind.NAMED_TYPE) {
    fail(`${what}: nested lists are not supported; use a list of an embedded type`, named);
    return undefined;
  }
  const name = named.name.value;
  const kind = c.kindOf(name);
  if (kind === undefined) {
    fail(`Unknown type ${name} (${what.charAt(0).toLowerCase()}${what.slice(1)})`, named);
    return undefined;
  }
  if (kind === 'join') {
    fail(`${what}: ${name} is a @join type; it only adds fields to its relation`, named);
    return undefined;
  }
  if (kind === 'scalar') return { kind, name: name as ScalarName, list, required, itemRequired };
  return { kind, name, list, required, itemRequired };
}

/**
 * The `@permission` rules of a custom field: EVERYONE, AUTHENTICATED or ROLE, granting `read`
 * on a Query field and `create` on a Mutation field (what calling it is). Rules with a problem
 * are reported and left out.
 */
function readCustomRules(directives: readonly ConstDirectiveNode[], root: CustomRoot, label: string, fail: Report): PermissionRule[] {
  const op = CUSTOM_OPERATION[root];
  const rules: PermissionRule[] = [];
  for (const directive of directives) {
    let ok = true;
    const bad = (message: string, at: Parameters<Report>[1]) => {
      fail(`@permission on ${label}: ${message}`, at);
      ok = false;
    };
    const scope = enumArgument(directive, 'scope');
    if (scope === 'SELF' || scope === 'RELATION') {
      bad(`scope ${scope} needs an object to hold of, and a ${root} field has none; use EVERYONE, AUTHENTICATED or ROLE`, argumentValue(directive, 'scope'));
    }
    for (const name of ['userFields', 'fields'] as const) {
      const arg = argumentNode(directive, name);
      if (arg) bad(`${name} does not apply to a ${root} field`, arg.name);
    }
    const roles = stringListArgument(directive, 'roles');
    if (scope === 'ROLE') {
      if (!roles?.length) bad('scope ROLE needs roles: ["…"], the names of the roles that may call it', directive);
      for (const role of roles ?? []) if (role.value.trim() === '') bad('a role name cannot be empty', role.node);
    } else if (roles !== undefined) {
      bad('roles only applies to scope ROLE', argumentNode(directive, 'roles')?.name);
    }
    for (const other of ['read', 'create', 'update', 'delete'] as const) {
      if (other !== op && booleanArgument(directive, other) !== undefined) {
        bad(`calling a ${root} field is granted with ${op}: true (${other} does not apply)`, argumentNode(directive, other)?.name);
      }
    }
    if (booleanArgument(directive, op) !== true) bad(`the rule grants nothing: set ${op}: true to let its scope call ${label}`, directive);
    if (!ok || (scope !== 'EVERYONE' && scope !== 'AUTHENTICATED' && scope !== 'ROLE')) continue;
    rules.push({ scope, read: op === 'read', create: op === 'create', update: false, delete: false, userFields: [], roles: roles?.map((r) => r.value) ?? [], fields: [] });
  }
  return rules;
}
