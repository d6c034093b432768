// Sorts the definitions of an app schema into @model, embedded and @join types, enums and the
// extensions of Query and Mutation (custom fields), rejecting every other kind of definition,
// duplicate names and misused built-in names.

import { Kind } from 'graphql';
import type { DefinitionNode, DocumentNode, EnumTypeDefinitionNode, ObjectTypeDefinitionNode, ObjectTypeExtensionNode } from 'graphql';
import { ACCESS_LEVEL, BUILTIN_TYPES, USER_ROLES } from './builtins.js';
import { checkDirectives } from './directives.js';
import type { DirectiveSite, DirectiveUses } from './directives.js';
import { nameProblem } from './names.js';
import type { Report } from './problems.js';
import { CUSTOM_ROOTS, SCALARS } from './types.js';

export interface TypeDeclaration {
  node: ObjectTypeDefinitionNode;
  /** The type's own directives, checked against the directive table for its kind. */
  directives: DirectiveUses;
}

/** The definitions of one app schema by kind, each name at most once across all kinds. */
export interface Declarations {
  models: Map<string, TypeDeclaration>;
  embedded: Map<string, TypeDeclaration>;
  joins: Map<string, TypeDeclaration>;
  enums: Map<string, EnumTypeDefinitionNode>;
  /** `extend type Query { … }` and `extend type Mutation { … }`, in SDL order (several allowed). */
  extensions: ObjectTypeExtensionNode[];
}

const SCALAR_NAMES: readonly string[] = SCALARS;
const ROOT_NAMES: readonly string[] = CUSTOM_ROOTS;

export function emptyDeclarations(): Declarations {
  return { models: new Map(), embedded: new Map(), joins: new Map(), enums: new Map(), extensions: [] };
}

export function collectDeclarations(document: DocumentNode, report: Report): Declarations {
  const declarations = emptyDeclarations();
  const firstLine = new Map<string, number>();

  for (const definition of document.definitions) {
    if (definition.kind === Kind.OBJECT_TYPE_EXTENSION && ROOT_NAMES.includes(definition.name.value)) {
      if (checkRootExtension(definition, report)) declarations.extensions.push(definition);
      continue;
    }
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.ENUM_TYPE_DEFINITION) {
      reportUnsupported(definition, report);
      continue;
    }
    const name = definition.name.value;
    const seenAt = firstLine.get(name);
    if (seenAt !== undefined) {
      report(`Type ${name} is defined more than once (first on line ${seenAt})`, definition.name);
      continue;
    }
    firstLine.set(name, definition.name.loc?.startToken.line ?? 1);
    const problem = nameProblem('Type name', name);
    if (problem) report(problem, definition.name);
    if (!checkBuiltinName(definition, report)) continue;

    if (definition.kind === Kind.ENUM_TYPE_DEFINITION) {
      checkDirectives(definition.directives, 'enum', report);
      declarations.enums.set(name, definition);
      continue;
    }
    for (const iface of definition.interfaces ?? []) {
      report(`Type ${name} cannot implement ${iface.name.value}: interfaces are not supported (every @model type implements Node and Timestamped automatically)`, iface);
    }
    const written = new Set(definition.directives?.map((d) => d.name.value));
    let site: DirectiveSite = written.has('join') ? 'join' : written.has('model') ? 'model' : 'embedded';
    let directives = definition.directives;
    if (written.has('model') && written.has('join')) {
      // Read as the join type it names a relation for, so the relation is not reported too.
      const model = directives?.find((d) => d.name.value === 'model');
      report(`Type ${name} cannot be both @model and @join: a join type only adds fields to a many-to-many relation`, model);
      directives = directives?.filter((d) => d.name.value !== 'model');
      site = 'join';
    }
    const declaration = { node: definition, directives: checkDirectives(directives, site, report) };
    const kinds = { model: declarations.models, join: declarations.joins, embedded: declarations.embedded } as const;
    kinds[site as keyof typeof kinds].set(name, declaration);
  }
  return declarations;
}

