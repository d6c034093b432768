// Every name of an app's generated API, in one place: type names (`PostConnection`,
// `CreatePostInput`, `UserPostsEdge`, …) and root and payload field names (`getPost`,
// `allPosts`, `createPost`, `addToUserEditsConnection`, `changedPost`, …). The schema builder
// and the compiler both ask this module; nothing else builds or parses a generated name.
//
// Names made up here never collide. Each is first written the way the original service wrote
// it; when that name is already taken — by a name the app declares (a type, embedded type,
// enum or many-to-many relation), by one of the API's fixed names, or by a name made up
// earlier in the order below — the part it belongs to takes the smallest number from 2 that
// frees all of its names, placed after the owner's (and field's) name: with a type `UserMeta`
// beside a list field `User.meta`, the field's connection is `UserMeta2Connection` and its
// edge `UserMeta2Edge`, and every name without a clash stays as it was. docs/api.md states
// the rule and the order.

import { USER, builtinTraits } from './builtins.js';
import { capitalize, compareNames, idColumn } from './names.js';
import { SCALARS, SYSTEM_FIELDS } from './types.js';
import type { AppModel, CustomRoot, ModelType, Relation, ValueField } from './types.js';

export type RowVerb = 'create' | 'update' | 'delete';
export type EdgeVerb = 'addTo' | 'update' | 'removeFrom';
export type AggregateName = 'min' | 'max' | 'sum' | 'avg';

/** Type names every app's API has, whatever its schema (the scalars included). */
export const API_TYPE_NAMES: readonly string[] = [
  ...SCALARS,
  // The files of a multipart request (the built-in File's createFile takes one).
  'Upload',
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
  'RefreshUserTokenInput',
  'RefreshUserTokenPayload',
  'LogoutUserInput',
  'LogoutUserPayload',
  'RequestEmailVerificationInput',
  'RequestEmailVerificationPayload',
  'VerifyEmailInput',
  'VerifyEmailPayload',
  'RequestPasswordResetInput',
  'RequestPasswordResetPayload',
  'ResetPasswordInput',
  'ResetPasswordPayload',
  'EnrollTotpInput',
  'EnrollTotpPayload',
  'ConfirmTotpInput',
  'ConfirmTotpPayload',
  'DisableTotpInput',
  'DisableTotpPayload',
  'LoginUserWithOidcInput',
  'LoginUserWithOidcPayload',
  'LinkOidcIdentityInput',
  'LinkOidcIdentityPayload',
  'UnlinkOidcIdentityInput',
  'UnlinkOidcIdentityPayload',
];

/** Root mutation fields every app has. */
const FIXED_MUTATIONS = [
  'loginUser',
  'changeUserPassword',
  'refreshUserToken',
  'logoutUser',
  'requestEmailVerification',
  'verifyEmail',
  'requestPasswordReset',
  'resetPassword',
  'enrollTotp',
  'confirmTotp',
  'disableTotp',
  'loginUserWithOidc',
  'linkOidcIdentity',
  'unlinkOidcIdentity',
] as const;

/** Viewer fields every app has beside `allXs`. */
const FIXED_VIEWER_FIELDS = ['id', 'user', 'twoFactorEnabled'] as const;
/** Fields every row mutation payload has beside `changedX`. */
const PAYLOAD_FIELDS = ['changedEdge', 'viewer', 'clientMutationId', 'token', 'refreshToken'] as const;

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
] as const;
type TypeSuffix = (typeof TYPE_SUFFIXES)[number];

const ROW_VERBS: readonly RowVerb[] = ['create', 'update', 'delete'];
const EDGE_VERBS: readonly EdgeVerb[] = ['addTo', 'update', 'removeFrom'];

/** One name wanted by a part of the API: `head` + (number) + `tail`. */
interface Wanted {
  key: string;
  head: string;
  tail: string;
}

/** Where a name lives: names need only differ from the others of their namespace. */
type Namespace = 'type' | 'query' | 'viewer' | 'mutation' | 'subscription' | `payload:${string}`;

/** A part of the API whose names are numbered together. */
interface Part {
  namespace: Namespace;
  names: Wanted[];
}

/** What a made-up name is for, to say so where names are listed or clash. */
export interface NameEntry {
  name: string;
  /** The name as first written, before any number was added. */
  wanted: string;
  namespace: string;
}

