// What the connection and filter tests compare the API against: seeding through batched create
// mutations, walking a connection page by page in either direction, and in-memory reference
// implementations of the documented order (nulls largest, ties by id) and `where` semantics.

import type { Json, TestApp } from './harness.js';

/** Creates per request: aliases stay well under the app's alias limit. */
const BATCH = 25;

/**
 * Creates one object per input through `create<Type>` (many aliased creates per request, in
 * order) and returns the selected fields of each `changed<Type>`.
 */
export async function seed(app: TestApp, type: string, inputs: readonly Record<string, unknown>[], selection = 'id'): Promise<Json[]> {
  const out: Json[] = [];
  for (let start = 0; start < inputs.length; start += BATCH) {
    const chunk = inputs.slice(start, start + BATCH);
    const defs = chunk.map((_, i) => `$i${i}: Create${type}Input!`).join(', ');
    const fields = chunk.map((_, i) => `c${i}: create${type}(input: $i${i}) { changed${type} { ${selection} } }`).join('\n');
    const variables = Object.fromEntries(chunk.map((input, i) => [`i${i}`, input]));
    const data = await app.data(`mutation(${defs}) {\n${fields}\n}`, variables);
    chunk.forEach((_, i) => out.push(data[`c${i}`][`changed${type}`]));
  }
  return out;
}

/** The row uuid inside a global id (ids are base64url of `<Type>:<uuid>`). */
export function uuidOf(id: string): string {
  const text = Buffer.from(id, 'base64url').toString('utf8');
  return text.slice(text.lastIndexOf(':') + 1);
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Page {
  nodes: Json[];
  cursors: string[];
  pageInfo: PageInfo;
}

/**
 * A query for one page of a connection, given the text of its page arguments (which use the
 * variables `$size: Int` and `$cursor: String`); the connection is found at `path` in `data`.
 */
export type PageQuery = (args: string) => string;

/**
 * The variable definitions a page query needs: `$size` and `$cursor` when its page arguments
 * use them, plus `extra` (e.g. `$id: ID!`). Empty when there are none.
 */
export function pageVariables(args: string, extra = ''): string {
  const defs = [args.includes('$size') ? '$size: Int' : '', args.includes('$cursor') ? '$cursor: String' : '', extra].filter(Boolean);
  return defs.length ? `(${defs.join(', ')})` : '';
}

function at(data: Json, path: readonly string[]): Json {
  return path.reduce((v: Json, key) => v?.[key], data);
}

export async function fetchPage(app: TestApp, query: PageQuery, path: readonly string[], args: string, variables: Record<string, unknown> = {}): Promise<Page> {
  const data = await app.data(query(args), variables);
  const connection = at(data, path);
  return {
    nodes: connection.edges.map((e: Json) => e.node),
    cursors: connection.edges.map((e: Json) => e.cursor),
    pageInfo: connection.pageInfo,
  };
}

export interface Walk {
  /** Nodes in the connection's order (for a backward walk: reversed back into that order). */
  nodes: Json[];
  pages: Page[];
}

/**
 * Walks a connection to its end, `size` rows per page: forward with first/after, or backward
 * with last/before. `between` runs after each page (e.g. to write concurrently).
 * Checks the pageInfo invariants of each page on the way.
 */
export async function walk(
  app: TestApp,
  query: PageQuery,
  path: readonly string[],
  direction: 'forward' | 'backward',
  size: number,
  between: (page: number) => Promise<void> = async () => {},
  variables: Record<string, unknown> = {},
): Promise<Walk> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 10_000; guard += 1) {
    const args: string = direction === 'forward' ? `first: $size, after: $cursor` : `last: $size, before: $cursor`;
    const page = await fetchPage(app, query, path, args, { ...variables, size, cursor });
    pages.push(page);
    const { pageInfo } = page;
    if (page.nodes.length > size) throw new Error(`page of ${page.nodes.length} rows, asked for ${size}`);
    if (pageInfo.startCursor !== (page.cursors[0] ?? null) || pageInfo.endCursor !== (page.cursors[page.cursors.length - 1] ?? null)) {
      throw new Error(`pageInfo cursors ${JSON.stringify(pageInfo)} do not match the edges' cursors`);
    }
    const more = direction === 'forward' ? pageInfo.hasNextPage : pageInfo.hasPreviousPage;
    const back = direction === 'forward' ? pageInfo.hasPreviousPage : pageInfo.hasNextPage;
    if (back !== (cursor !== null)) throw new Error(`page ${pages.length}: ${direction} walk says there is ${back ? 'a' : 'no'} page behind it`);
    if (!more) break;
    if (page.nodes.length < size) throw new Error(`short page (${page.nodes.length} of ${size}) claims more rows follow`);
    cursor = direction === 'forward' ? pageInfo.endCursor : pageInfo.startCursor;
    await between(pages.length);
  }
  const ordered = direction === 'forward' ? pages : [...pages].reverse();
  return { nodes: ordered.flatMap((p) => p.nodes), pages };
}