/** `extend type Query` / `Mutation` adds fields only: no directive or interface on the type itself. */
function checkRootExtension(definition: ObjectTypeExtensionNode, report: Report): boolean {
  const name = definition.name.value;
  for (const directive of definition.directives ?? []) report(`extend type ${name} takes no directives: put @function and @permission on each field`, directive);
  for (const iface of definition.interfaces ?? []) report(`extend type ${name} cannot add interfaces (${iface.name.value})`, iface);
  if (!definition.fields?.length) {
    report(`extend type ${name} adds no field`, definition.name);
    return false;
  }
  return true;
}

/**
 * Built-in names: `User`/`Role` may only be declared as `@model` (to add fields); the other
 * built-in names and the scalars cannot be declared. False when the definition must be dropped
 * (the built-in stands in its place).
 */
function checkBuiltinName(definition: ObjectTypeDefinitionNode | EnumTypeDefinitionNode, report: Report): boolean {
  const name = definition.name.value;
  const isModel = definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.directives?.some((d) => d.name.value === 'model');
  if (BUILTIN_TYPES.includes(name) && !isModel) {
    report(`${name} is a built-in @model type: declare it as type ${name} @model { … } to add fields to it`, definition.name);
    return false;
  }
  if (name === USER_ROLES) {
    report(`${USER_ROLES} is the built-in relation between User.roles and Role.members; it cannot be declared or extended`, definition.name);
    return false;
  }
  if (name === ACCESS_LEVEL) {
    report(`${ACCESS_LEVEL} is the built-in enum of role access levels (admin, readwrite, readonly); it cannot be declared`, definition.name);
    return false;
  }
  if (SCALAR_NAMES.includes(name)) {
    report(`Type name ${name} is reserved: it is a built-in scalar`, definition.name);
    return false;
  }
  return true;
}

function reportUnsupported(definition: DefinitionNode, report: Report) {
  switch (definition.kind) {
    case Kind.SCHEMA_DEFINITION:
    case Kind.SCHEMA_EXTENSION:
      return report('Schema definitions are not supported: the Query, Mutation and Subscription types are generated', definition);
    case Kind.SCALAR_TYPE_DEFINITION:
      return report(
        `Custom scalars are not supported (scalar ${definition.name.value}); use one of ${SCALARS.join(', ')}, an enum or an embedded type`,
        definition.name,
      );
    case Kind.INTERFACE_TYPE_DEFINITION:
      return report(`Interfaces are not supported (interface ${definition.name.value})`, definition.name);
    case Kind.UNION_TYPE_DEFINITION:
      return report(`Unions are not supported (union ${definition.name.value})`, definition.name);
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      return report(`Input types are not supported (input ${definition.name.value}): the API generates its own input types`, definition.name);
    case Kind.DIRECTIVE_EXTENSION:
      return report(`Directive extensions are not supported (extend directive @${definition.name.value})`, definition.name);
    case Kind.DIRECTIVE_DEFINITION:
      return report(`Directive definitions are not supported (@${definition.name.value}): the schema language's directives are built in`, definition.name);
    case Kind.OBJECT_TYPE_EXTENSION:
    case Kind.INTERFACE_TYPE_EXTENSION:
    case Kind.UNION_TYPE_EXTENSION:
    case Kind.ENUM_TYPE_EXTENSION:
    case Kind.INPUT_OBJECT_TYPE_EXTENSION:
    case Kind.SCALAR_TYPE_EXTENSION: {
      const name = definition.name.value;
      const hint = BUILTIN_TYPES.includes(name)
        ? `declare type ${name} @model { … } to add fields to the built-in ${name}`
        : name === 'Subscription'
          ? 'subscriptions are generated; only Query and Mutation take fields of the app'
          : `declare ${name} once, with all its fields`;
      return report(`Type extensions are not supported (extend ${name}): ${hint}`, definition.name);
    }
    case Kind.OPERATION_DEFINITION:
    case Kind.FRAGMENT_DEFINITION:
      return report('A schema holds type definitions only: operations and fragments are not allowed', definition);
    case Kind.OBJECT_TYPE_DEFINITION:
    case Kind.ENUM_TYPE_DEFINITION:
      return;
    default: {
      const unreachable: never = definition;
      return unreachable;
    }
  }
}
