// The custom scalars of every app's API — Text, JSON and DateTime — and the DateTime input
// forms a client may send (full ISO 8601 date-times, dates, and partial `2017` / `2017-03`).

import { GraphQLError, GraphQLScalarType, Kind, print, valueFromASTUntyped } from 'graphql';
import type { ValueNode } from 'graphql';
import { normalizeDateTime } from '../model/index.js';

const YEAR = /^\d{4}$/;
const YEAR_MONTH = /^\d{4}-\d{2}$/;

/**
 * The normal form (`YYYY-MM-DDTHH:mm:ss.sssZ`) of a DateTime input, or undefined when the
 * text is not one. Accepts what the schema language accepts for defaults (dates and
 * date-times, with or without an offset) plus a bare year or year-month, meaning the start of
 * that period in UTC: `2017` → `2017-01-01T00:00:00.000Z`.
 */
export function parseDateTimeInput(text: string): string | undefined {
  if (YEAR.test(text)) return normalizeDateTime(`${text}-01-01`);
  if (YEAR_MONTH.test(text)) return normalizeDateTime(`${text}-01`);
  return normalizeDateTime(text);
}

/** A short, safe rendering of a rejected value for an error message. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 64 ? `${text.slice(0, 64)}…` : text;
  } catch {
    return String(value);
  }
}

/** `at` is the literal being parsed: validation reports a scalar's error as it is, so it carries the location. */
function dateTimeError(got: string, at?: ValueNode): GraphQLError {
  return new GraphQLError(`DateTime must be an ISO 8601 date-time such as 2016-12-08T12:33:56.000Z (got ${got})`, at ? { nodes: at } : {});
}

function parseDateTimeValue(value: unknown): string {
  const normal = typeof value === 'string' ? parseDateTimeInput(value) : undefined;
  if (normal === undefined) throw dateTimeError(shown(value));
  return normal;
}

export const DateTimeScalar = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description:
    'An ISO 8601 date-time in UTC with milliseconds, e.g. `2016-12-08T12:33:56.000Z`. As input, ' +
    'dates, other offsets and partial forms (`2017`, `2017-03`, `2017-03-05T10:00`) are accepted ' +
    'and mean the start of that period in UTC.',
  // The compiler already outputs the normal form; a Date (from a driver) is formatted the same way.
  serialize(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
    throw new GraphQLError(`DateTime cannot represent ${shown(value)}`);
  },
  parseValue: parseDateTimeValue,
  parseLiteral(ast) {
    const normal = ast.kind === Kind.STRING ? parseDateTimeInput(ast.value) : undefined;
    if (normal === undefined) throw dateTimeError(print(ast), ast);
    return normal;
  },
});

function textValue(value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError(`Text cannot represent a non string value: ${shown(value)}`);
  return value;
}

export const TextScalar = new GraphQLScalarType<string, string>({
  name: 'Text',
  description: 'A string of unbounded length. Unlike `String`, it cannot be indexed or given a default.',
  serialize(value) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new GraphQLError(`Text cannot represent ${shown(value)}`);
  },
  parseValue: textValue,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`Text cannot represent a non string value: ${print(ast)}`, { nodes: ast });
    return ast.value;
  },
});

export const JSONScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  description: 'Any JSON value: an object, a list, a string, a number, a boolean or null.',
  serialize: (value) => value,
  parseValue: (value) => value,
  // Object and list literals may hold variables (`{ a: $x }`); they take the variables' values.
  parseLiteral: (ast: ValueNode, variables?: { readonly [name: string]: unknown } | null) => valueFromASTUntyped(ast, variables),
});
