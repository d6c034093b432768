// The built-in parts of every app: the User, Role and File types, their UserRoles many-to-many
// relation with its accessLevel join field, File's owner, and the AccessLevel enum — and, as
// data, how they behave: their default rules, their fields' write rules, what creating one does.
// Generic code
// (rules, row writes, the generated API, DDL) reads these tables and never branches on a
// built-in type's name; account behaviour itself lives in the accounts stage.

import type { AppModel, EnumType, Field, ModelType, PermissionOperation, Relation, ValueField } from './types.js';

export const USER = 'User';
export const ROLE = 'Role';
export const USER_ROLES = 'UserRoles';
export const ACCESS_LEVEL = 'AccessLevel';
export const FILE = 'File';
/** The relation of `File.owner`, the uploader; `User` has no field of it unless the app declares one. */
export const FILE_OWNER = 'FileOwner';
/** The role every app starts with; its members are the app's admins. */
export const ADMIN_ROLE = 'admin';

/** Built-in `@model` types; an app may add fields to them with `type User @model { … }`. */
export const BUILTIN_TYPES: readonly string[] = [USER, ROLE, FILE];

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

/** The built-in fields of `User`, `Role` or `File`, in order (fresh objects on every call). */
export function builtinFields(type: string): Field[] {
  if (type === USER) {
    return [
      builtinValue('username', { type: { kind: 'scalar', name: 'String' }, required: true, unique: true, index: true }),
      builtinValue('password', { type: { kind: 'scalar', name: 'String' }, required: true, writeOnly: true }),
      builtinValue('lastLogin', { type: { kind: 'scalar', name: 'DateTime' } }),
      builtinValue('email', { type: { kind: 'scalar', name: 'String' }, unique: true, index: true }),
      builtinValue('emailVerified', { type: { kind: 'scalar', name: 'Boolean' }, required: true, default: false }),
      { kind: 'relation', name: 'roles', target: ROLE, list: true, relation: USER_ROLES, builtin: true, permissions: [] },
    ];
  }
  if (type === ROLE) {
    return [
      builtinValue('name', { type: { kind: 'scalar', name: 'String' }, required: true, unique: true, index: true }),
      { kind: 'relation', name: 'members', target: USER, list: true, relation: USER_ROLES, builtin: true, permissions: [] },
    ];
  }
  if (type === FILE) {
    return [
      builtinValue('name', { type: { kind: 'scalar', name: 'String' }, required: true }),
      builtinValue('contentType', { type: { kind: 'scalar', name: 'String' }, required: true }),
      builtinValue('size', { type: { kind: 'scalar', name: 'Int' }, required: true }),
      builtinValue('sha256', { type: { kind: 'scalar', name: 'String' }, required: true }),
      { kind: 'relation', name: 'owner', target: USER, list: false, relation: FILE_OWNER, builtin: true, permissions: [] },
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

/**
 * Built-in fields the server maintains and no input may set: `User.lastLogin`,
 * `User.emailVerified`, and what an upload decides of a File (its size, digest and uploader).
 */
const MANAGED_FIELDS: ReadonlySet<string> = new Set(['lastLogin', 'emailVerified', 'size', 'sha256', 'owner']);

export function isManagedField(field: Field): boolean {
  return field.builtin && MANAGED_FIELDS.has(field.name);
}

/**
 * Built-in relations whose built-in field has no reverse field unless the app declares one
 * (`File.owner`): the list end of such a relation names no field (`''`).
 */
export function isOneSidedBuiltin(relation: string): boolean {
  return relation === FILE_OWNER;
}

/**
 * Built-in fields an app may also declare, as `email: String` (apps declared their own `email`
 * before it was built in): the declaration is taken as the built-in field, with the app's
 * `@permission` rules on it.
 */
export function adoptableBuiltin(type: string, field: string): boolean {
  return type === USER && field === 'email';
}

/** Whether a stored model lacks built-in fields this version has (an app made before them). */
export function lacksBuiltins(model: AppModel): boolean {
  if (BUILTIN_TYPES.some((name) => !model.types.some((t) => t.builtin && t.name === name))) return true;
  return model.types.some((type) => {
    if (!type.builtin) return false;
    const have = new Set(type.fields.filter((f) => f.builtin).map((f) => f.name));
    return builtinFields(type.name).some((f) => !have.has(f.name));
  });
}

/**
 * A default rule of a built-in type: a scope that needs no arguments, or the users a relation
 * field of the row leads to (`{ relation: 'owner' }`: the File's uploader).
 */
export type DefaultScope = 'EVERYONE' | 'AUTHENTICATED' | 'SELF' | { relation: string };

/** What a built-in type is and does, beyond its fields. */
export interface BuiltinTypeTraits {
  /** Who may do what when the app declares no type-level `@permission` rule on the type. */
  defaultRules: Readonly<Record<PermissionOperation, readonly DefaultScope[]>>;
  /**
   * Creating one is signing up: the create payload is read as the new row's own user, and it
   * offers a token for them.
   */
  signUp?: true;
  /**
   * Rows are the app's accounts: deleting one also deletes what the accounts stage keeps
   * beside it in the catalog (a second factor), so nothing of it outlives the row.
   */
  account?: true;
  /** A user (not an app admin) who creates one joins it through `relation` with `accessLevel`. */
  creatorJoins?: { relation: string; accessLevel: string };
  /**
   * Rows whose `field` holds `value` are reserved to app admins: the app's own rules never let
   * anyone else change or delete them, nor manage their members (the built-in `admin` role).
   */
  reserved?: { field: string; value: string };
  /** Rows every app starts with. */
  seed?: readonly Readonly<Record<string, string>>[];
  /**
   * Rows describe stored bytes (files): they are created from an upload given in the input
   * field `upload`, which decides the value fields named here; the creating user is set in the
   * relation field `owner`; `url` is the read-only field answering a signed download URL.
   * Deleting a row queues its bytes for removal in the same transaction.
   */
  blob?: { upload: string; owner: string; url: string; name: string; contentType: string; size: string; sha256: string };
}

/**
 * The built-in types' traits. Roles are created, renamed and deleted by app admins only:
 * `ROLE` rules name roles, so whoever could create the role a rule names would grant himself
 * its access. Who manages a role's members is decided per role (the membership relation).
 */
const TYPE_TRAITS: Readonly<Record<string, BuiltinTypeTraits>> = {
  [USER]: {
    defaultRules: { create: ['EVERYONE'], read: ['SELF'], update: ['SELF'], delete: [] },
    signUp: true,
    account: true,
  },
  [ROLE]: {
    defaultRules: { create: [], read: ['AUTHENTICATED'], update: [], delete: [] },
    creatorJoins: { relation: USER_ROLES, accessLevel: 'admin' },
    reserved: { field: 'name', value: ADMIN_ROLE },
    seed: [{ name: ADMIN_ROLE }],
  },
  [FILE]: {
    defaultRules: { create: ['AUTHENTICATED'], read: [{ relation: 'owner' }], update: [{ relation: 'owner' }], delete: [{ relation: 'owner' }] },
    blob: { upload: 'blob', owner: 'owner', url: 'url', name: 'name', contentType: 'contentType', size: 'size', sha256: 'sha256' },
  },
};

/** Names a built-in type's API uses beyond its fields (File's `url` and `blob`), with what they are. */
export function reservedFieldNames(type: string): Map<string, string> {
  const blob = TYPE_TRAITS[type]?.blob;
  if (!blob) return new Map();
  return new Map([
    [blob.url, "the File's signed download URL"],
    [blob.upload, 'the upload input of createFile'],
  ]);
}

/** The traits of a built-in type; undefined for an app's own types. */
export function builtinTraits(type: ModelType): BuiltinTypeTraits | undefined {
  return type.builtin ? TYPE_TRAITS[type.name] : undefined;
}

/** How a built-in field's values are written. */
export interface BuiltinFieldTraits {
  /** A name: stored NFC-normalised, never blank. */
  name?: true;
  /** Unique ignoring case (the unique index is on `lower(column)`). */
  uniqueIgnoringCase?: true;
  /** An email address: checked for its form; changing it clears the field `verifiedBy` names. */
  email?: { verifiedBy: string };
  /**
   * Only app admins set it on an update; everyone else goes through the dedicated mutation
   * this message names.
   */
  adminUpdateOnly?: string;
}

const FIELD_TRAITS: Readonly<Record<string, Readonly<Record<string, BuiltinFieldTraits>>>> = {
  [USER]: {
    username: { name: true, uniqueIgnoringCase: true },
    email: { uniqueIgnoringCase: true, email: { verifiedBy: 'emailVerified' } },
    password: { adminUpdateOnly: 'A password is reset with an admin token; users change theirs with changeUserPassword' },
  },
};

/** The write traits of a field; empty for an app's own fields. */
export function fieldTraits(type: ModelType, field: Field): BuiltinFieldTraits {
  return (field.builtin && TYPE_TRAITS[type.name] && FIELD_TRAITS[type.name]?.[field.name]) || {};
}

/**
 * The built-in membership relation between users and roles (`UserRoles`): its join table and
 * which column holds which end. `ROLE` rules and app admins are decided through it.
 */
export interface Membership {
  relation: Relation;
  table: string;
  userColumn: string;
  roleColumn: string;
  /** The role type, and its table. */
  roleType: string;
  roleTable: string;
  /** The join field holding a member's access level. */
  accessLevel: string;
  /** The role whose members are the app's admins. */
  adminRole: string;
}

/** The app's membership relation (every app has it). */
export function membershipOf(model: AppModel): Membership {
  const relation = model.relations.find((r) => r.name === USER_ROLES);
  if (!relation || relation.storage.kind !== 'joinTable') throw new Error('the built-in UserRoles relation is missing');
  const storage = relation.storage;
  const userEnd = storage.targets[0] === USER ? 0 : 1;
  const role = model.types.find((t) => t.name === ROLE);
  return {
    relation,
    table: storage.table,
    userColumn: storage.columns[userEnd],
    roleColumn: storage.columns[userEnd === 0 ? 1 : 0],
    roleType: ROLE,
    roleTable: role?.table ?? ROLE,
    accessLevel: 'accessLevel',
    adminRole: ADMIN_ROLE,
  };
}

/** Whether `relation` is the membership relation, whose edges are managed per role. */
export function isMembership(relation: Relation): boolean {
  return relation.name === USER_ROLES;
}

/** The type of the app's accounts (`User`): who logs in, whose id a token carries. */
export function accountType(model: AppModel): ModelType {
  const user = model.types.find((t) => t.builtin && t.name === USER);
  if (!user) throw new Error('the built-in User type is missing');
  return user;
}
