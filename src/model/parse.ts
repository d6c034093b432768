// parseSchema: turns an app's schema SDL into its validated AppModel, running the passes of
// this folder in order and reporting every problem found at once (SCHEMA_INVALID).

import { GraphQLError, Lexer, Source, TokenKind, parse } from 'graphql';
import type { ASTNode, ConstDirectiveNode, DocumentNode, FieldDefinitionNode } from 'graphql';
import { schemaInvalid } from '../errors/index.js';
import { ACCESS_LEVEL, BUILTIN_TYPES, builtinFields, reservedFieldNames } from './builtins.js';
import { readCustomFields } from './customFields.js';
import type { ReadCustomField } from './customFields.js';
import { collectDeclarations, emptyDeclarations } from './definitions.js';
import type { Declarations, TypeDeclaration } from './definitions.js';
import { checkDefault } from './defaults.js';
import { argumentValue, single, stringArgument } from './directives.js';
import { readEnums } from './enums.js';
import { checkEmbeddedCycles } from './embedded.js';
import { readFields } from './fields.js';
import type { FieldPass, ReadFields, TypeKind } from './fields.js';
import { ApiNames } from './apiNames.js';
import { checkNameClashes } from './generated.js';
import type { DeclaredName } from './generated.js';
import { compareNames, nameProblem, pluralOf } from './names.js';
import { readRules } from './permissions.js';
import { createProblems } from './problems.js';
import type { Report } from './problems.js';
import { attachJoinTypes, inferRelations, sortRelations } from './relations.js';
import { checkRenames } from './renames.js';
import { SCALARS } from './types.js';
import type { AppModel, EmbeddedType, EnumType, Field, ModelType, ValueField } from './types.js';

const SCALAR_NAMES: readonly string[] = SCALARS;

export interface ParseOptions {
  /** The app's RESOLVER functions by name: each `@function(name:)` must name one. Left out
   * (a schema read back from the catalog), the names are not checked. */
  functions?: ReadonlySet<string> | undefined;
}

/**
 * Parses and validates an app schema. Throws a `SCHEMA_INVALID` TesseraError listing every
 * problem (`extensions.problems`: `{ message, line, column }`, sorted by position).
 * A schema with no definitions at all is valid: the app has only the built-in types.
 */
export function parseSchema(sdl: string, options: ParseOptions = {}): AppModel {
  const document = parseDocument(sdl);
  const { report, sorted } = createProblems();
  const declarations: Declarations = document ? collectDeclarations(document, report) : emptyDeclarations();
  const reading: Reading = { declarations, report, pass: fieldPass(declarations, report), fieldNodes: new Map() };

  const enums = readEnums(declarations.enums, report);
  const types = readModelTypes(reading);
  const embedded = readEmbeddedTypes(reading);
  const joinFields = new Map([...declarations.joins].map(([name, d]) => [name, readFields('join', d.node, [], reading.pass)] as const));
  checkEmbeddedCycles(embedded, reading.fieldNodes, report);
  applyDefaults(reading.pass, enums, embedded);

  const relations = inferRelations(reading.pass.relationRefs, reading.pass.unreadRelations, reading.pass.withoutRelation, report);
  attachJoinTypes(relations, declarations.joins, joinFields, reading.pass.unreadRelations, report);
  readPermissions(reading, types);
  checkAllRenames(reading, types);

  const model: AppModel = {
    types,
    embedded: embedded.sort((a, b) => compareNames(a.name, b.name)),
    enums: enums.sort((a, b) => compareNames(a.name, b.name)),
    relations: sortRelations(relations),
  };
  checkNames(reading, model);
  const custom = readCustomFields(declarations.extensions, { report, kindOf: reading.pass.kindOf, functions: options.functions });
  checkCustomNames(model, custom, report);
  if (custom.length > 0) model.customFields = custom.map((c) => c.field);

  const problems = sorted();
  if (problems.length > 0) throw schemaInvalid(problems);
  return model;
}

/** What the passes share: the sorted definitions, the field reading state, where fields were written. */
interface Reading {
  declarations: Declarations;
  report: Report;
  pass: FieldPass;
  /** Declared fields of each model, embedded and join type, by type name and field name. */
  fieldNodes: Map<string, ReadonlyMap<string, FieldDefinitionNode>>;
}

function fieldPass(declarations: Declarations, report: Report): FieldPass {
  const modelNames = new Set([...BUILTIN_TYPES, ...declarations.models.keys()]);
  const kindOf = (name: string): TypeKind | undefined => {
    if (SCALAR_NAMES.includes(name)) return 'scalar';
    if (name === ACCESS_LEVEL || declarations.enums.has(name)) return 'enum';
    if (declarations.embedded.has(name)) return 'embedded';
    if (modelNames.has(name)) return 'model';
    return declarations.joins.has(name) ? 'join' : undefined;
  };
  return { report, kindOf, relationRefs: [], unreadRelations: new Set(), withoutRelation: [], defaults: [], fieldRules: [] };
}

/** Every @model type, the built-in ones included (with their fields first), sorted by name. */
function readModelTypes({ declarations, pass, fieldNodes, report }: Reading): ModelType[] {
  const names = [...new Set([...BUILTIN_TYPES, ...declarations.models.keys()])].sort(compareNames);
  return names.map((name) => {
    const declaration = declarations.models.get(name);
    const builtins = builtinFields(name);
    builtins.forEach((field, i) => {
      if (field.kind === 'relation') pass.relationRefs.push({ type: name, field, order: builtinOrder(name, i) });
    });
    const read: ReadFields = declaration ? readFields('model', declaration.node, builtins, pass) : { fields: builtins, nodes: new Map() };
    fieldNodes.set(name, read.nodes);
    for (const [field, why] of reservedFieldNames(name)) {
      const node = read.nodes.get(field);
      if (node) report(`${name}.${field} cannot be declared: it is ${why}`, node.name);
    }
    return modelType(name, declaration, read.fields, report);
  });
}

