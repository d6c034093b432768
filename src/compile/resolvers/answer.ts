// Judges a RESOLVER function's answer against its custom field's declared type. The answer is
// `{ "data": <value> }`: scalars under the rules stored values follow (Int range, String length,
// no NUL, DateTime normalised), enum values, embedded objects field by field, non-null and
// lists; for a @model result, `{ "id": "<global id>" }` objects of that type, read afterwards
// under the caller's rules. Anything else is FUNCTION_FAILED, saying where and what was
// expected — never the value itself.

import { TesseraError } from '../../errors/index.js';
import { decodeAnyId } from '../../model/index.js';
import type { CustomField, CustomType, ScalarName, ValueField } from '../../model/index.js';
import { parseDateTimeInput } from '../../graphql/index.js';
import type { AppContext } from '../context.js';
import { MAX_STRING_LENGTH } from '../values.js';

/** What a valid answer holds: a JSON value of the field's type, or the uuids of @model rows. */
export type Answered = { kind: 'value'; value: unknown } | { kind: 'rows'; ids: (string | null)[] | null };

/** One level of a type: a custom field's result, or a field of an embedded type. */
interface Shape {
  kind: CustomType['kind'];
  name: string;
  list: boolean;
  required: boolean;
  itemRequired: boolean;
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_MESSAGE = 500;

/** Where an answer stops fitting its type. */
class Misfit {
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly got: string,
  ) {}
}

function kindOfValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  return `a ${typeof v}`;
}

/** `[Quote!]!` as written in the schema. */
export function typeLabel(type: Shape): string {
  const item = `${type.name}${type.list && type.itemRequired ? '!' : ''}`;
  return `${type.list ? `[${item}]` : item}${type.required ? '!' : ''}`;
}

function failed(field: CustomField, message: string): TesseraError {
  return new TesseraError('FUNCTION_FAILED', `${field.root}.${field.name}: the function ${field.function} ${message}`, { function: field.function });
}

/** The answer judged; throws FUNCTION_FAILED when it is not `{ data }` of the field's type. */
export function judgeAnswer(app: AppContext, field: CustomField, body: unknown): Answered {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw failed(field, 'answered no JSON object; it must answer { "data": … }');
  const answer = body as Record<string, unknown>;
  const error = answer.error;
  if (error !== undefined && error !== null) {
    const message = typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string' ? (error as { message: string }).message : '';
    throw failed(field, message ? `answered an error: ${message.slice(0, MAX_MESSAGE)}` : 'answered an error');
  }
  if (!Object.hasOwn(answer, 'data')) throw failed(field, 'answered no data; it must answer { "data": … }');
  try {
    const value = checked(app, field.type, answer.data, 'data');
    if (field.type.kind !== 'model') return { kind: 'value', value };
    return { kind: 'rows', ids: value === null ? null : field.type.list ? (value as (string | null)[]) : [value as string] };
  } catch (err) {
    if (!(err instanceof Misfit)) throw err;
    throw failed(field, `answered a value that does not fit ${typeLabel(field.type)}: ${err.path} should be ${err.expected}, not ${err.got}`);
  }
}

function checked(app: AppContext, shape: Shape, v: unknown, path: string): unknown {
  if (v === null || v === undefined) {
    if (shape.required) throw new Misfit(path, shape.list ? 'a list' : describe(shape), 'null');
    return null;
  }
  if (!shape.list) return element(app, shape, v, path);
  if (!Array.isArray(v)) throw new Misfit(path, 'a list', kindOfValue(v));
  return v.map((item: unknown, i) => {
    const at = `${path}[${i}]`;
    if (item === null || item === undefined) {
      if (shape.itemRequired) throw new Misfit(at, describe(shape), 'null');
      return null;
    }
    return element(app, shape, item, at);
  });
}

function describe(shape: Shape): string {
  switch (shape.kind) {
    case 'scalar':
      return `${shape.name === 'Int' || shape.name === 'ID' ? 'an' : 'a'} ${shape.name}`;
    case 'enum':
      return `one of the values of ${shape.name}`;
    case 'embedded':
      return `a ${shape.name} object`;
    case 'model':
      return `{ "id": "<id of a ${shape.name}>" }`;
    default: {
      const never: never = shape.kind;
      return String(never);
    }
  }
}

