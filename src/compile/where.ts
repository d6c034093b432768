// `where` arguments compiled to SQL predicates over a row alias: field operators, id and
// relation-id filters, singular, one-to-many and many-to-many relation filters (as EXISTS
// subqueries, nested to any depth) and AND / OR / NOT.

import { badInput } from '../errors/index.js';
import { idColumn } from '../model/index.js';
import type { ModelType, Relation, RelationField, ValueField } from '../model/index.js';
import { ident, join, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { findField } from './context.js';
import { decodeId } from './ids.js';
import { TRUE } from './state.js';
import type { CompileState } from './state.js';
import { castOf, operandIn } from './values.js';

type Args = Record<string, unknown>;

export { TRUE };
const FALSE = sql`FALSE`;

function and(all: SqlFragment[]): SqlFragment {
  const items = all.filter((item) => item !== TRUE);
  if (items.length === 0) return TRUE;
  if (items.length === 1) return items[0] as SqlFragment;
  return sql`(${join(items, sql` AND `)})`;
}

/** The conjunction of conditions, TRUE ones left out (for WHERE clauses built elsewhere). */
export function whereAll(items: SqlFragment[]): SqlFragment {
  return and(items);
}

function or(items: SqlFragment[]): SqlFragment {
  if (items.length === 0) return FALSE;
  if (items.length === 1) return items[0] as SqlFragment;
  return sql`(${join(items, sql` OR `)})`;
}

/** Whether an operand was given: null and absent operands are ignored. */
function given(s: CompileState, v: unknown): boolean {
  const shaped = s.binder.shape(v, 'present');
  return shaped !== undefined && shaped !== null;
}

function asObject(v: unknown): Args | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Args) : undefined;
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
}

/** The items of a list operand; null items, which list types allow, are left out. */
function present(v: unknown): unknown[] {
  return asList(v).filter((item) => item !== null && item !== undefined);
}

/** The filters an `AND` / `OR` combines, null items left out (a variable's included). */
function terms(s: CompileState, v: unknown): unknown[] {
  return asList(s.binder.shape(v)).filter((w) => s.binder.shape(w) != null);
}

/** The predicate of `where` on rows of `type` aliased `row`. */
export function wherePredicate(s: CompileState, type: ModelType, row: SqlFragment, where: unknown): SqlFragment {
  const args = asObject(s.binder.shape(where));
  if (!args) return TRUE;
  const parts: SqlFragment[] = [];
  for (const [key, v] of Object.entries(args)) {
    const arg = asObject(s.binder.shape(v));
    if (key === 'AND') parts.push(and(terms(s, v).map((w) => wherePredicate(s, type, row, w))));
    else if (key === 'OR') parts.push(or(terms(s, v).map((w) => wherePredicate(s, type, row, w))));
    else if (key === 'NOT') {
      if (arg) parts.push(sql`NOT COALESCE(${wherePredicate(s, type, row, arg)}, FALSE)`);
    } else if (!arg) continue;
    else if (key === 'id') parts.push(idPredicate(s, sql`${row}.id`, type.name, arg, `${type.name}.id`));
    else if (key === 'createdAt' || key === 'modifiedAt') parts.push(systemDatePredicate(s, sql`${row}.${ident(key)}`, arg, `${type.name}.${key}`));
    else parts.push(fieldPredicate(s, type, row, key, arg));
  }
  return and(parts);
}

function fieldPredicate(s: CompileState, type: ModelType, row: SqlFragment, key: string, arg: Args): SqlFragment {
  // A filter on a field the caller may not read holds for no row it may not read: it can never
  // tell anything about a hidden value (NOT of it holds for those rows whatever the value).
  const name = key.endsWith('Id') && !findField(type, key) ? key.slice(0, -2) : key;
  const guard = s.fieldAllowed(type, name, 'read', row);
  const predicate = unguardedFieldPredicate(s, type, row, key, arg);
  return guard === undefined ? predicate : and([guard, predicate]);
}

