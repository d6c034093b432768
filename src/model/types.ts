// The typed model of one application's schema: what the SDL means once parsed and validated.
// It is plain JSON-serialisable data; the catalog stores it with each schema version.

export const SCALARS = ['ID', 'String', 'Text', 'Int', 'Float', 'Boolean', 'DateTime', 'JSON'] as const;
export type ScalarName = (typeof SCALARS)[number];

export const PERMISSION_SCOPES = ['EVERYONE', 'AUTHENTICATED', 'SELF', 'RELATION', 'ROLE'] as const;
export type PermissionScope = (typeof PERMISSION_SCOPES)[number];
export const PERMISSION_OPERATIONS = ['read', 'create', 'update', 'delete'] as const;
export type PermissionOperation = (typeof PERMISSION_OPERATIONS)[number];

/** One `@permission(...)` directive, on a type or on a field. */
export interface PermissionRule {
  scope: PermissionScope;
  read: boolean;
  create: boolean;
  update: boolean;
  delete: boolean;
  /** RELATION: dotted paths from the object to a User, e.g. `channel.members`. */
  userFields: string[];
  /** ROLE: role names. */
  roles: string[];
  /** Field-level rules given on the type with `fields: [...]`; empty for a type-wide rule. */
  fields: string[];
}

/** The stored shape of a field's value. */
export type FieldType =
  | { kind: 'scalar'; name: ScalarName }
  | { kind: 'enum'; name: string }
  | { kind: 'embedded'; name: string };

/** A field holding a value (scalar, enum, embedded value, or an inline list of those). */
export interface ValueField {
  kind: 'value';
  name: string;
  type: FieldType;
  /** `[T]`: an inline list, stored as jsonb. */
  list: boolean;
  /** `T!` (for lists: the list itself is non-null). */
  required: boolean;
  unique: boolean;
  index: boolean;
  /** `@default(value: …)`, already checked against the field's type (JSON value). */
  default?: unknown;
  /** `@renamed(from:)`: the field's previous name, used by the migration planner. */
  renamedFrom?: string;
  /** Built-in fields (`username`, `password`, …) are not declared by the app. */
  builtin: boolean;
  /** Write-only fields never appear in the read API (`User.password`). */
  writeOnly: boolean;
  /** Column in the type's table. Equals `name`. */
  column: string;
  permissions: PermissionRule[];
}

/** A field pointing at another `@model` type through a named relation. */
export interface RelationField {
  kind: 'relation';
  name: string;
  /** Target `@model` type name. */
  target: string;
  list: boolean;
  /** The `@relation(name:)`. */
  relation: string;
  renamedFrom?: string;
  builtin: boolean;
  permissions: PermissionRule[];
}

export type Field = ValueField | RelationField;

export interface ModelType {
  name: string;
  /** Plural used in generated names (`allCountries`), English rules or `@model(plural:)`. */
  plural: string;
  /** Table in the app's PostgreSQL schema. Equals `name`. */
  table: string;
  /** Declared fields in SDL order (built-in fields first for User/Role). System fields
   * `id`, `createdAt`, `modifiedAt` are implicit on every type and not listed. */
  fields: Field[];
  permissions: PermissionRule[];
  /** `User` and `Role` are built in; an app may add fields to them. */
  builtin: boolean;
  renamedFrom?: string;
}

export interface EmbeddedType {
  name: string;
  fields: ValueField[];
}

export interface EnumType {
  name: string;
  values: string[];
  builtin: boolean;
}

export type RelationKind = 'oneToOne' | 'oneToMany' | 'manyToMany' | 'selfManyToMany';

/** One side of a relation: a field on a type. */
export interface RelationEnd {
  type: string;
  field: string;
  list: boolean;
}

/**
 * Where a relation lives in the database.
 * - `foreignKey`: a `uuid` column `column` on `table` (the singular side of one-to-many, or
 *   the owning side of one-to-one, which also gets a unique constraint) referencing `target`.
 * - `joinTable`: many-to-many; one row per edge with a column per end, plus join fields.
 */
export type RelationStorage =
  | { kind: 'foreignKey'; table: string; column: string; target: string; unique: boolean }
  | {
      kind: 'joinTable';
      table: string;
      /** Columns for end 1 and end 2, e.g. `userId`/`postId` or `user1Id`/`user2Id`. */
      columns: [string, string];
      /** Types of end 1 and end 2 (equal for self relations). */
      targets: [string, string];
      /** Names the join object exposes for its two ends (`user`/`post`, `user1`/`user2`). */
      endNames: [string, string];
    };

