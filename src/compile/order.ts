// orderBy and keyset pagination: the sort keys of a connection (ties broken by id), the
// ORDER BY clause, the cursor signature, and the predicate "comes after this cursor" in a
// form PostgreSQL can answer from an index. Nulls sort as the largest values, PostgreSQL's
// default for both directions (ASC NULLS LAST, DESC NULLS FIRST).

import type { ModelType, ValueField } from '../model/index.js';
import { ident, join, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { findField } from './context.js';
import type { CursorKey, KeyKind } from './cursor.js';
import type { CompileState } from './state.js';
import { TesseraError } from '../errors/index.js';
import { fieldGrants } from '../permissions/index.js';

export interface SortKey {
  /** Field name (`id`, `createdAt`, … or a value field). */
  name: string;
  column: string;
  desc: boolean;
  cursor: CursorKey;
  cast: SqlFragment;
  /** The column is a DateTime: cursors carry it as text. */
  timestamp: boolean;
}

function keyKind(field: ValueField): KeyKind {
  if (field.type.kind === 'enum') return 'text';
  if (field.type.kind !== 'scalar') throw new Error(`${field.name} is not orderable`);
  switch (field.type.name) {
    case 'Int':
      return 'integer';
    case 'Float':
      return 'float';
    case 'Boolean':
      return 'boolean';
    case 'DateTime':
      return 'timestamp';
    default:
      return 'text';
  }
}

const CASTS: Record<KeyKind, SqlFragment> = {
  uuid: sql`uuid`,
  text: sql`text`,
  integer: sql`integer`,
  float: sql`double precision`,
  boolean: sql`boolean`,
  timestamp: sql`timestamptz`,
};

function key(name: string, column: string, desc: boolean, kind: KeyKind, nullable: boolean): SortKey {
  return { name, column, desc, cursor: { kind, nullable }, cast: CASTS[kind], timestamp: kind === 'timestamp' };
}

/** The sort keys of `orderBy` on `type`; `id` ends every order so no two rows tie. */
export function sortKeys(s: CompileState, type: ModelType, orderBy: unknown): SortKey[] {
  const raw = s.binder.shape(orderBy);
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const keys: SortKey[] = [];
  for (const item of items) {
    if (item === null || typeof item !== 'object') continue;
    const entry = item as { field?: unknown; direction?: unknown };
    const name = s.binder.shape(entry.field);
    const desc = s.binder.shape(entry.direction) === 'DESC';
    if (typeof name !== 'string' || keys.some((k) => k.name === name)) continue;
    if (name === 'id') {
      keys.push(key('id', 'id', desc, 'uuid', false));
      return keys;
    }
    if (name === 'createdAt' || name === 'modifiedAt') {
      keys.push(key(name, name, desc, 'timestamp', false));
      continue;
    }
    const field = findField(type, name);
    if (field?.kind !== 'value') throw new Error(`unknown order field ${type.name}.${name}`);
    // Ordering by a field with rules of its own would tell its hidden values apart.
    if (s.access !== 'admin' && fieldGrants(type, name, 'read') !== undefined && !readableByEveryone(type, name)) {
      throw new TesseraError('FORBIDDEN', `Ordering by ${type.name}.${name} is not allowed: the field has read rules of its own`, { field: `${type.name}.${name}` });
    }
    keys.push(key(name, field.column, desc, keyKind(field), !field.required));
  }
  const last = keys[keys.length - 1];
  keys.push(key('id', 'id', last?.desc ?? false, 'uuid', false));
  return keys;
}

/**
 * What identifies the connection and order a cursor belongs to, for each app: `<app>/<type>/<keys>`
 * (all but the app written once, where the statement is compiled, not for each request).
 */
export function signer(type: string, keys: readonly SortKey[]): (appId: string) => string {
  const rest = `/${type}/${keys.map((k) => `${k.name}${k.desc ? '-' : '+'}`).join(',')}`;
  return (appId) => appId + rest;
}

/** The signature as a parameter of a statement, for the app of each request it is bound for. */
export function signatureParam(s: CompileState, type: string, keys: readonly SortKey[]): SqlFragment {
  const signature = signer(type, keys);
  return s.binder.fromRequest((r) => signature(r.appId));
}

/** `ORDER BY` items; `reverse` for backward pages (`last`/`before`). */
export function orderBy(row: SqlFragment, keys: readonly SortKey[], reverse: boolean): SqlFragment {
  return join(keys.map((k) => sql`${row}.${ident(k.column)} ${k.desc !== reverse ? sql`DESC` : sql`ASC`}`));
}

/** The key values of a row as cursor positions (DateTime as text). */
export function cursorKeys(row: SqlFragment, keys: readonly SortKey[]): SqlFragment[] {
  return keys.map((k) => sql`${row}.${ident(k.column)}`);
}

/**
 * Rows strictly after (or, `inclusive`, at or after) the position `values` in the order of
 * `keys` read in the direction `reverse`. `nulls` tells which values are null (the shape the
 * statement was compiled for).
 */
export function beyond(row: SqlFragment, keys: readonly SortKey[], values: readonly SqlFragment[], nulls: readonly boolean[], reverse: boolean, inclusive: boolean): SqlFragment {
  const col = (k: SortKey) => sql`${row}.${ident(k.column)}`;
  const val = (i: number) => sql`${values[i] as SqlFragment}::${(keys[i] as SortKey).cast}`;
  const descending = (k: SortKey) => k.desc !== reverse;
  // One row comparison serves when every key runs the same way and none can be null: the
  // form a composite index answers directly.
  const uniform = keys.every((k) => !k.cursor.nullable && descending(k) === descending(keys[0] as SortKey));
  if (uniform) {
    const op = descending(keys[0] as SortKey) ? (inclusive ? sql`<=` : sql`<`) : inclusive ? sql`>=` : sql`>`;
    if (keys.length === 1) return sql`${col(keys[0] as SortKey)} ${op} ${val(0)}`;
    return sql`(${join(keys.map(col))}) ${op} (${join(keys.map((_, i) => val(i)))})`;
  }
  const equal = (i: number) => (nulls[i] ? sql`${col(keys[i] as SortKey)} IS NULL` : sql`${col(keys[i] as SortKey)} = ${val(i)}`);
  const after = (i: number): SqlFragment => {
    const k = keys[i] as SortKey;
    const c = col(k);
    if (descending(k)) return nulls[i] ? sql`${c} IS NOT NULL` : sql`${c} < ${val(i)}`;
    if (nulls[i]) return sql`FALSE`;
    return k.cursor.nullable ? sql`(${c} > ${val(i)} OR ${c} IS NULL)` : sql`${c} > ${val(i)}`;
  };
  const terms: SqlFragment[] = keys.map((_, i) => {
    const prefix = keys.slice(0, i).map((__, j) => equal(j));
    return sql`(${join([...prefix, after(i)], sql` AND `)})`;
  });
  if (inclusive) terms.push(sql`(${join(keys.map((_, i) => equal(i)), sql` AND `)})`);
  return sql`(${join(terms, sql` OR `)})`;
}

function readableByEveryone(type: ModelType, name: string): boolean {
  return (fieldGrants(type, name, 'read') ?? []).some((g) => g.scope === 'EVERYONE');
}
