// A Relay connection as one SQL expression: the page of rows in keyset order (one row more
// than asked, to know whether another page follows), edges with cursors and join fields,
// pageInfo in both directions, and aggregations over the whole filtered set when asked.

import { getNamedType, isObjectType } from 'graphql';
import type { FieldNode } from 'graphql';
import { badInput, limitExceeded } from '../errors/index.js';
import type { AppSettings, ModelType, ValueField } from '../model/index.js';
import { ident, join, literal, mapValues, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { Link } from './context.js';
import { cursorJson, cursorShape, cursorSql, decodeCursor, encodeCursor } from './cursor.js';
import { modelFields, modelObject, valueFieldOut } from './object.js';
import { beyond, cursorKeys, orderBy, signatureParam, signer, sortKeys } from './order.js';
import type { SortKey } from './order.js';
import { collectFields, subSelections } from './selection.js';
import type { Fields } from './selection.js';
import type { CompileState } from './state.js';
import { dateTimeOut, jsonObject } from './values.js';
import { TRUE, joinMatch, wherePredicate } from './where.js';

/** The rows a connection pages through. */
export interface RowSource {
  target: ModelType;
  /** Correlation with the parent row, for the target row alias. */
  parent: (row: SqlFragment) => SqlFragment;
  /** Many-to-many: the join table linking the parent row to the target rows. */
  join?: { link: Extract<Link, { kind: 'join' }>; row: SqlFragment };
}

/** The page size a request asks for, checked against the app's limits. */
export function pageSize(v: unknown, settings: AppSettings, what: string): number {
  if (v === undefined || v === null) return settings.defaultPageSize;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw badInput(`${what}: first and last take a whole number of at least 0`);
  if (v > settings.maxPageSize) throw limitExceeded(`${what}: a page holds at most ${settings.maxPageSize} items (asked for ${v}); page with cursors instead`);
  return v;
}

function given(s: CompileState, v: unknown): boolean {
  const x = s.binder.shape(v, 'present');
  return x !== undefined && x !== null;
}

interface Page {
  keys: SortKey[];
  /** The cursor signature, bound per request (it names the request's app). */
  signature: SqlFragment;
  forward: boolean;
  /** The bound cursor values and which of them are null, when a cursor was given. */
  cursor?: { values: SqlFragment[]; nulls: boolean[] };
  /** The page size, bound and checked against the request's app per request. */
  size: () => SqlFragment;
  /** The page scan's row count (the size and one more) under the connection's object: see `pageLimit`. */
  limit: (object: SqlFragment) => SqlFragment;
}

/** The largest page size written into a statement's text: any app's largest (model/settings.ts). */
const MAX_INLINED_SIZE = 10_000;

/**
 * The row count of a page's scan, `LIMIT <size> + 1`. A size the document or a variable gives
 * is written into the statement's text, and the statement is compiled once per size (its
 * variable's value becomes part of the plan's key): PostgreSQL plans a prepared statement
 * once for all its executions only when that plan's estimated cost is no higher than the
 * plans made for each execution's values, and with the row count a parameter it estimates a
 * tenth of the table, so it planned every page again on every execution (60–100 µs each,
 * docs/performance.md). The size is still bound as a parameter wherever the statement
 * compares rows with it, which is where it is checked against the request's app (statements
 * are shared by the apps of a model); the text is written this way only when the connection's
 * object binds it (`bound`), so that check always runs. When the document gives no size, the
 * count is the app's default page size, a setting the statement's shape then depends on: the
 * apps of a model that differ in it get statements of their own.
 */
function pageLimit(s: CompileState, sizeArg: unknown, bound: boolean, size: () => SqlFragment): SqlFragment {
  if (bound) {
    const n = s.binder.shape(sizeArg, 'value') ?? s.binder.setting('defaultPageSize');
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_INLINED_SIZE) return sql`${literal(n)} + 1`;
  }
  return sql`${size()} + 1`;
}