function unguardedFieldPredicate(s: CompileState, type: ModelType, row: SqlFragment, key: string, arg: Args): SqlFragment {
  const field = findField(type, key);
  if (field?.kind === 'value') return valuePredicate(s, field, sql`${row}.${ident(field.column)}`, arg, `${type.name}.${key}`);
  if (field?.kind === 'relation') return relationPredicate(s, type, row, field, arg);
  // `<relation>Id` of a singular relation.
  const relationField = type.fields.find((f): f is RelationField => f.kind === 'relation' && !f.list && idColumn(f.name) === key);
  if (relationField) return relationIdPredicate(s, type, row, relationField, arg);
  throw new Error(`unknown where field ${type.name}.${key}`);
}

const SYSTEM_DATE: ValueField = {
  kind: 'value', name: 'createdAt', type: { kind: 'scalar', name: 'DateTime' }, list: false, required: true,
  unique: false, index: false, builtin: true, writeOnly: false, column: 'createdAt', permissions: [],
};

function systemDatePredicate(s: CompileState, column: SqlFragment, arg: Args, what: string): SqlFragment {
  return valuePredicate(s, SYSTEM_DATE, column, arg, what);
}

/** `isNull: true/false` on a column; nothing for a null or missing flag. */
function nullCheck(s: CompileState, col: SqlFragment, flag: unknown): SqlFragment[] {
  const shaped = s.binder.shape(flag);
  if (shaped === true) return [sql`${col} IS NULL`];
  if (shaped === false) return [sql`${col} IS NOT NULL`];
  return [];
}

/** Operators on one stored value. Negative operators (ne, notIn, notLike, notBetween) match nulls. */
export function valuePredicate(s: CompileState, field: ValueField, col: SqlFragment, arg: Args, what: string): SqlFragment {
  const cast = castOf(field);
  const one = (v: unknown) => s.binder.param(v, (x) => operandIn(field, x, what));
  const many = (v: unknown) => s.binder.param(v, (x) => present(x).map((item) => operandIn(field, item, what)));
  const pair = (v: unknown, op: string) =>
    s.binder.param(v, (x) => {
      const list = present(x);
      if (list.length !== 2) throw badInput(`${what}: ${op} takes exactly two values, [from, to]`, { field: what });
      return list.map((item) => operandIn(field, item, what));
    });
  const pattern = (v: unknown) => s.binder.param(v, (x) => likePattern(operandIn(field, x, what), what));
  const regex = (v: unknown) => s.binder.param(v, (x) => checkPattern(String(x), what));
  const parts: SqlFragment[] = [];
  for (const [op, v] of Object.entries(arg)) {
    if (op === 'isNull') {
      parts.push(...nullCheck(s, col, v));
      continue;
    }
    if (!given(s, v)) continue;
    switch (op) {
      case 'eq':
        parts.push(sql`${col} = ${one(v)}::${cast}`);
        break;
      case 'ne':
        parts.push(sql`${col} IS DISTINCT FROM ${one(v)}::${cast}`);
        break;
      case 'gt':
        parts.push(sql`${col} > ${one(v)}::${cast}`);
        break;
      case 'gte':
        parts.push(sql`${col} >= ${one(v)}::${cast}`);
        break;
      case 'lt':
        parts.push(sql`${col} < ${one(v)}::${cast}`);
        break;
      case 'lte':
        parts.push(sql`${col} <= ${one(v)}::${cast}`);
        break;
      case 'in':
        parts.push(sql`${col} = ANY(${many(v)}::${cast}[])`);
        break;
      case 'notIn':
        parts.push(sql`(${col} IS NULL OR NOT (${col} = ANY(${many(v)}::${cast}[])))`);
        break;
      case 'between': {
        const p = pair(v, 'between');
        parts.push(sql`${col} BETWEEN (${p}::${cast}[])[1] AND (${p}::${cast}[])[2]`);
        break;
      }
      case 'notBetween': {
        const p = pair(v, 'notBetween');
        parts.push(sql`(${col} IS NULL OR ${col} NOT BETWEEN (${p}::${cast}[])[1] AND (${p}::${cast}[])[2])`);
        break;
      }
      case 'like':
        parts.push(sql`${col} ILIKE ${pattern(v)}::text`);
        break;
      case 'notLike':
        parts.push(sql`(${col} IS NULL OR ${col} NOT ILIKE ${pattern(v)}::text)`);
        break;
      case 'matches':
        parts.push(sql`${col}::text ~ ${regex(v)}::text`);
        break;
      case 'notMatches':
        parts.push(sql`(${col} IS NULL OR ${col}::text !~ ${regex(v)}::text)`);
        break;
      default:
        throw new Error(`unknown operator ${op}`);
    }
  }
  return and(parts);
}