/** Fields whose filters take text patterns (`like`, and `matches` in subscription filters). */
export function isTextField(field: ValueField): boolean {
  return !field.list && field.type.kind === 'scalar' && ['ID', 'String', 'Text'].includes(field.type.name);
}

function isManyToMany(relation: Relation): boolean {
  return relation.kind === 'manyToMany' || relation.kind === 'selfManyToMany';
}

function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareNames(a.name, b.name));
}

const cache = new WeakMap<AppModel, ApiNames>();

export class ApiNames {
  /** Resolved names by key (`connection:Post`, `relationEdge:User.meta`, `mutation:createPost`). */
  readonly #names = new Map<string, string>();
  readonly #entries: NameEntry[] = [];

  /** The names of `model`'s API (built once per model object). */
  static of(model: AppModel): ApiNames {
    let names = cache.get(model);
    if (!names) {
      names = new ApiNames(model);
      cache.set(model, names);
    }
    return names;
  }

  /** Every name given out or reserved, by namespace. */
  readonly #taken = new Map<Namespace, Set<string>>();

  private constructor(model: AppModel) {
    const taken = this.#taken;
    const space = (ns: Namespace) => {
      let set = taken.get(ns);
      if (!set) taken.set(ns, (set = new Set()));
      return set;
    };
    // Names the app declares and the API's fixed names are never renamed.
    const types = space('type');
    for (const name of [...API_TYPE_NAMES, ...model.types.map((t) => t.name), ...model.embedded.map((e) => e.name), ...model.enums.map((e) => e.name)]) types.add(name);
    for (const r of model.relations) if (isManyToMany(r)) types.add(r.name);
    for (const name of ['node', 'viewer']) space('query').add(name);
    for (const name of FIXED_VIEWER_FIELDS) space('viewer').add(name);
    for (const name of FIXED_MUTATIONS) space('mutation').add(name);
    // A payload's other fields are fixed: `changedX` keeps clear of them.
    for (const type of model.types) for (const name of PAYLOAD_FIELDS) space(`payload:${type.name}`).add(name);
    for (const r of model.relations) {
      if (r.storage.kind !== 'joinTable') continue;
      for (const name of ['viewer', 'clientMutationId', ...r.storage.endNames]) space(`payload:${r.name}`).add(name);
    }

    for (const part of parts(model)) {
      const names = space(part.namespace);
      let n = 1;
      const written = (w: Wanted) => `${w.head}${n === 1 ? '' : n}${w.tail}`;
      while (part.names.some((w) => names.has(written(w)))) n += 1;
      for (const w of part.names) {
        const name = written(w);
        names.add(name);
        this.#names.set(w.key, name);
        this.#entries.push({ name, wanted: `${w.head}${w.tail}`, namespace: part.namespace });
      }
    }
  }