function readPage(s: CompileState, target: ModelType, args: Record<string, unknown>, what: string): Page {
  const keys = sortKeys(s, target, args.orderBy);
  const backward = given(s, args.last) || given(s, args.before);
  if (backward && (given(s, args.first) || given(s, args.after))) {
    throw badInput(`${what}: use first/after to page forward or last/before to page backward, not both`);
  }
  const forward = !backward;
  const cursorArg = forward ? args.after : args.before;
  const sizeArg = forward ? args.first : args.last;
  // Per request even for a literal: the limit is the request's app's (statements are shared by the apps of a model).
  const slots = new Set<unknown>();
  const size = () => {
    const bound = s.binder.perRequest(sizeArg, (n, request) => pageSize(n, request.settings, what));
    mapValues(bound, (slot) => {
      slots.add(slot);
      return slot;
    });
    return bound;
  };
  const page: Page = {
    keys,
    signature: signatureParam(s, target.name, keys),
    forward,
    size,
    limit: (object) => pageLimit(s, sizeArg, binds(object, slots), size),
  };
  if (given(s, cursorArg)) {
    const raw = s.binder.shape(cursorArg, 'cursor');
    const cursorKeysOf = keys.map((k) => k.cursor);
    const argName = forward ? 'after' : 'before';
    // The cursor is checked where it is bound, per request, literal or variable: it names the
    // request's app, and one statement serves every app of a model. Refusing it here would
    // cache the refusal for every cursor of its shape.
    const nulls = cursorShape(raw).split('').map((c) => c === 'n');
    const signature = signer(target.name, keys);
    const values = keys.map((_, i) =>
      s.binder.perRequest(cursorArg, (c, request) => decodeCursor(c, signature(request.appId), cursorKeysOf, `${what}(${argName})`)[i]),
    );
    page.cursor = { values, nulls };
  }
  return page;
}

/** Whether a fragment binds any of `slots` (fragments made and then left out bind nothing). */
function binds(fragment: SqlFragment, slots: ReadonlySet<unknown>): boolean {
  let found = false;
  mapValues(fragment, (v) => {
    if (slots.has(v)) found = true;
    return v;
  });
  return found;
}

function fromClause(s: CompileState, source: RowSource, z: SqlFragment, j: SqlFragment): SqlFragment {
  const table = s.app.table(source.target.name);
  if (!source.join) return sql`${table} ${z}`;
  return sql`${s.app.table(source.join.link.table)} ${j} JOIN ${table} ${z} ON ${joinMatch(j, z, source.join.row, source.join.link)}`;
}

function conditions(s: CompileState, source: RowSource, z: SqlFragment, where: unknown): SqlFragment[] {
  return [source.parent(z), s.allowed(source.target, 'read', z), wherePredicate(s, source.target, z, where)].filter((c) => c !== TRUE);
}

/** `WHERE …` of the conditions, or nothing when there are none. */
function whereClause(conds: readonly SqlFragment[]): SqlFragment {
  return conds.length === 0 ? sql`` : sql` WHERE ${join(conds, sql` AND `)}`;
}

/** Whether rows of the filtered set lie at or beyond the cursor in the given direction. */
function existsBeyond(s: CompileState, source: RowSource, args: Record<string, unknown>, page: Page, reverse: boolean): SqlFragment {
  if (!page.cursor) return sql`FALSE`;
  const z = s.alias();
  const j = s.alias('j');
  const conds = [...conditions(s, source, z, args.where), beyond(z, page.keys, page.cursor.values, page.cursor.nulls, reverse, true)];
  return sql`EXISTS (SELECT 1 FROM ${fromClause(s, source, z, j)}${whereClause(conds)})`;
}

const JOIN_PREFIX = '$j.';