/**
 * A `like` pattern as PostgreSQL reads it: `%` and `_` are wildcards and `\` escapes the next
 * character (`a\%` matches "a%"), so a pattern ending in a lone `\` is refused here rather
 * than failing in the database.
 */
function likePattern(pattern: unknown, what: string): unknown {
  if (typeof pattern !== 'string') return pattern;
  const trailing = pattern.length - pattern.replace(/\\+$/, '').length;
  if (trailing % 2 === 1) throw badInput(`${what}: a like pattern cannot end with the escape character \\ (write \\\\ to match a backslash)`, { field: what });
  return pattern;
}

/** The longest regular expression a filter takes. */
export const MAX_PATTERN_LENGTH = 256;

/**
 * A pattern PostgreSQL runs in time linear in the text it scans: no back references (the one
 * feature of its regular expressions that needs backtracking), and a bounded length.
 */
export function checkPattern(pattern: string, what: string): string {
  if (pattern.length > MAX_PATTERN_LENGTH) throw badInput(`${what}: a pattern has at most ${MAX_PATTERN_LENGTH} characters`, { field: what });
  // `\1`–`\9` outside a bracket expression; `\\1` is an escaped backslash followed by 1.
  let inBracket = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inBracket && /[1-9]/.test(next)) throw badInput(`${what}: back references (\\${next}) are not supported in patterns`, { field: what });
      i++;
    } else if (c === '[') inBracket = true;
    else if (c === ']') inBracket = false;
  }
  return pattern;
}

/** eq / ne / in / notIn / isNull on an id expression (a uuid column or subquery). */
function idPredicate(s: CompileState, col: SqlFragment, target: string, arg: Args, what: string): SqlFragment {
  const one = (v: unknown) => s.binder.param(v, (x) => decodeId(String(x), target, what));
  const many = (v: unknown) => s.binder.param(v, (x) => present(x).map((item) => decodeId(String(item), target, what)));
  const parts: SqlFragment[] = [];
  for (const [op, v] of Object.entries(arg)) {
    if (op === 'isNull') {
      parts.push(...nullCheck(s, col, v));
      continue;
    }
    if (!given(s, v)) continue;
    if (op === 'eq') parts.push(sql`${col} = ${one(v)}::uuid`);
    else if (op === 'ne') parts.push(sql`${col} IS DISTINCT FROM ${one(v)}::uuid`);
    else if (op === 'in') parts.push(sql`${col} = ANY(${many(v)}::uuid[])`);
    else if (op === 'notIn') parts.push(sql`(${col} IS NULL OR NOT (${col} = ANY(${many(v)}::uuid[])))`);
    else throw new Error(`unknown id operator ${op}`);
  }
  return and(parts);
}

