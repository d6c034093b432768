// Field values in and out of the database: how a stored value becomes response JSON in SQL
// (DateTime formatted, embedded values cut to the selection), and how an input value is
// checked and converted into a bound parameter.

import type { EmbeddedType, ScalarName, ValueField } from '../model/index.js';
import { badInput } from '../errors/index.js';
import { ident, literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';

/** The most characters a `String` value may hold (`Text` is bounded by the request body only). */
export const MAX_STRING_LENGTH = 10_000;

export function dateTimeOut(expr: SqlFragment): SqlFragment {
  return sql`to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** A JSON object from response keys and SQL values, keys in selection order. */
export function jsonObject(pairs: readonly (readonly [string, SqlFragment])[]): SqlFragment {
  if (pairs.length === 0) return sql`json_build_object()`;
  // json_build_object takes at most 100 arguments; wider selections are built in chunks whose
  // text is spliced, which keeps the key order (jsonb concatenation would not).
  const chunks: SqlFragment[] = [];
  for (let i = 0; i < pairs.length; i += 50) {
    const chunk = pairs.slice(i, i + 50).flatMap(([key, v]) => [sql`${literal(key)}::text`, v]);
    chunks.push(sql`json_build_object(${joinComma(chunk)})`);
  }
  if (chunks.length === 1) return chunks[0] as SqlFragment;
  const texts = chunks.map((chunk, i) => {
    const text = sql`${chunk}::text`;
    if (i === 0) return sql`left(${text}, -1)`;
    if (i === chunks.length - 1) return sql`',' || substr(${text}, 2)`;
    return sql`',' || substr(left(${text}, -1), 2)`;
  });
  return sql`(${joinWith(texts, sql` || `)})::json`;
}

function joinComma(items: SqlFragment[]): SqlFragment {
  return joinWith(items, sql`, `);
}

function joinWith(items: SqlFragment[], sep: SqlFragment): SqlFragment {
  let out = sql``;
  items.forEach((item, i) => {
    out = i === 0 ? item : sql`${out}${sep}${item}`;
  });
  return out;
}

/** The SQL type a where operand or cursor value of this field is cast to. */
export function castOf(field: ValueField): SqlFragment {
  if (field.list || field.type.kind === 'embedded') return sql`jsonb`;
  if (field.type.kind === 'enum') return sql`text`;
  return scalarCast(field.type.name);
}

export function scalarCast(name: ScalarName): SqlFragment {
  switch (name) {
    case 'ID':
    case 'String':
    case 'Text':
      return sql`text`;
    case 'Int':
      return sql`integer`;
    case 'Float':
      return sql`double precision`;
    case 'Boolean':
      return sql`boolean`;
    case 'DateTime':
      return sql`timestamptz`;
    case 'JSON':
      return sql`jsonb`;
    default: {
      const never: never = name;
      throw new Error(`unknown scalar ${String(never)}`);
    }
  }
}

/** A UTF-16 surrogate without its pair: no Unicode character, and not valid in PostgreSQL text or JSON. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Checks a text value for what PostgreSQL or the limits refuse. */
export function checkText(text: string, what: string, max: number | undefined): string {
  if (text.includes('\0')) throw badInput(`${what}: text must not contain the NUL character`, { field: what });
  if (LONE_SURROGATE.test(text)) throw badInput(`${what}: text must be valid Unicode (it holds an unpaired surrogate)`, { field: what });
  if (max !== undefined && text.length > max) throw badInput(`${what}: at most ${max} characters (got ${text.length})`, { field: what });
  return text;
}

function checkJson(v: unknown, what: string): void {
  if (typeof v === 'string') checkText(v, what, undefined);
  else if (Array.isArray(v)) v.forEach((item) => checkJson(item, what));
  else if (v !== null && typeof v === 'object') {
    for (const [k, item] of Object.entries(v)) {
      checkText(k, what, undefined);
      checkJson(item, what);
    }
  }
}

function scalarIn(name: ScalarName, v: unknown, what: string): unknown {
  if (v === null || v === undefined) return null;
  switch (name) {
    case 'ID':
    case 'String':
      return checkText(String(v), what, MAX_STRING_LENGTH);
    case 'Text':
      return checkText(String(v), what, undefined);
    case 'JSON':
      checkJson(v, what);
      return JSON.stringify(v);
    default:
      return v;
  }
}

/** Checks one element of a field's value (an embedded value's own fields included). */
function checkElement(c: OutputContext, field: ValueField, v: unknown, what: string): void {
  if (v === null || v === undefined) return;
  const t = field.type;
  if (t.kind === 'embedded') {
    const embedded = c.embedded(t.name);
    const object = v as Record<string, unknown>;
    for (const f of embedded.fields) checkValue(c, f, object[f.name], `${what}.${f.name}`);
    return;
  }
  if (t.kind === 'scalar') scalarIn(t.name, v, what);
}

function checkValue(c: OutputContext, field: ValueField, v: unknown, what: string): void {
  if (field.list && Array.isArray(v)) v.forEach((item) => checkElement(c, field, item, what));
  else checkElement(c, field, v, what);
}

/**
 * A field's input value as a bound parameter value: text for scalars (DateTime already
 * normalised by its scalar), JSON text for JSON, embedded values and lists. Strings are
 * checked at every depth (NUL, and the String length limit).
 */
export function fieldIn(c: OutputContext, field: ValueField, v: unknown, what: string): unknown {
  if (v === null || v === undefined) return null;
  if (field.list || field.type.kind === 'embedded') {
    checkValue(c, field, v, what);
    if (field.list && !Array.isArray(v)) return JSON.stringify([v]);
    return JSON.stringify(v);
  }
  if (field.type.kind === 'enum') return v;
  return scalarIn(field.type.name, v, what);
}

/** A where operand (one value) converted like a field input. */
export function operandIn(field: ValueField, v: unknown, what: string): unknown {
  if (field.type.kind === 'scalar' && !field.list) return scalarIn(field.type.name, v, what);
  return v;
}

export interface OutputContext {
  embedded(name: string): EmbeddedType;
}

/** A selection inside an embedded value: response key → field name and sub-selection. */
export interface EmbeddedSelection {
  key: string;
  name: string;
  sub?: EmbeddedSelection[];
}

/** A value field's stored value (`expr`) as response JSON for the given sub-selection. */
export function valueOut(c: OutputContext, field: ValueField, expr: SqlFragment, sub: EmbeddedSelection[] | undefined): SqlFragment {
  if (field.type.kind === 'embedded' && sub) {
    const embedded = c.embedded(field.type.name);
    if (field.list) return embeddedListOut(c, embedded, expr, sub);
    return embeddedOut(c, embedded, expr, sub);
  }
  if (!field.list && field.type.kind === 'scalar' && field.type.name === 'DateTime') return dateTimeOut(expr);
  return expr;
}

function embeddedOut(c: OutputContext, type: EmbeddedType, x: SqlFragment, sub: EmbeddedSelection[], depth = 0): SqlFragment {
  const pairs = sub.map((s): [string, SqlFragment] => {
    if (s.name === '__typename') return [s.key, sql`${literal(type.name)}::text`];
    const field = type.fields.find((f) => f.name === s.name);
    if (!field) throw new Error(`unknown field ${type.name}.${s.name}`);
    const inner = sql`(${x} -> ${literal(field.name)})`;
    if (field.type.kind === 'embedded' && s.sub) {
      const nested = c.embedded(field.type.name);
      return [s.key, field.list ? embeddedListOut(c, nested, inner, s.sub, depth + 1) : embeddedOut(c, nested, inner, s.sub, depth + 1)];
    }
    return [s.key, inner];
  });
  return sql`CASE WHEN jsonb_typeof(${x}) = 'object' THEN ${jsonObject(pairs)} END`;
}

function embeddedListOut(c: OutputContext, type: EmbeddedType, x: SqlFragment, sub: EmbeddedSelection[], depth = 0): SqlFragment {
  // Each nesting level has its own alias, so an inner list never reads an outer element.
  const e = ident(`e${depth}`);
  const element = embeddedOut(c, type, sql`${e}.value`, sub, depth);
  return sql`CASE WHEN jsonb_typeof(${x}) = 'array' THEN COALESCE((SELECT json_agg(${element} ORDER BY ${e}.ordinality) FROM jsonb_array_elements(${x}) WITH ORDINALITY AS ${e}), '[]'::json) END`;
}
