// The type names the generated GraphQL API of an app uses, derived from its model, and the
// check that no two parts of a schema need the same name (or the same `allXs` root field).

import type { ASTNode } from 'graphql';
import { capitalize, idColumn } from './names.js';
import type { Report } from './problems.js';
import { SCALARS, SYSTEM_FIELDS } from './types.js';
import type { AppModel, ModelType, ValueField } from './types.js';

/** One type name of the generated API and what it is generated for. */
export interface GeneratedName {
  name: string;
  /** `api`: every app's API has it; otherwise the kind of model part it belongs to. */
  source: 'api' | 'type' | 'embedded' | 'enum' | 'relation';
  /** The type, embedded type, enum or relation it belongs to (absent for `api`). */
  owner?: string;
  /** The field it is generated for, as in `PostTitleWhereArgs`. */
  field?: string;
}

/** Type names every app's API has, whatever its schema (the scalars included). */
export const API_TYPE_NAMES: readonly string[] = [
  ...SCALARS,
  'Node',
  'Timestamped',
  'Viewer',
  'PageInfo',
  'Query',
  'Mutation',
  'Subscription',
  'OrderDirection',
  'LoginUserInput',
  'LoginUserPayload',
  'ChangeUserPasswordInput',
  'ChangeUserPasswordPayload',
];

/** Suffixes of the names generated for a `@model` type X: `XConnection`, `XEdge`, … */
const TYPE_SUFFIXES = [
  'Connection',
  'Edge',
  'WhereArgs',
  'OrderByArgs',
  'OrderByField',
  'Aggregations',
  'MinAggregate',
  'MaxAggregate',
  'SumAggregate',
  'AvgAggregate',
  'MutationEvent',
  'SubscriptionFilter',
  'SubscriptionPayload',
];

/** Whether a generated name is the model part's own name (`Post`, `Address`, `UserEdits`). */
export function isOwnName(entry: GeneratedName): boolean {
  return entry.source !== 'api' && entry.field === undefined && entry.name === entry.owner;
}

/**
 * Every type name the generated API of `model` uses: the API's own names, then per @model type
 * X its own name, `XConnection … XSubscriptionPayload`, `CreateXInput … DeleteXPayload`,
 * `X<Field>WhereArgs` for each field (`id`, `createdAt`, `modifiedAt` included),
 * `X<Field>IdWhereArgs` for each singular relation field and `X<Field>Connection`/
 * `X<Field>Edge` for each list relation field; per embedded type E: `E`, `EInput`; per enum its
 * name; per many-to-many relation R: `R`, `REdgeWhereArgs`, the `AddToRConnection`,
 * `UpdateRConnection`, `RemoveFromRConnection` inputs and payloads, and `R<Join>WhereArgs` for
 * each join field.
 */
export function generatedNames(model: AppModel): GeneratedName[] {
  const names: GeneratedName[] = API_TYPE_NAMES.map((name) => ({ name, source: 'api' }));
  for (const type of model.types) names.push(...typeNames(type));
  for (const e of model.embedded) {
    names.push({ name: e.name, source: 'embedded', owner: e.name }, { name: `${e.name}Input`, source: 'embedded', owner: e.name });
  }
  for (const e of model.enums) names.push({ name: e.name, source: 'enum', owner: e.name });
  for (const r of model.relations) {
    if (r.kind !== 'manyToMany' && r.kind !== 'selfManyToMany') continue;
    const R = r.name;
    const own = [R, `${R}EdgeWhereArgs`];
    for (const verb of ['AddTo', 'Update', 'RemoveFrom']) own.push(`${verb}${R}ConnectionInput`, `${verb}${R}ConnectionPayload`);
    names.push(...own.map((name) => ({ name, source: 'relation' as const, owner: R })));
    for (const field of r.joinFields) names.push({ name: `${R}${capitalize(field.name)}WhereArgs`, source: 'relation', owner: R, field: field.name });
  }
  return names;
}