// ---------------------------------------------------------------------------------------------
// Order

export interface OrderKey {
  field: string;
  direction: 'ASC' | 'DESC';
}

/** Compares two non-null values of one field: numbers, booleans (false first) or text (code units). */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Nulls are the largest values: last in ASC, first in DESC. */
export function compareKey(a: unknown, b: unknown, direction: 'ASC' | 'DESC'): number {
  const aNull = a === null || a === undefined;
  const bNull = b === null || b === undefined;
  const c = aNull && bNull ? 0 : aNull ? 1 : bNull ? -1 : compareValues(a, b);
  return direction === 'DESC' ? -c : c;
}

/** A row's value of an order field; ids order by the uuid inside them. */
function orderValue(row: Json, field: string): unknown {
  return field === 'id' ? uuidOf(row.id) : row[field];
}

/** Compares rows by the given keys only (0 for rows that tie on every key). */
export function compareRows(keys: readonly OrderKey[], value: (row: Json, field: string) => unknown = orderValue) {
  return (a: Json, b: Json): number => {
    for (const k of keys) {
      const c = compareKey(value(a, k.field), value(b, k.field), k.direction);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/**
 * The orders `rows` may come in for `keys`, ties broken by id: ascending or descending id
 * (the API breaks ties by id; which way is its own choice, but it must be one of them).
 */
export function expectedOrders(rows: readonly Json[], keys: readonly OrderKey[]): Json[][] {
  const byKeys = compareRows(keys);
  const byId = (a: Json, b: Json) => compareKey(uuidOf(a.id), uuidOf(b.id), 'ASC');
  return [
    [...rows].sort((a, b) => byKeys(a, b) || byId(a, b)),
    [...rows].sort((a, b) => byKeys(a, b) || -byId(a, b)),
  ];
}

/**
 * Checks that `rows` are sorted by `keys` and that rows tying on every key follow their ids,
 * all tie groups the same way. Returns a description of the first problem, or undefined.
 */
export function orderProblem(rows: readonly Json[], keys: readonly OrderKey[]): string | undefined {
  const byKeys = compareRows(keys);
  let idDirection = 0;
  for (let i = 1; i < rows.length; i += 1) {
    const a = rows[i - 1];
    const b = rows[i];
    const c = byKeys(a, b);
    if (c > 0) return `rows ${i - 1} and ${i} are out of order: ${JSON.stringify(a)} before ${JSON.stringify(b)}`;
    if (c === 0) {
      const d = Math.sign(compareKey(uuidOf(a.id), uuidOf(b.id), 'ASC'));
      if (d === 0) return `row ${i} repeats row ${i - 1}: ${JSON.stringify(b)}`;
      if (idDirection !== 0 && d !== idDirection) return `ties are not broken by id in one direction at row ${i}`;
      idDirection = d;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// where

/**
 * The start of the period a (possibly partial) ISO date-time names, in UTC milliseconds; no
 * offset means UTC.
 */
export function instant(text: string): number {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?)?)?(Z|([+-])(\d{2}):(\d{2}))?$/.exec(text);
  if (!m) throw new Error(`not a date-time this reference reads: ${text}`);
  const n = (v: string | undefined, d = 0) => (v === undefined ? d : Number(v));
  const local = Date.UTC(n(m[1]), n(m[2], 1) - 1, n(m[3], 1), n(m[4]), n(m[5]), n(m[6]), Number((m[7] ?? '').padEnd(3, '0')));
  const offset = m[9] ? (m[9] === '-' ? -1 : 1) * (n(m[10]) * 60 + n(m[11])) * 60_000 : 0;
  return local - offset;
}

/** SQL `ILIKE` for ASCII text: `%` and `_` wildcards, `\` escapes the next character. */
export function ilike(value: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i += 1) {
    let c = pattern[i] as string;
    if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else {
      if (c === '\\') {
        i += 1;
        c = pattern[i] ?? '';
        if (c === '') throw new Error(`pattern ends with an escape: ${pattern}`);
      }
      re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`, 'is').test(value);
}

/**
 * How the reference reads a field's values: numbers, text, booleans, enum names, DateTime (as
 * instants), or `opaque` values that only `isNull` filters (JSON, lists, embedded values).
 */
export type FieldKind = 'number' | 'text' | 'boolean' | 'enum' | 'datetime' | 'opaque';

function scalar(kind: FieldKind, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  return kind === 'datetime' ? instant(String(v)) : v;
}

function cmp(a: unknown, b: unknown): number {
  return compareValues(a, b);
}

/**
 * Whether a field value satisfies an operator input, by the documented rules: a null value
 * satisfies no positive comparison; `ne notIn notLike notBetween` match nulls; `like` ignores
 * case; `between` includes both ends; null or absent operands are ignored.
 */
export function fieldMatches(kind: FieldKind, value: unknown, ops: Record<string, unknown>): boolean {
  const v = scalar(kind, value);
  for (const [op, raw] of Object.entries(ops)) {
    if (raw === null || raw === undefined) continue;
    if (op === 'isNull') {
      if ((v === null) !== raw) return false;
      continue;
    }
    if (kind === 'opaque') throw new Error(`reference has no operator ${op} on JSON, lists or embedded values`);
    const operand = Array.isArray(raw) ? raw.map((x) => scalar(kind, x)) : scalar(kind, raw);
    const list = Array.isArray(operand) ? operand : [];
    const ok = ((): boolean => {
      switch (op) {
        case 'eq':
          return v !== null && cmp(v, operand) === 0;
        case 'ne':
          return v === null || cmp(v, operand) !== 0;
        case 'gt':
          return v !== null && cmp(v, operand) > 0;
        case 'gte':
          return v !== null && cmp(v, operand) >= 0;
        case 'lt':
          return v !== null && cmp(v, operand) < 0;
        case 'lte':
          return v !== null && cmp(v, operand) <= 0;
        case 'in':
          return v !== null && list.some((x) => cmp(v, x) === 0);
        case 'notIn':
          return v === null || !list.some((x) => cmp(v, x) === 0);
        case 'between':
          return v !== null && cmp(v, list[0]) >= 0 && cmp(v, list[1]) <= 0;
        case 'notBetween':
          return v === null || !(cmp(v, list[0]) >= 0 && cmp(v, list[1]) <= 0);
        case 'like':
          return v !== null && ilike(String(v), String(operand));
        case 'notLike':
          return v === null || !ilike(String(v), String(operand));
        default:
          throw new Error(`reference has no operator ${op}`);
      }
    })();
    if (!ok) return false;
  }
  return true;
}

/** Whether a row satisfies a where tree of field filters and AND / OR / NOT (two-valued). */
export function rowMatches(kinds: Readonly<Record<string, FieldKind>>, row: Json, where: Record<string, unknown>): boolean {
  return Object.entries(where).every(([key, arg]) => {
    if (arg === null || arg === undefined) return true;
    if (key === 'AND') return (arg as Record<string, unknown>[]).every((w) => rowMatches(kinds, row, w));
    if (key === 'OR') return (arg as Record<string, unknown>[]).some((w) => rowMatches(kinds, row, w));
    if (key === 'NOT') return !rowMatches(kinds, row, arg as Record<string, unknown>);
    const kind = kinds[key];
    if (!kind) throw new Error(`reference has no field ${key}`);
    return fieldMatches(kind, row[key], arg as Record<string, unknown>);
  });
}

/** A value as a GraphQL literal: strings under a key in `enumFields` bare (enum values), the rest as JSON. */
export function graphqlLiteral(v: unknown, enumFields: ReadonlySet<string>, enumContext = false): string {
  if (Array.isArray(v)) return `[${v.map((x) => graphqlLiteral(x, enumFields, enumContext)).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k}: ${graphqlLiteral(x, enumFields, enumContext || enumFields.has(k))}`)
      .join(', ')} }`;
  }
  if (enumContext && typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** Ids sorted, for comparing sets. */
export function idSet(rows: readonly Json[]): string[] {
  return rows.map((r) => r.id as string).sort();
}
