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

type Fail = (message: string, node: ASTNode | undefined) => void;

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
  const where = field ? `${type.name}.${field.name}` : type.name;
  const fail: Fail = (message, node) => {
    report(`@permission on ${where}: ${message}`, node);
    ok = false;
  };
  const argAt = (name: string) => argumentNode(directive, name)?.name ?? directive;
  const userFields = stringListArgument(directive, 'userFields');
  const roles = stringListArgument(directive, 'roles');
  const fields = stringListArgument(directive, 'fields');
  const fieldLevel = field !== undefined || fields !== undefined;

  if (scope === 'SELF' && type.name !== USER) {
    fail(`scope SELF means "the user's own User object" and only applies to User`, argumentValue(directive, 'scope'));
  }
  if (scope === 'RELATION') {
    if (!userFields?.length) fail(`scope RELATION needs userFields: ["…"], paths of relation fields from ${type.name} to a User`, directive);
    for (const path of userFields ?? []) checkPath(path.value, path.node, type, types, fail);
  } else if (userFields !== undefined) {
    fail(`userFields only applies to scope RELATION`, argAt('userFields'));
  }
  if (scope === 'ROLE') {
    if (!roles?.length) fail(`scope ROLE needs roles: ["…"], the names of the roles it grants access to`, directive);
    for (const role of roles ?? []) if (role.value.trim() === '') fail(`a role name cannot be empty`, role.node);
  } else if (roles !== undefined) {
    fail(`roles only applies to scope ROLE`, argAt('roles'));
  }

  if (field && fields !== undefined) {
    fail(`fields: is for rules written on a type; this rule is already on a field`, argAt('fields'));
  } else if (fields !== undefined) {
    if (fields.length === 0) fail(`fields: [] lists no field; leave fields out for a rule on the whole type`, argAt('fields'));
    for (const f of fields) checkRuleField(f.value, f.node, type, fail);
  }
  if (fieldLevel && booleanArgument(directive, 'delete') !== undefined) {
    fail(`delete cannot be granted on a field: fields are deleted with their object`, argAt('delete'));
  }

  const granted = Object.fromEntries(PERMISSION_OPERATIONS.map((op) => [op, booleanArgument(directive, op) ?? false])) as Record<
    (typeof PERMISSION_OPERATIONS)[number],
    boolean
  >;
  if (!PERMISSION_OPERATIONS.some((op) => granted[op])) {
    const ops = fieldLevel ? 'read, create or update' : 'read, create, update or delete';
    fail(`the rule grants nothing: set at least one of ${ops} to true`, directive);
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
function checkPath(path: string, node: ConstValueNode, start: ModelType, types: ReadonlyMap<string, ModelType>, fail: Fail) {
  let current = start;
  for (const step of path.split('.')) {
    if (step === '') {
      fail(`userFields path "${path}" has an empty step: write relation field names separated by dots, e.g. "author" or "channel.members"`, node);
      return;
    }
    const field = current.fields.find((f) => f.name === step);
    if (!field) {
      fail(`userFields path "${path}": ${current.name} has no field ${step}`, node);
      return;
    }
    if (field.kind !== 'relation') {
      fail(`userFields path "${path}": ${current.name}.${step} is not a relation field`, node);
      return;
    }
    const next = types.get(field.target);
    if (!next) return;
    current = next;
  }
  if (current.name !== USER) fail(`userFields path "${path}" leads from ${start.name} to ${current.name}; it must end at User`, node);
}

function checkRuleField(name: string, node: ConstValueNode, type: ModelType, fail: Fail) {
  if (SYSTEM.includes(name)) fail(`fields: ${name} is a system field and follows the rules of ${type.name}`, node);
  else if (!type.fields.some((f) => f.name === name)) fail(`fields: ${type.name} has no field ${name}`, node);
}