function typeNames(type: ModelType): GeneratedName[] {
  const X = type.name;
  const names: GeneratedName[] = [{ name: X, source: 'type', owner: X }];
  const add = (name: string, field?: string) => names.push({ name, source: 'type', owner: X, ...(field === undefined ? {} : { field }) });
  for (const suffix of TYPE_SUFFIXES) add(`${X}${suffix}`);
  for (const verb of ['Create', 'Update', 'Delete']) add(`${verb}${X}Input`), add(`${verb}${X}Payload`);
  for (const field of SYSTEM_FIELDS) add(`${X}${capitalize(field)}WhereArgs`, field);
  const declared = new Set(type.fields.map((f) => f.name));
  for (const field of type.fields) {
    add(`${X}${capitalize(field.name)}WhereArgs`, field.name);
    // Text fields filter subscriptions with regular expressions too.
    if (field.kind === 'value' && isTextField(field)) add(`${X}${capitalize(field.name)}SubscriptionFilterArgs`, field.name);
    // A singular relation also filters on the related object's id: `authorId: PostAuthorIdWhereArgs`.
    // A field already named `authorId` is reported as clashing with the relation's input instead.
    const id = idColumn(field.name);
    if (field.kind === 'relation' && !field.list && !declared.has(id)) add(`${X}${capitalize(id)}WhereArgs`, field.name);
  }
  for (const field of type.fields) {
    if (field.kind === 'relation' && field.list) {
      add(`${X}${capitalize(field.name)}Connection`, field.name);
      add(`${X}${capitalize(field.name)}Edge`, field.name);
    }
  }
  return names;
}

/** Fields whose filters take text patterns (`like`, and `matches` in subscription filters). */
function isTextField(field: ValueField): boolean {
  return !field.list && field.type.kind === 'scalar' && ['ID', 'String', 'Text'].includes(field.type.name);
}

function describe(entry: GeneratedName): string {
  const owner = entry.owner ?? '';
  switch (entry.source) {
    case 'api':
      return 'the API itself';
    case 'type':
      return entry.field === undefined ? `type ${owner}` : `field ${owner}.${entry.field}`;
    case 'embedded':
      return `embedded type ${owner}`;
    case 'enum':
      return `enum ${owner}`;
    case 'relation':
      return entry.field === undefined ? `relation ${owner}` : `join field ${owner}.${entry.field}`;
    default: {
      const unreachable: never = entry.source;
      return unreachable;
    }
  }
}

const OWN_KIND: Record<GeneratedName['source'], string> = { api: 'Name', type: 'Type name', embedded: 'Type name', enum: 'Enum name', relation: 'Relation name' };

/**
 * Reports every name the API would need twice. A declared name that the API also generates is
 * reported at the declaration; two generated names at the part that comes second.
 * `locate` finds the node to point at for an entry (undefined for built-in parts).
 */
export function checkNameClashes(model: AppModel, locate: (entry: GeneratedName) => ASTNode | undefined, report: Report) {
  const entries = generatedNames(model);
  const generated = new Map<string, GeneratedName>();
  // Two parts needing the same names are reported once, with every name they share.
  const twice = new Map<string, { first: GeneratedName; entry: GeneratedName; names: string[] }>();
  for (const entry of entries) {
    if (isOwnName(entry)) continue;
    const first = generated.get(entry.name);
    if (!first) {
      generated.set(entry.name, entry);
      continue;
    }
    const key = `${describe(first)}|${describe(entry)}`;
    const clash = twice.get(key) ?? { first, entry, names: [] };
    clash.names.push(entry.name);
    twice.set(key, clash);
  }
  for (const { first, entry, names } of twice.values()) {
    report(
      `The API would generate ${names.join(', ')} for both ${describe(first)} and ${describe(entry)}; rename one of them`,
      locate(entry) ?? locate(first),
    );
  }
  const own = new Map<string, GeneratedName>();
  for (const entry of entries) {
    if (!isOwnName(entry)) continue;
    const clash = generated.get(entry.name);
    const twin = own.get(entry.name);
    const at = locate(entry);
    if (clash?.source === 'api') {
      report(`${OWN_KIND[entry.source]} ${entry.name} is reserved by the generated API`, at);
    } else if (clash) {
      report(`${OWN_KIND[entry.source]} ${entry.name} clashes with a name the API generates for ${describe(clash)}`, at ?? locate(clash));
    } else if (twin) {
      const why = entry.source === 'relation' ? ': a many-to-many relation gives its name to its join type' : '';
      report(`${OWN_KIND[entry.source]} ${entry.name} is already the name of ${describe(twin)}${why}`, at ?? locate(twin));
    }
    if (!twin) own.set(entry.name, entry);
  }
}

/** Two types with one plural would both need the root field `all<Plural>`. */
export function checkPlurals(types: readonly ModelType[], locate: (type: string) => ASTNode | undefined, report: Report) {
  const seen = new Map<string, string>();
  for (const type of types) {
    const first = seen.get(type.plural);
    if (first === undefined) seen.set(type.plural, type.name);
    else report(`Types ${first} and ${type.name} have the same plural ${type.plural} (both would need all${type.plural}); set @model(plural: "…") on one`, locate(type.name));
  }
}
