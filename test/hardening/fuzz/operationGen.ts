// Random valid operations built from an app's API as introspected over HTTP: a root field of
// Query or Mutation, its arguments (required ones always, others now and then; as variables or
// inline literals) and a selection of random fields a few levels deep. Connections always get
// a small `first`, so that cost and page size stay under the app's limits.

import { getNamedType, getNullableType, isEnumType, isInputObjectType, isInterfaceType, isLeafType, isListType, isNonNullType, isObjectType, isScalarType } from 'graphql';
import type { GraphQLArgument, GraphQLField, GraphQLInputType, GraphQLInterfaceType, GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { Choose } from './choose.js';

export interface Operation {
  query: string;
  variables: Record<string, unknown>;
}

/** Ids seen in responses, by type, to aim `getX`, `node`, updates and relation inputs at real objects. */
export class IdPool {
  readonly #ids = new Map<string, string[]>();

  add(data: unknown): void {
    if (Array.isArray(data)) for (const item of data) this.add(item);
    else if (data !== null && typeof data === 'object') {
      for (const [key, value] of Object.entries(data)) {
        if (key === 'id' && typeof value === 'string') this.#remember(value);
        else this.add(value);
      }
    }
  }

  #remember(id: string): void {
    const type = Buffer.from(id, 'base64url').toString('utf8').split(':')[0] ?? '';
    const ids = this.#ids.get(type) ?? [];
    if (ids.includes(id)) return;
    ids.push(id);
    if (ids.length > 50) ids.shift();
    this.#ids.set(type, ids);
  }

  /** A known id of `type` (of any type when undefined). */
  pick(c: Choose, type: string | undefined): string | undefined {
    const ids = type === undefined ? [...this.#ids.values()].flat() : (this.#ids.get(type) ?? []);
    return ids.length === 0 ? undefined : c.pick(ids);
  }
}

const MAX_SELECTION_DEPTH = 5;
const MAX_INPUT_DEPTH = 3;

class Builder {
  readonly #definitions: string[] = [];
  readonly variables: Record<string, unknown> = {};

  #aliases = 0;
  readonly models: string[];

  constructor(readonly c: Choose, readonly schema: GraphQLSchema, readonly ids: IdPool) {
    const node = schema.getType('Node');
    this.models = isInterfaceType(node) ? schema.getPossibleTypes(node).map((t) => t.name) : [];
  }

  get definitions(): string {
    return this.#definitions.length > 0 ? `(${this.#definitions.join(', ')})` : '';
  }

  scalar(name: string, argName: string, idType: string | undefined): unknown {
    const c = this.c;
    switch (name) {
      case 'ID':
        return this.ids.pick(c, idType) ?? c.pick(['', 'nope', c.text()]);
      case 'Int':
        return argName === 'first' || argName === 'last' ? c.int(0, 4) : c.int(-(2 ** 31), 2 ** 31 - 1);
      case 'Float':
        return c.pick([0, -1.5, 3.25, 1e10, c.int(-1000, 1000) / 7]);
      case 'Boolean':
        return c.chance(0.5);
      case 'DateTime':
        return c.isoDate();
      case 'JSON':
        return c.json();
      default:
        if (argName === 'username' || argName === 'password' || argName === 'newPassword') return `${argName}${c.int(0, 1e9)}`;
        return c.text();
    }
  }

  /** The model type an `id`/`<relation>Id` field of the input type `owner` names, when it can tell. */
  idTarget(owner: string, field: string): string | undefined {
    const model = this.models.find((m) => [`${m}WhereArgs`, `Create${m}Input`, `Update${m}Input`, `Delete${m}Input`, `${m}IdWhereArgs`].includes(owner));
    if (model === undefined) {
      // Edge inputs name their ends after the end types: `alphaId`, `alpha1Id`.
      const end = /^([a-z]\w*?)[12]?Id$/.exec(field)?.[1];
      return end === undefined ? undefined : this.models.find((m) => m.toLowerCase() === end.toLowerCase());
    }
    if (field === 'id') return model;
    if (!field.endsWith('Id')) return undefined;
    const relation = (this.schema.getType(model) as GraphQLObjectType).getFields()[field.slice(0, -2)];
    return relation ? getNamedType(relation.type).name : undefined;
  }

  /** A valid value of `type`, `depth` input objects deep. */
  value(type: GraphQLInputType, depth: number, argName: string, idType?: string): unknown {
    const c = this.c;
    if (!isNonNullType(type) && c.chance(0.05)) return null;
    const inner = getNullableType(type);
    if (isListType(inner)) {
      // Ranges take exactly two values.
      const n = argName === 'between' || argName === 'notBetween' ? 2 : c.int(0, 3);
      return Array.from({ length: n }, () => this.value(inner.ofType as GraphQLInputType, depth, argName, idType));
    }
    if (isEnumType(inner)) return c.pick(inner.getValues()).name;
    if (isScalarType(inner)) return this.scalar(inner.name, argName, idType);
    if (isInputObjectType(inner)) {
      const out: Record<string, unknown> = {};
      const target = this.idTarget(inner.name, argName) ?? idType;
      for (const field of Object.values(inner.getFields())) {
        const required = isNonNullType(field.type) && field.defaultValue === undefined;
        const fieldTarget = this.idTarget(inner.name, field.name) ?? (inner.name.endsWith('IdWhereArgs') ? target : undefined);
        // A relation id nobody has seen would only be refused; AND/OR/NOT and nested inputs thin out as they nest.
        const useless = !required && field.name.endsWith('Id') && this.ids.pick(c, fieldTarget) === undefined;
        if (required || (!useless && depth < MAX_INPUT_DEPTH && c.chance(0.3 / (depth + 1)))) out[field.name] = this.value(field.type, depth + 1, field.name, fieldTarget);
      }
      return out;
    }
    throw new Error(`unexpected input type ${String(inner)}`);
  }

  /** An argument as a variable, or inline as a literal when it has no JSON inside. */
  argument(arg: GraphQLArgument, value: unknown): string {
    const asVariable = this.c.chance(0.6) || hasJsonScalar(arg.type, new Set());
    if (!asVariable) return `${arg.name}: ${literal(value, arg.type)}`;
    const variable = `v${Object.keys(this.variables).length}`;
    this.variables[variable] = value;
    this.#definitions.push(`$${variable}: ${String(arg.type)}`);
    return `${arg.name}: $${variable}`;
  }

  args(field: GraphQLField<unknown, unknown>): string {
    const parts: string[] = [];
    const connection = field.args.some((a) => a.name === 'first');
    // getX(id:) names its type; node(id:) takes any.
    const idType = field.name.startsWith('get') ? field.name.slice(3) : undefined;
    for (const arg of field.args) {
      const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
      // Only `first`: random cursors or both directions at once would only be refused.
      const paging = ['first', 'last', 'after', 'before'].includes(arg.name);
      const wanted = required || (connection && arg.name === 'first') || (!paging && this.c.chance(0.3));
      if (wanted) parts.push(this.argument(arg, this.value(arg.type, 0, arg.name, idType)));
    }
    return parts.length > 0 ? `(${parts.join(', ')})` : '';
  }

  selection(type: GraphQLObjectType | GraphQLInterfaceType, depth: number): string {
    const c = this.c;
    const fields = c.some(Object.values(type.getFields()), c.int(1, 4));
    const out: string[] = [];
    for (const field of fields) {
      const named = getNamedType(field.type);
      const alias = c.chance(0.15) ? `a${this.#aliases++}: ` : '';
      if (isLeafType(named)) out.push(`${alias}${field.name}${this.args(field)}`);
      else if (depth < MAX_SELECTION_DEPTH && (isObjectType(named) || isInterfaceType(named))) {
        out.push(`${alias}${field.name}${this.args(field)} { ${this.selection(named, depth + 1)} }`);
      }
    }
    if (isInterfaceType(type)) {
      for (const possible of c.some(this.schema.getPossibleTypes(type), 2)) out.push(`... on ${possible.name} { id }`);
    }
    if (out.length === 0 || c.chance(0.1)) out.push('__typename');
    return out.join(' ');
  }
}

function hasJsonScalar(type: GraphQLInputType, seen: Set<string>): boolean {
  return hasScalar(type, 'JSON', seen);
}

function hasScalar(type: GraphQLInputType, scalar: string, seen: Set<string>): boolean {
  const named = getNamedType(type);
  if (isScalarType(named)) return named.name === scalar;
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  seen.add(named.name);
  return Object.values(named.getFields()).some((f) => hasScalar(f.type, scalar, seen));
}

/** A field taking a file (`createFile`): only a multipart request can send one, not the fuzzer's JSON. */
function takesUpload(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((a) => isNonNullType(a.type) && hasScalar(a.type, 'Upload', new Set()));
}

/** `value` as a GraphQL literal of `type` (JSON-typed values always go as variables). */
export function literal(value: unknown, type: GraphQLInputType): string {
  if (value === null) return 'null';
  const inner = getNullableType(type);
  if (isListType(inner)) return `[${(value as unknown[]).map((v) => literal(v, inner.ofType as GraphQLInputType)).join(', ')}]`;
  if (isEnumType(inner)) return String(value);
  if (isInputObjectType(inner)) {
    const fields = inner.getFields();
    return `{ ${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${literal(v, (fields[k] as { type: GraphQLInputType }).type)}`)
      .join(', ')} }`;
  }
  return JSON.stringify(value);
}

/**
 * A random valid operation of the app's API: a query or a mutation of one or two root fields
 * (`createOnly`: one create mutation, to give a new app some objects to aim at).
 */
export function randomOperation(c: Choose, schema: GraphQLSchema, ids: IdPool, createOnly = false): Operation {
  const mutationType = schema.getMutationType();
  const mutation = mutationType !== null && mutationType !== undefined && (createOnly || c.chance(0.45));
  const root = (mutation ? mutationType : schema.getQueryType()) as GraphQLObjectType;
  const b = new Builder(c, schema, ids);
  const candidates = Object.values(root.getFields()).filter((f) => !f.name.startsWith('__') && !takesUpload(f) && (!createOnly || f.name.startsWith('create')));
  const fields = c.some(candidates, c.chance(0.8) || createOnly ? 1 : 2);
  const selections = fields.map((field, i) => {
    const named = getNamedType(field.type);
    const head = `${i > 0 ? `r${i}: ` : ''}${field.name}${b.args(field)}`;
    return isLeafType(named) ? head : `${head} { ${b.selection(named as GraphQLObjectType, 1)} }`;
  });
  return { query: `${mutation ? 'mutation' : 'query'} Fuzz${b.definitions} { ${selections.join(' ')} }`, variables: b.variables };
}
