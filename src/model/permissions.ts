// Reads and validates @permission rules on types and fields: the scope and what it needs
// (RELATION paths to a User, ROLE names), the operations granted and field lists.

import type { ASTNode, ConstDirectiveNode, ConstValueNode } from 'graphql';
import { USER } from './builtins.js';
import { argumentNode, argumentValue, booleanArgument, enumArgument, stringListArgument } from './directives.js';
import type { Report } from './problems.js';
import { PERMISSION_OPERATIONS, PERMISSION_SCOPES, SYSTEM_FIELDS } from './types.js';
import type { Field, ModelType, PermissionRule, PermissionScope } from './types.js';

const SCOPES: readonly string[] = PERMISSION_SCOPES;
const SYSTEM: readonly string[] = SYSTEM_FIELDS;

function isScope(value: string | undefined): value is PermissionScope {
  return value !== undefined && SCOPES.includes(value);
}

/**
 * Reads the `@permission` rules written on `type` (or on its field `field`). Rules with a
 * problem are reported and left out.
 */
export function readRules(
  directives: readonly ConstDirectiveNode[],
  type: ModelType,
  field: Field | undefined,
  types: ReadonlyMap<string, ModelType>,
  report: Report,
): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const directive of directives) {
    const rule = readRule(directive, type, field, types, report);
    if (rule) rules.push(rule);
  }
  return rules;
}

function readRule(directive: ConstDirectiveNode, type: ModelType, field: Field | undefined, types: ReadonlyMap<string, ModelType>, report: Report): PermissionRule | undefined {
  const scope = enumArgument(directive, 'scope');
  if (!isScope(scope)) return undefined;
  let ok = true;
  const fail = (message: string, node: ASTNode | undefined) => {
    report(message, node);
    ok = false;
  };
  const where = field ? `${type.name}.${field.name}` : type.name;
  const argAt = (name: string) => argumentNode(directive, name)?.name ?? directive;
  const userFields = stringListArgument(directive, 'userFields');
  const roles = stringListArgument(directive, 'roles');
  const fields = stringListArgument(directive, 'fields');
  const fieldLevel = field !== undefined || fields !== undefined;

  if (scope === 'SELF' && type.name !== USER) {
    fail(`Scope SELF means "the user's own User object" and only applies to User, not ${where}`, argumentValue(directive, 'scope'));
  }
  if (scope === 'RELATION') {
    if (!userFields?.length) fail(`Scope RELATION needs userFields: ["…"], paths of relation fields from ${type.name} to a User (${where})`, directive);
    for (const path of userFields ?? []) if (!checkPath(path.value, path.node, type, types, report)) ok = false;
  } else if (userFields !== undefined) {
    fail(`userFields only applies to scope RELATION (${where})`, argAt('userFields'));
  }
  if (scope === 'ROLE') {
    if (!roles?.length) fail(`Scope ROLE needs roles: ["…"], the names of the roles it grants access to (${where})`, directive);
    for (const role of roles ?? []) if (role.value.trim() === '') fail(`A role name cannot be empty (${where})`, role.node);
  } else if (roles !== undefined) {
    fail(`roles only applies to scope ROLE (${where})`, argAt('roles'));
  }

  if (field && fields !== undefined) {
    fail(`fields: is for rules written on a type; this rule is already on the field ${where}`, argAt('fields'));
  } else if (fields !== undefined) {
    if (fields.length === 0) fail(`fields: [] lists no field; leave fields out for a rule on the whole type ${where}`, argAt('fields'));
    for (const f of fields) if (!checkRuleField(f.value, f.node, type, report)) ok = false;
  }
  if (fieldLevel && booleanArgument(directive, 'delete') !== undefined) {
    fail(`delete cannot be granted on a field: fields are deleted with their object (${where})`, argAt('delete'));
  }

  const granted = Object.fromEntries(PERMISSION_OPERATIONS.map((op) => [op, booleanArgument(directive, op) ?? false])) as Record<
    (typeof PERMISSION_OPERATIONS)[number],
    boolean
  >;
  if (!PERMISSION_OPERATIONS.some((op) => granted[op])) {
    const ops = fieldLevel ? 'read, create or update' : 'read, create, update or delete';
    fail(`@permission on ${where} grants nothing: set at least one of ${ops} to true`, directive);
  }
  if (!ok) return undefined;
  return {
    scope,
    ...granted,
    userFields: userFields?.map((p) => p.value) ?? [],
    roles: roles?.map((r) => r.value) ?? [],
    fields: fields?.map((f) => f.value) ?? [],
  };
}

/** A `userFields` path: relation fields, any kind and depth, from `start` to a User. */
function checkPath(path: string, node: ConstValueNode, start: ModelType, types: ReadonlyMap<string, ModelType>, report: Report): boolean {
  let current = start;
  for (const step of path.split('.')) {
    if (step === '') {
      report(`userFields path "${path}" has an empty step: write relation field names separated by dots, e.g. "author" or "channel.members"`, node);
      return false;
    }
    const field = current.fields.find((f) => f.name === step);
    if (!field) {
      report(`userFields path "${path}": ${current.name} has no field ${step}`, node);
      return false;
    }
    if (field.kind !== 'relation') {
      report(`userFields path "${path}": ${current.name}.${step} is not a relation field`, node);
      return false;
    }
    const next = types.get(field.target);
    if (!next) return false;
    current = next;
  }
  if (current.name !== USER) {
    report(`userFields path "${path}" leads from ${start.name} to ${current.name}; it must end at User`, node);
    return false;
  }
  return true;
}

function checkRuleField(name: string, node: ConstValueNode, type: ModelType, report: Report): boolean {
  if (SYSTEM.includes(name)) {
    report(`fields: ${name} is a system field and follows the rules of ${type.name}`, node);
    return false;
  }
  if (!type.fields.some((f) => f.name === name)) {
    report(`fields: ${type.name} has no field ${name}`, node);
    return false;
  }
  return true;
}
