// The model stage's public face: the typed model of an app schema, its parser and validator,
// the names derived from it, per-app settings, and the migration planner.

export * from './types.js';
export * from './settings.js';
export { parseSchema } from './parse.js';
export type { ParseOptions } from './parse.js';
export { CUSTOM_OPERATION } from './customFields.js';
export { API_TYPE_NAMES, ApiNames, isTextField } from './apiNames.js';
export type { AggregateName, EdgeVerb, NameEntry, RowVerb } from './apiNames.js';
export { declaredNames } from './generated.js';
export type { DeclaredName } from './generated.js';
export { ACCESS_LEVEL, ADMIN_ROLE, BUILTIN_TYPES, FILE, FILE_OWNER, ROLE, USER, USER_ROLES, accountType, adoptableBuiltin, builtinFields, builtinTraits, fieldTraits, isManagedField, isOneSidedBuiltin, lacksBuiltins, isMembership, membershipOf } from './builtins.js';
export type { BuiltinFieldTraits, BuiltinTypeTraits, DefaultScope, Membership } from './builtins.js';
export { MAX_IDENTIFIER_BYTES, capitalize, idColumn, lowerCamel, pluralOf } from './names.js';
export { normalizeDateTime } from './datetime.js';
export * from './diff.js';
export { LINK_TIME_COLUMN, holdsLinks, relationLink } from './links.js';
export { decodeAnyId, decodeId, encodeId, quotedId } from './ids.js';
export type { Link } from './links.js';