export function connection(s: CompileState, source: RowSource, args: Record<string, unknown>, nodes: readonly FieldNode[], what: string, typeName: string): SqlFragment {
  const schemaType = s.app.app.schema.getType(typeName);
  const edges = isObjectType(schemaType) ? schemaType.getFields().edges : undefined;
  const edgeTypeName = edges ? getNamedType(edges.type).name : '';
  const fields = collectFields(s, subSelections(nodes), new Set([typeName]));
  const page = readPage(s, source.target, args, what);
  const target = source.target;
  const p = s.alias('p');
  const pairs: [string, SqlFragment][] = [];
  let paged = false;
  let edgesSelected = false;
  const order = page.forward ? sql`ASC` : sql`DESC`;
  const inPage = () => sql`${p}.${ident('$n')} <= ${page.size()}`;
  for (const [key, group] of fields) {
    const name = (group[0] as FieldNode).name.value;
    switch (name) {
      case '__typename':
        pairs.push([key, sql`${literal(typeName)}::text`]);
        break;
      case 'edges': {
        paged = true;
        edgesSelected = true;
        const edge = edgeObject(s, source, p, page, collectFields(s, subSelections(group), new Set([edgeTypeName])), edgeTypeName);
        pairs.push([key, sql`COALESCE(json_agg(${edge} ORDER BY ${p}.${ident('$n')} ${order}) FILTER (WHERE ${inPage()}), '[]'::json)`]);
        break;
      }
      case 'pageInfo': {
        paged = true;
        pairs.push([key, pageInfo(s, source, args, page, p, collectFields(s, subSelections(group), new Set(['PageInfo'])))]);
        break;
      }
      case 'aggregations':
        pairs.push([key, aggregations(s, source, args.where, group)]);
        break;
      default:
        throw new Error(`unknown connection field ${name}`);
    }
  }
  const object = jsonObject(pairs);
  if (!paged) return object;
  const z = s.alias();
  const j = s.alias('j');
  const conds = conditions(s, source, z, args.where);
  if (page.cursor) conds.push(beyond(z, page.keys, page.cursor.values, page.cursor.nulls, !page.forward, false));
  const ordered = orderBy(z, page.keys, !page.forward);
  const joinColumns = source.join
    ? source.join.link.relation.joinFields.map((f) => sql`, ${j}.${ident(f.column)} AS ${ident(JOIN_PREFIX + f.name)}`)
    : [];
  const inner = sql`SELECT ${z}.*${join(joinColumns, sql``)}, row_number() OVER (ORDER BY ${ordered}) AS ${ident('$n')}
    FROM ${fromClause(s, source, z, j)}${whereClause(conds)} ORDER BY ${ordered} LIMIT ${page.limit(object)}`;
  // Without edges (json_agg) the object may hold no aggregate at all (`pageInfo { __typename }`,
  // `hasPreviousPage` going forward): one group makes it one row however many the page has.
  return sql`(SELECT ${object} FROM (${inner}) ${p}${edgesSelected ? sql`` : sql` GROUP BY ()`})`;
}

function edgeObject(s: CompileState, source: RowSource, p: SqlFragment, page: Page, fields: Fields, edgeTypeName: string): SqlFragment {
  const pairs: [string, SqlFragment][] = [];
  for (const [key, group] of fields) {
    const name = (group[0] as FieldNode).name.value;
    if (name === '__typename') pairs.push([key, sql`${literal(edgeTypeName)}::text`]);
    else if (name === 'cursor') pairs.push([key, cursorSql(page.signature, cursorKeys(p, page.keys))]);
    else if (name === 'node') pairs.push([key, modelObject(s, source.target, p, modelFields(s, source.target.name, group))]);
    else {
      const field: ValueField | undefined = source.join?.link.relation.joinFields.find((f) => f.name === name);
      if (!field) throw new Error(`unknown edge field ${name}`);
      pairs.push([key, valueFieldOut(s, field, sql`${p}.${ident(JOIN_PREFIX + field.name)}`, group)]);
    }
  }
  return jsonObject(pairs);
}