function readEmbeddedTypes({ declarations, pass, fieldNodes, report }: Reading): EmbeddedType[] {
  return [...declarations.embedded].map(([name, declaration]) => {
    const read = readFields('embedded', declaration.node, [], pass);
    fieldNodes.set(name, read.nodes);
    if (!declaration.node.fields?.length) report(`Embedded type ${name} has no fields`, declaration.node.name);
    return { name, fields: read.fields.filter((f): f is ValueField => f.kind === 'value') };
  });
}

/** Checks each @default once every enum and embedded type is known. */
function applyDefaults(pass: FieldPass, enums: readonly EnumType[], embedded: readonly EmbeddedType[]) {
  const enumByName = new Map(enums.map((e) => [e.name, e]));
  const embeddedByName = new Map(embedded.map((e) => [e.name, e]));
  const lookups = { enumValues: (n: string) => enumByName.get(n)?.values, embeddedFields: (n: string) => embeddedByName.get(n)?.fields };
  for (const pending of pass.defaults) {
    const checked = checkDefault(pending.value, pending.field, pending.label, lookups, pass.report);
    if (checked) pending.field.default = checked.value;
  }
}

/** Permission rules need every type and relation field, for their `userFields` paths. */
function readPermissions({ declarations, pass, report }: Reading, types: readonly ModelType[]) {
  const typesByName = new Map(types.map((t) => [t.name, t]));
  for (const type of types) {
    const rules = declarations.models.get(type.name)?.directives.get('permission');
    if (rules) type.permissions = readRules(rules, type, undefined, typesByName, report);
  }
  for (const { type, field, directives } of pass.fieldRules) {
    const owner = typesByName.get(type);
    if (owner) field.permissions = readRules(directives, owner, field, typesByName, report);
  }
}

function checkAllRenames({ declarations, fieldNodes, report }: Reading, types: readonly ModelType[]) {
  const fromOf = (directives: readonly ConstDirectiveNode[] | undefined) => {
    const renamed = directives?.find((d) => d.name.value === 'renamed');
    return renamed && argumentValue(renamed, 'from');
  };
  const typeNames = new Set(types.map((t) => t.name));
  checkRenames(types, typeNames, 'type', undefined, (name) => fromOf(declarations.models.get(name)?.node.directives), report);
  for (const type of types) {
    const nodes = fieldNodes.get(type.name);
    const fieldNames = new Set(type.fields.map((f) => f.name));
    checkRenames(type.fields, fieldNames, 'field', type.name, (field) => fromOf(nodes?.get(field)?.directives), report);
  }
}

/** Declared names may not be the API's fixed names nor each other's (made-up names never clash: apiNames.ts). */
function checkNames({ declarations, pass, report }: Reading, model: AppModel) {
  const typeNode = (name: string) =>
    (declarations.models.get(name) ?? declarations.embedded.get(name))?.node.name ?? declarations.enums.get(name)?.name;
  const locate = (entry: DeclaredName): ASTNode | undefined => {
    if (entry.source === 'relation') return pass.relationRefs.find((r) => r.field.relation === entry.name && r.nameNode)?.nameNode;
    return typeNode(entry.name);
  };
  checkNameClashes(model, locate, report);
}

/** A custom field may not take the name of a root field the API has already (`getPost`, `node`, `loginUser`…). */
function checkCustomNames(model: AppModel, custom: readonly ReadCustomField[], report: Report) {
  const names = ApiNames.of(model);
  for (const { field, node } of custom) {
    if (names.hasRootField(field.root, field.name)) report(`Field ${field.root}.${field.name} is already a field of the generated API; give it another name`, node.name);
  }
}

/** The parsed SDL, or undefined when it holds no definition at all (only blanks and comments). */
function parseDocument(sdl: string): DocumentNode | undefined {
  try {
    return parse(sdl, { noLocation: false });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    if (isBlank(sdl)) return undefined;
    const at = error.locations?.[0];
    throw schemaInvalid([{ message: error.message, line: at?.line ?? 1, column: at?.column ?? 1 }]);
  }
}

function isBlank(sdl: string): boolean {
  try {
    return new Lexer(new Source(sdl)).advance().kind === TokenKind.EOF;
  } catch {
    return false;
  }
}

/** Built-in fields come before every declared field, User's before Role's. */
function builtinOrder(type: string, index: number): number {
  return -1_000_000 + BUILTIN_TYPES.indexOf(type) * 1_000 + index;
}

function modelType(name: string, declaration: TypeDeclaration | undefined, fields: Field[], report: Report): ModelType {
  const builtin = BUILTIN_TYPES.includes(name);
  const model = declaration && single(declaration.directives, 'model');
  const plural = model && stringArgument(model, 'plural');
  if (model && plural !== undefined) {
    const problem = nameProblem(`@model(plural:) of ${name}`, plural);
    if (problem) report(problem, argumentValue(model, 'plural'));
  }
  const type: ModelType = { name, plural: plural ?? pluralOf(name), table: name, fields, permissions: [], builtin };
  const renamed = declaration && single(declaration.directives, 'renamed');
  const from = renamed && stringArgument(renamed, 'from');
  if (renamed && builtin) report(`The built-in type ${name} cannot be renamed`, renamed);
  else if (from !== undefined) type.renamedFrom = from;
  return type;
}