function element(app: AppContext, shape: Shape, v: unknown, path: string): unknown {
  switch (shape.kind) {
    case 'scalar':
      return scalar(shape.name as ScalarName, v, path);
    case 'enum': {
      const values = app.app.model.enums.find((e) => e.name === shape.name)?.values ?? [];
      if (typeof v !== 'string' || !values.includes(v)) throw new Misfit(path, describe(shape), typeof v === 'string' ? 'another string' : kindOfValue(v));
      return v;
    }
    case 'embedded':
      return embedded(app, shape, v, path);
    case 'model':
      return modelId(shape, v, path);
    default: {
      const never: never = shape.kind;
      throw new Error(`unknown type kind ${String(never)}`);
    }
  }
}

function embedded(app: AppContext, shape: Shape, v: unknown, path: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Misfit(path, describe(shape), kindOfValue(v));
  const type = app.embedded(shape.name);
  const given = v as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!type.fields.some((f) => f.name === key)) throw new Misfit(`${path}.${key}`, `absent (${shape.name} has no field ${key})`, 'given');
  }
  const out: Record<string, unknown> = {};
  for (const field of type.fields) out[field.name] = checked(app, fieldShape(field), given[field.name], `${path}.${field.name}`);
  return out;
}

function fieldShape(field: ValueField): Shape {
  return { kind: field.type.kind, name: field.type.name, list: field.list, required: field.required, itemRequired: false };
}

/** `{ "id": "<global id>" }` of a `shape.name` object: its row uuid. */
function modelId(shape: Shape, v: unknown, path: string): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Misfit(path, describe(shape), kindOfValue(v));
  const keys = Object.keys(v);
  const id = (v as { id?: unknown }).id;
  if (keys.length !== 1 || typeof id !== 'string') throw new Misfit(path, describe(shape), keys.includes('id') ? 'an object whose id is not a string' : 'an object without an id alone');
  const decoded = decodeAnyId(id);
  if (!decoded) throw new Misfit(`${path}.id`, `the id of a ${shape.name}`, 'a string that is no id');
  if (decoded.type !== shape.name) throw new Misfit(`${path}.id`, `the id of a ${shape.name}`, `the id of a ${decoded.type}`);
  return decoded.uuid;
}

function text(v: string, path: string, max: number | undefined): string {
  if (v.includes('\0')) throw new Misfit(path, 'text without the NUL character', 'text holding one');
  if (LONE_SURROGATE.test(v)) throw new Misfit(path, 'valid Unicode text', 'text with an unpaired surrogate');
  if (max !== undefined && v.length > max) throw new Misfit(path, `at most ${max} characters`, `${v.length}`);
  return v;
}

/** A JSON value's strings, keys included, as text rules have them (no NUL, valid Unicode). */
function json(v: unknown, path: string): unknown {
  if (typeof v === 'string') text(v, path, undefined);
  else if (Array.isArray(v)) v.forEach((item: unknown, i) => json(item, `${path}[${i}]`));
  else if (v !== null && typeof v === 'object') {
    for (const [key, item] of Object.entries(v)) {
      text(key, path, undefined);
      json(item, `${path}.${key}`);
    }
  }
  return v;
}

function scalar(name: ScalarName, v: unknown, path: string): unknown {
  const expected = describe({ kind: 'scalar', name, list: false, required: false, itemRequired: false });
  const refuse = (): never => {
    throw new Misfit(path, expected, kindOfValue(v));
  };
  switch (name) {
    case 'ID':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      return typeof v === 'string' ? text(v, path, MAX_STRING_LENGTH) : refuse();
    case 'String':
      return typeof v === 'string' ? text(v, path, MAX_STRING_LENGTH) : refuse();
    case 'Text':
      return typeof v === 'string' ? text(v, path, undefined) : refuse();
    case 'Int':
      if (typeof v !== 'number' || !Number.isInteger(v)) return refuse();
      if (v < INT_MIN || v > INT_MAX) throw new Misfit(path, 'an Int (a 32-bit integer)', 'an integer out of that range');
      return v;
    case 'Float':
      return typeof v === 'number' && Number.isFinite(v) ? v : refuse();
    case 'Boolean':
      return typeof v === 'boolean' ? v : refuse();
    case 'DateTime': {
      const normal = typeof v === 'string' ? parseDateTimeInput(v) : undefined;
      if (normal === undefined) throw new Misfit(path, 'an ISO 8601 DateTime', typeof v === 'string' ? 'a string that is none' : kindOfValue(v));
      return normal;
    }
    case 'JSON':
      return json(v, path);
    default: {
      const never: never = name;
      throw new Error(`unknown scalar ${String(never)}`);
    }
  }
}