export interface Relation {
  name: string;
  kind: RelationKind;
  /** Two ends; for a self many-to-many whose field is its own reverse, both are that field.
   * For one-to-many, `ends[0]` is the singular side (holds `<field>Id`), `ends[1]` the list side. */
  ends: [RelationEnd, RelationEnd];
  storage: RelationStorage;
  /** Extra fields declared with `type <Name> @join(relation: "<name>")` (many-to-many only). */
  joinFields: ValueField[];
  renamedFrom?: string;
}

export interface AppModel {
  /** `@model` types, built-ins included, sorted by name. */
  types: ModelType[];
  embedded: EmbeddedType[];
  enums: EnumType[];
  relations: Relation[];
  /** Fields the app adds to Query and Mutation (`extend type Query { … }`), each answered by a
   * RESOLVER function. Absent in models stored before they existed: read it as empty. */
  customFields?: CustomField[];
}

/** The root types an app may extend with fields of its own. */
export const CUSTOM_ROOTS = ['Query', 'Mutation'] as const;
export type CustomRoot = (typeof CUSTOM_ROOTS)[number];

/** The type of a custom field's argument or result, as written (`[Quote!]!`). */
export interface CustomType {
  /** `model` only for a result: the function answers `{ "id": "<global id>" }`. */
  kind: 'scalar' | 'enum' | 'embedded' | 'model';
  name: string;
  list: boolean;
  /** `T!`, or for a list `[T]!`. */
  required: boolean;
  /** `[T!]`: the list's items are non-null. */
  itemRequired: boolean;
}

export interface CustomArgument {
  name: string;
  /** Never of kind `model`. */
  type: CustomType;
}

/** A field of `extend type Query { … }` or `extend type Mutation { … }`. */
export interface CustomField {
  root: CustomRoot;
  name: string;
  /** The RESOLVER function that answers it (`@function(name:)`). */
  function: string;
  arguments: CustomArgument[];
  type: CustomType;
  /** Who may call it: rules granting `read` (Query) or `create` (Mutation); none: app admins only.
   * Scopes are EVERYONE, AUTHENTICATED or ROLE (there is no row for SELF or RELATION). */
  permissions: PermissionRule[];
}

/** System fields every `@model` type has. */
export const SYSTEM_FIELDS = ['id', 'createdAt', 'modifiedAt'] as const;

// ---- migration plans ---------------------------------------------------------------------

/** One typed step of a migration plan. The store turns each into DDL. */
export type MigrationStep =
  | { kind: 'createType'; type: string }
  | { kind: 'dropType'; type: string }
  | { kind: 'renameType'; from: string; to: string }
  | { kind: 'addField'; type: string; field: string }
  | { kind: 'dropField'; type: string; field: string }
  /** Also renames a relation field's `<field>Id` column when it holds one. */
  | { kind: 'renameField'; type: string; from: string; to: string }
  | { kind: 'alterFieldType'; type: string; field: string; from: string; to: string }
  | { kind: 'setRequired'; type: string; field: string }
  | { kind: 'dropRequired'; type: string; field: string }
  | { kind: 'setDefault'; type: string; field: string }
  | { kind: 'dropDefault'; type: string; field: string }
  | { kind: 'addIndex'; type: string; field: string }
  | { kind: 'dropIndex'; type: string; field: string }
  | { kind: 'addUnique'; type: string; field: string }
  | { kind: 'dropUnique'; type: string; field: string }
  | { kind: 'createEnum'; enum: string }
  | { kind: 'alterEnum'; enum: string; added: string[]; removed: string[] }
  | { kind: 'dropEnum'; enum: string }
  | { kind: 'createEmbedded'; embedded: string }
  | { kind: 'alterEmbedded'; embedded: string }
  | { kind: 'dropEmbedded'; embedded: string }
  | { kind: 'addRelation'; relation: string }
  | { kind: 'dropRelation'; relation: string }
  | { kind: 'renameRelation'; from: string; to: string }
  | { kind: 'addJoinField'; relation: string; field: string }
  | { kind: 'dropJoinField'; relation: string; field: string }
  | { kind: 'updatePermissions'; type: string }
  | { kind: 'setPlural'; type: string; from: string; to: string }
  /** Custom fields change the API only: no table holds them. */
  | { kind: 'addCustomField'; root: CustomRoot; field: string }
  | { kind: 'alterCustomField'; root: CustomRoot; field: string }
  | { kind: 'dropCustomField'; root: CustomRoot; field: string };

export type MigrationStepKind = MigrationStep['kind'];

export interface PlannedStep {
  step: MigrationStep;
  /** Human-readable, e.g. `Add field Post.rating (Int)`. */
  description: string;
  destructive: boolean;
}

export interface MigrationPlan {
  steps: PlannedStep[];
  /** The model being migrated from (null when creating an app) and to. */
  from: AppModel | null;
  to: AppModel;
}