  #get(key: string): string {
    const name = this.#names.get(key);
    if (name === undefined) throw new Error(`The API has no name for ${key}`);
    return name;
  }

  /**
   * Whether the API already has a root field `name` on `root` (a generated one such as `getPost`
   * or `createPost`, or a fixed one such as `node` or `loginUser`): the app's own custom fields
   * must be named otherwise.
   */
  hasRootField(root: CustomRoot, name: string): boolean {
    return this.#taken.get(root === 'Query' ? 'query' : 'mutation')?.has(name) ?? false;
  }

  /** Every made-up name, in the order they were given out. */
  entries(): readonly NameEntry[] {
    return this.#entries;
  }

  // Root fields.
  getter(type: string): string {
    return this.#get(`getter:${type}`);
  }
  list(type: string): string {
    return this.#get(`list:${type}`);
  }
  mutation(verb: RowVerb, type: string): string {
    return this.#get(`mutation:${verb}:${type}`);
  }
  edgeMutation(verb: EdgeVerb, relation: string): string {
    return this.#get(`mutation:${verb}:${relation}`);
  }
  subscribe(type: string): string {
    return this.#get(`subscribe:${type}`);
  }
  /**
   * The mutations a subscription to `type` can hear of, by the names its `XMutationEvent` enum
   * gives them (the mutations' own names; `loginUser` for the built-in User).
   */
  mutationEvents(type: string): { name: string; kind: RowVerb | 'login' }[] {
    const events: { name: string; kind: RowVerb | 'login' }[] = ROW_VERBS.map((verb) => ({ name: this.mutation(verb, type), kind: verb }));
    if (type === USER) events.push({ name: 'loginUser', kind: 'login' });
    return events;
  }

  /** `changedX` in the payloads of X's mutations, `changedR` in those of relation R's edge mutations. */
  changed(typeOrRelation: string): string {
    return this.#get(`changed:${typeOrRelation}`);
  }

  /** The input of the built-in File's `url(transform:)` (`FileTransform`), and its enums (`FileFit`, `FileFormat`). */
  fileTransform(type: string): { input: string; fit: string; format: string } {
    return { input: this.#get(`fileTransform:${type}`), fit: this.#get(`fileFit:${type}`), format: this.#get(`fileFormat:${type}`) };
  }

  // Type names of a @model type X.
  typeName(suffix: TypeSuffix, type: string): string {
    return this.#get(`${suffix}:${type}`);
  }
  connection(type: string): string {
    return this.typeName('Connection', type);
  }
  edge(type: string): string {
    return this.typeName('Edge', type);
  }
  whereArgs(type: string): string {
    return this.typeName('WhereArgs', type);
  }
  aggregations(type: string): string {
    return this.typeName('Aggregations', type);
  }
  aggregate(fn: AggregateName, type: string): string {
    return this.typeName(`${capitalize(fn) as 'Min' | 'Max' | 'Sum' | 'Avg'}Aggregate`, type);
  }
  subscriptionPayload(type: string): string {
    return this.typeName('SubscriptionPayload', type);
  }
  input(verb: RowVerb, type: string): string {
    return this.#get(`input:${verb}:${type}`);
  }
  payload(verb: RowVerb, type: string): string {
    return this.#get(`payload:${verb}:${type}`);
  }

  // Names of one field of X: `X<F>WhereArgs`, `X<F>SubscriptionFilterArgs`, `X<F>Connection`, `X<F>Edge`.
  /** The operator input of a field's `where` (system fields and `<relation>Id` filters included), or a many-to-many field's `{ edge, node }` filter. */
  fieldWhereArgs(type: string, field: string): string {
    return this.#get(`fieldWhere:${type}.${field}`);
  }
  fieldSubscriptionFilterArgs(type: string, field: string): string {
    return this.#get(`fieldFilter:${type}.${field}`);
  }
  relationConnection(type: string, field: string): string {
    return this.#get(`relationConnection:${type}.${field}`);
  }
  relationEdge(type: string, field: string): string {
    return this.#get(`relationEdge:${type}.${field}`);
  }

  // Embedded types and many-to-many relations.
  embeddedInput(embedded: string): string {
    return this.#get(`embeddedInput:${embedded}`);
  }
  edgeWhereArgs(relation: string): string {
    return this.#get(`edgeWhere:${relation}`);
  }
  joinFieldWhereArgs(relation: string, field: string): string {
    return this.#get(`joinWhere:${relation}.${field}`);
  }
  edgeInput(verb: EdgeVerb, relation: string): string {
    return this.#get(`edgeInput:${verb}:${relation}`);
  }
  edgePayload(verb: EdgeVerb, relation: string): string {
    return this.#get(`edgePayload:${verb}:${relation}`);
  }
}

const one = (key: string, head: string, tail = ''): Wanted => ({ key, head, tail });

/**
 * The API's parts in the order they are given names: per @model type (by name) its own type
 * names (the filters of `id`, `createdAt` and `modifiedAt` included), then embedded inputs, then
 * the relations' edge names, then per type the names of each field (in declaration order), then
 * the relations' join fields, then the File type's variant input; root and payload fields each
 * in their own namespace.
 */
