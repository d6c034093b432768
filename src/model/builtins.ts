// The built-in parts of every app: the User and Role types, their UserRoles many-to-many
// relation with its accessLevel join field, and the AccessLevel enum.

import type { EnumType, Field, ValueField } from './types.js';

export const USER = 'User';
export const ROLE = 'Role';
export const USER_ROLES = 'UserRoles';
export const ACCESS_LEVEL = 'AccessLevel';
/** The role every app starts with; its members are the app's admins. */
export const ADMIN_ROLE = 'admin';

/** Built-in `@model` types; an app may add fields to them with `type User @model { … }`. */
export const BUILTIN_TYPES: readonly string[] = [USER, ROLE];

function builtinValue(name: string, spec: Partial<ValueField> & Pick<ValueField, 'type'>): ValueField {
  return {
    kind: 'value',
    name,
    list: false,
    required: false,
    unique: false,
    index: false,
    builtin: true,
    writeOnly: false,
    column: name,
    permissions: [],
    ...spec,
  };
}

/** The built-in fields of `User` or `Role`, in order (fresh objects on every call). */
export function builtinFields(type: string): Field[] {
  if (type === USER) {
    return [
      builtinValue('username', { type: { kind: 'scalar', name: 'String' }, required: true, unique: true, index: true }),
      builtinValue('password', { type: { kind: 'scalar', name: 'String' }, required: true, writeOnly: true }),
      builtinValue('lastLogin', { type: { kind: 'scalar', name: 'DateTime' } }),
      { kind: 'relation', name: 'roles', target: ROLE, list: true, relation: USER_ROLES, builtin: true, permissions: [] },
    ];
  }
  if (type === ROLE) {
    return [
      builtinValue('name', { type: { kind: 'scalar', name: 'String' }, required: true, unique: true, index: true }),
      { kind: 'relation', name: 'members', target: USER, list: true, relation: USER_ROLES, builtin: true, permissions: [] },
    ];
  }
  return [];
}

/** The join fields of a built-in relation (`UserRoles.accessLevel`). */
export function builtinJoinFields(relation: string): ValueField[] {
  return relation === USER_ROLES ? [builtinValue('accessLevel', { type: { kind: 'enum', name: ACCESS_LEVEL } })] : [];
}

export function builtinEnum(): EnumType {
  return { name: ACCESS_LEVEL, values: ['admin', 'readwrite', 'readonly'], builtin: true };
}

/** Built-in fields the server maintains and no input may set (`User.lastLogin`). */
export function isManagedField(field: Field): boolean {
  return field.kind === 'value' && field.builtin && field.name === 'lastLogin';
}