function relationIdPredicate(s: CompileState, type: ModelType, row: SqlFragment, field: RelationField, arg: Args): SqlFragment {
  const link = s.app.link(type, field);
  const what = `${type.name}.${idColumn(field.name)}`;
  if (link.kind === 'holds') return idPredicate(s, sql`${row}.${ident(link.column)}`, field.target, arg, what);
  if (link.kind === 'heldBy') {
    const z = s.alias('r');
    const readable = s.allowed(s.app.type(field.target), 'read', z);
    const holder = sql`(SELECT ${z}.id FROM ${s.app.table(field.target)} ${z} WHERE ${and([sql`${z}.${ident(link.column)} = ${row}.id`, readable])} LIMIT 1)`;
    return idPredicate(s, holder, field.target, arg, what);
  }
  throw new Error(`${what} is not a singular relation`);
}

/**
 * A relation filter: the related rows matching `arg` exist. Singular and one-to-many fields
 * take the target's WhereArgs; many-to-many fields take `{ edge, node }`.
 */
function relationPredicate(s: CompileState, type: ModelType, row: SqlFragment, field: RelationField, arg: Args): SqlFragment {
  const target = s.app.type(field.target);
  const link = s.app.link(type, field);
  const z = s.alias('r');
  const table = s.app.table(target.name);
  switch (link.kind) {
    case 'holds':
      return sql`EXISTS (SELECT 1 FROM ${table} ${z} WHERE ${and([sql`${z}.id = ${row}.${ident(link.column)}`, s.allowed(target, 'read', z), wherePredicate(s, target, z, arg)])})`;
    case 'heldBy':
      return sql`EXISTS (SELECT 1 FROM ${table} ${z} WHERE ${and([sql`${z}.${ident(link.column)} = ${row}.id`, s.allowed(target, 'read', z), wherePredicate(s, target, z, arg)])})`;
    case 'join': {
      const j = s.alias('j');
      const edge = asObject(s.binder.shape(arg.edge));
      const node = asObject(s.binder.shape(arg.node));
      const conditions = [joinMatch(j, z, row, link), s.allowed(target, 'read', z), edgePredicate(s, link.relation, j, edge), wherePredicate(s, target, z, node)];
      return sql`EXISTS (SELECT 1 FROM ${s.app.table(link.table)} ${j} JOIN ${table} ${z} ON TRUE WHERE ${and(conditions)})`;
    }
    default: {
      const never: never = link;
      throw new Error(`unknown link ${JSON.stringify(never)}`);
    }
  }
}

/** The join row `j` links `row` to the target row `z`; a self relation links both ways. */
export function joinMatch(j: SqlFragment, z: SqlFragment, row: SqlFragment, link: { self: string; other: string; symmetric: boolean }): SqlFragment {
  const straight = sql`(${j}.${ident(link.self)} = ${row}.id AND ${z}.id = ${j}.${ident(link.other)})`;
  if (!link.symmetric) return straight;
  const reverse = sql`(${j}.${ident(link.other)} = ${row}.id AND ${z}.id = ${j}.${ident(link.self)})`;
  return sql`(${straight} OR ${reverse})`;
}

/** Filters on the join fields of an edge (`REdgeWhereArgs`). */
export function edgePredicate(s: CompileState, relation: Relation, j: SqlFragment, where: Args | undefined): SqlFragment {
  if (!where) return TRUE;
  const parts: SqlFragment[] = [];
  for (const [key, v] of Object.entries(where)) {
    const arg = asObject(s.binder.shape(v));
    if (key === 'AND') parts.push(and(terms(s, v).map((w) => edgePredicate(s, relation, j, asObject(s.binder.shape(w))))));
    else if (key === 'OR') parts.push(or(terms(s, v).map((w) => edgePredicate(s, relation, j, asObject(s.binder.shape(w))))));
    else if (key === 'NOT') {
      if (arg) parts.push(sql`NOT COALESCE(${edgePredicate(s, relation, j, arg)}, FALSE)`);
    } else if (arg) {
      const field = relation.joinFields.find((f) => f.name === key);
      if (!field) throw new Error(`unknown join field ${relation.name}.${key}`);
      parts.push(valuePredicate(s, field, sql`${j}.${ident(field.column)}`, arg, `${relation.name}.${key}`));
    }
  }
  return and(parts);
}