function pageInfo(s: CompileState, source: RowSource, args: Record<string, unknown>, page: Page, p: SqlFragment, fields: Fields): SqlFragment {
  const n = sql`${p}.${ident('$n')}`;
  const more = sql`count(*) > ${page.size()}`;
  // Only the chosen row's cursor is encoded: the first row by its number, the last by sorting
  // the page's numbers.
  const json = cursorJson(page.signature, cursorKeys(p, page.keys));
  const pick = (first: boolean) =>
    encodeCursor(
      first
        ? sql`(array_agg(${json}) FILTER (WHERE ${n} = 1 AND ${n} <= ${page.size()}))[1]`
        : sql`(array_agg(${json} ORDER BY ${n} DESC) FILTER (WHERE ${n} <= ${page.size()}))[1]`,
    );
  const pairs: [string, SqlFragment][] = [];
  for (const [key, group] of fields) {
    const name = (group[0] as FieldNode).name.value;
    switch (name) {
      case '__typename':
        pairs.push([key, sql`'PageInfo'::text`]);
        break;
      case 'hasNextPage':
        pairs.push([key, page.forward ? more : existsBeyond(s, source, args, page, false)]);
        break;
      case 'hasPreviousPage':
        pairs.push([key, page.forward ? existsBeyond(s, source, args, page, true) : more]);
        break;
      // Rows are numbered from the cursor outwards: forward, row 1 starts the page; backward, it ends it.
      case 'startCursor':
        pairs.push([key, pick(page.forward)]);
        break;
      case 'endCursor':
        pairs.push([key, pick(!page.forward)]);
        break;
      default:
        throw new Error(`unknown pageInfo field ${name}`);
    }
  }
  return jsonObject(pairs);
}

function aggregations(s: CompileState, source: RowSource, where: unknown, nodes: readonly FieldNode[]): SqlFragment {
  const z = s.alias();
  const j = s.alias('j');
  const target = source.target;
  const typeName = s.app.names.aggregations(target.name);
  const fields = collectFields(s, subSelections(nodes), new Set([typeName]));
  const pairs: [string, SqlFragment][] = [];
  for (const [key, group] of fields) {
    const fn = (group[0] as FieldNode).name.value;
    if (fn === '__typename') pairs.push([key, sql`${literal(typeName)}::text`]);
    else if (fn === 'count') pairs.push([key, sql`count(*)`]);
    else if (fn === 'min' || fn === 'max' || fn === 'sum' || fn === 'avg') pairs.push([key, aggregate(s, target, z, fn, group)]);
    else throw new Error(`unknown aggregation ${fn}`);
  }
  const conds = conditions(s, source, z, where);
  // `aggregations { __typename }` alone holds no aggregate: one group keeps it to one row.
  const constant = [...fields].every(([, group]) => (group[0] as FieldNode).name.value === '__typename');
  return sql`(SELECT ${jsonObject(pairs)} FROM ${fromClause(s, source, z, j)}${whereClause(conds)}${constant ? sql` GROUP BY ()` : sql``})`;
}

function aggregate(s: CompileState, target: ModelType, z: SqlFragment, fn: 'min' | 'max' | 'sum' | 'avg', nodes: readonly FieldNode[]): SqlFragment {
  const typeName = s.app.names.aggregate(fn, target.name);
  const fields = collectFields(s, subSelections(nodes), new Set([typeName]));
  const pairs: [string, SqlFragment][] = [];
  const call = fn === 'min' ? sql`min` : fn === 'max' ? sql`max` : fn === 'sum' ? sql`sum` : sql`avg`;
  for (const [key, group] of fields) {
    const name = (group[0] as FieldNode).name.value;
    if (name === '__typename') {
      pairs.push([key, sql`${literal(typeName)}::text`]);
      continue;
    }
    const field = target.fields.find((f) => f.name === name);
    const column = field?.kind === 'value' ? field.column : name;
    const isDate = name === 'createdAt' || name === 'modifiedAt' || (field?.kind === 'value' && field.type.kind === 'scalar' && field.type.name === 'DateTime');
    // Over a field with rules of its own, only the rows whose value the caller may read count.
    const guard = field ? s.fieldAllowed(target, field.name, 'read', z) : undefined;
    const input = guard === undefined ? sql`${z}.${ident(column)}` : sql`CASE WHEN ${guard} THEN ${z}.${ident(column)} END`;
    const value = sql`${call}(${input})`;
    if (fn === 'sum' || fn === 'avg') pairs.push([key, sql`${value}::double precision`]);
    else pairs.push([key, isDate ? dateTimeOut(value) : value]);
  }
  return jsonObject(pairs);
}