function* parts(model: AppModel): Generator<Part> {
  const types = byName(model.types);
  const relations = byName(model.relations.filter(isManyToMany));
  for (const type of types) {
    const X = type.name;
    for (const suffix of TYPE_SUFFIXES) yield { namespace: 'type', names: [one(`${suffix}:${X}`, X, suffix)] };
    // The filters of the fields every type has (`PostIdWhereArgs`) are the type's own too.
    for (const field of SYSTEM_FIELDS) yield { namespace: 'type', names: [one(`fieldWhere:${X}.${field}`, `${X}${capitalize(field)}`, 'WhereArgs')] };
    for (const verb of ROW_VERBS) {
      yield { namespace: 'type', names: [one(`input:${verb}:${X}`, `${capitalize(verb)}${X}`, 'Input')] };
      yield { namespace: 'type', names: [one(`payload:${verb}:${X}`, `${capitalize(verb)}${X}`, 'Payload')] };
    }
  }
  for (const e of byName(model.embedded)) yield { namespace: 'type', names: [one(`embeddedInput:${e.name}`, e.name, 'Input')] };
  for (const r of relations) {
    const R = r.name;
    yield { namespace: 'type', names: [one(`edgeWhere:${R}`, R, 'EdgeWhereArgs')] };
    for (const verb of EDGE_VERBS) {
      yield { namespace: 'type', names: [one(`edgeInput:${verb}:${R}`, `${capitalize(verb)}${R}`, 'ConnectionInput')] };
      yield { namespace: 'type', names: [one(`edgePayload:${verb}:${R}`, `${capitalize(verb)}${R}`, 'ConnectionPayload')] };
    }
  }
  for (const type of types) yield* fieldParts(model, type);
  for (const r of relations) {
    for (const field of r.joinFields) if (!field.writeOnly) yield { namespace: 'type', names: [one(`joinWhere:${r.name}.${field.name}`, `${r.name}${capitalize(field.name)}`, 'WhereArgs')] };
  }
  // The image variant argument of the built-in File's `url` (named last: it came last).
  for (const type of types) {
    if (!builtinTraits(type)?.blob) continue;
    const X = type.name;
    for (const part of ['Transform', 'Fit', 'Format']) yield { namespace: 'type', names: [one(`file${part}:${X}`, `${X}${part}`)] };
  }
  // Root fields, payload fields.
  for (const type of types) {
    yield { namespace: 'query', names: [one(`getter:${type.name}`, `get${type.name}`)] };
    yield { namespace: 'viewer', names: [one(`list:${type.name}`, `all${type.plural}`)] };
  }
  for (const type of types) {
    for (const verb of ROW_VERBS) yield { namespace: 'mutation', names: [one(`mutation:${verb}:${type.name}`, `${verb}${type.name}`)] };
  }
  for (const r of relations) {
    for (const verb of EDGE_VERBS) yield { namespace: 'mutation', names: [one(`mutation:${verb}:${r.name}`, `${verb}${r.name}`, 'Connection')] };
  }
  for (const type of types) {
    yield { namespace: 'subscription', names: [one(`subscribe:${type.name}`, `subscribeTo${type.name}`)] };
    yield { namespace: `payload:${type.name}`, names: [one(`changed:${type.name}`, `changed${type.name}`)] };
  }
  for (const r of relations) yield { namespace: `payload:${r.name}`, names: [one(`changed:${r.name}`, `changed${r.name}`)] };
}

/** The names of each field of `type`, a part per field (its names share one number). */
function* fieldParts(model: AppModel, type: ModelType): Generator<Part> {
  const X = type.name;
  for (const field of type.fields) {
    const F = `${X}${capitalize(field.name)}`;
    if (field.kind === 'value') {
      if (field.writeOnly) continue;
      const names = [one(`fieldWhere:${X}.${field.name}`, F, 'WhereArgs')];
      if (isTextField(field)) names.push(one(`fieldFilter:${X}.${field.name}`, F, 'SubscriptionFilterArgs'));
      yield { namespace: 'type', names };
    } else if (!field.list) {
      const id = idColumn(field.name);
      yield { namespace: 'type', names: [one(`fieldWhere:${X}.${id}`, `${X}${capitalize(id)}`, 'WhereArgs')] };
    } else {
      const names = [one(`relationConnection:${X}.${field.name}`, F, 'Connection'), one(`relationEdge:${X}.${field.name}`, F, 'Edge')];
      const relation = model.relations.find((r) => r.name === field.relation);
      if (relation && isManyToMany(relation)) names.push(one(`fieldWhere:${X}.${field.name}`, F, 'WhereArgs'));
      yield { namespace: 'type', names };
    }
  }
}
