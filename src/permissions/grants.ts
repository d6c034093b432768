// The rules that apply to one operation on a type or a field: the app's @permission rules,
// or the built-in defaults of User and Role when the app declares no type rule on them.

import { CUSTOM_OPERATION, builtinTraits } from '../model/index.js';
import type { CustomField, ModelType, PermissionOperation, PermissionRule } from '../model/index.js';

/** One way to be granted an operation. */
export type Grant =
  | { scope: 'EVERYONE' }
  | { scope: 'AUTHENTICATED' }
  | { scope: 'SELF' }
  | { scope: 'RELATION'; paths: string[] }
  | { scope: 'ROLE'; roles: string[] };

function grantOf(rule: PermissionRule): Grant {
  switch (rule.scope) {
    case 'EVERYONE':
    case 'AUTHENTICATED':
    case 'SELF':
      return { scope: rule.scope };
    case 'RELATION':
      return { scope: 'RELATION', paths: rule.userFields };
    case 'ROLE':
      return { scope: 'ROLE', roles: rule.roles };
    default: {
      const never: never = rule.scope;
      throw new Error(`unknown scope ${String(never)}`);
    }
  }
}

/**
 * Whether the app wrote a rule on the type itself. Field rules (on a field, or a type rule
 * with `fields: [...]`) govern their fields only, so they leave the built-in defaults in force.
 */
function declaresTypeRules(type: ModelType): boolean {
  return type.permissions.some((r) => r.fields.length === 0);
}

/**
 * The grants of `op` on rows of `type` (empty: nobody but admins). Most lenient wins: any grant
 * will do. A built-in type without type rules of the app's has its default rules
 * (model/builtins.ts); app admins pass every rule besides.
 */
export function typeGrants(type: ModelType, op: PermissionOperation): Grant[] {
  const defaults = builtinTraits(type)?.defaultRules;
  if (defaults && !declaresTypeRules(type)) {
    return defaults[op].map((scope): Grant => (typeof scope === 'string' ? { scope } : { scope: 'RELATION', paths: [scope.relation] }));
  }
  return type.permissions.filter((r) => r.fields.length === 0 && r[op]).map(grantOf);
}

/**
 * The grants of `op` on the field `name` of `type`, or undefined when the field follows its
 * type for `op`. A field's rules come from directives on the field and from type rules listing
 * it in `fields: [...]`; they govern the operations they grant, and the field follows its type
 * for the others (a rule that only narrows who may read `username` leaves sign-up alone).
 */
export function fieldGrants(type: ModelType, name: string, op: PermissionOperation): Grant[] | undefined {
  const field = type.fields.find((f) => f.name === name);
  const own = [...(field?.permissions ?? []), ...type.permissions.filter((r) => r.fields.includes(name))].filter((r) => r[op]);
  if (own.length === 0) return undefined;
  return own.map(grantOf);
}

/** Whether any field of `type` has rules of its own (reads then check fields one by one). */
export function hasFieldRules(type: ModelType): boolean {
  return type.fields.some((f) => fieldGrants(type, f.name, 'read') !== undefined);
}

/** Who may call a custom field of Query (its `read` rules) or Mutation (its `create` rules); empty: app admins only. */
export function customFieldGrants(field: CustomField): Grant[] {
  const op = CUSTOM_OPERATION[field.root];
  return field.permissions.filter((r) => r[op]).map(grantOf);
}
