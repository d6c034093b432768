// Field reads the rules refuse, row by row. The statement answers a marker in place of the
// value — a JSON string starting with the NUL character, which no stored string can hold —
// and the executor turns each marker into null and a FORBIDDEN error at its path.

import { GraphQLError } from 'graphql';
import type { FieldNode } from 'graphql';
import { TesseraError } from '../errors/index.js';
import { literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { CompileState } from './state.js';

const MARKER = '\u0000forbidden:';
/** How the marker looks in JSON text: the NUL escaped. */
const MARKER_IN_TEXT = '\\u0000forbidden:';

/** `value` where `allowed` holds, else the refusal marker naming `Type.field`. */
export function guarded(s: CompileState, allowed: SqlFragment | undefined, value: SqlFragment, type: string, field: string): SqlFragment {
  if (allowed === undefined) return value;
  s.refusals = true;
  // JSON.stringify escapes the NUL, so the literal holds `\u0000` as text, which `json` keeps.
  const marker = sql`${literal(JSON.stringify(`${MARKER}${type}.${field}`))}::json`;
  return sql`CASE WHEN ${allowed} THEN to_json(${value}) ELSE ${marker} END`;
}

/**
 * The root field's JSON text with every marker replaced by null, and the FORBIDDEN errors at
 * their paths. Text without markers is returned as it is.
 */
export function resolveRefusals(text: string, key: string, node: FieldNode): { text: string; errors: GraphQLError[] } {
  if (!text.includes(MARKER_IN_TEXT)) return { text, errors: [] };
  const errors: GraphQLError[] = [];
  const walk = (v: unknown, path: (string | number)[]): unknown => {
    if (typeof v === 'string' && v.startsWith(MARKER)) {
      const what = v.slice(MARKER.length);
      const original = new TesseraError('FORBIDDEN', `Not allowed to read ${what}`, { field: what });
      errors.push(new GraphQLError(original.message, { nodes: [node], path, originalError: original, extensions: { ...original.extensions } }));
      return null;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, i]));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = walk(item, [...path, k]);
      return out;
    }
    return v;
  };
  const value = walk(JSON.parse(text) as unknown, [key]);
  return { text: JSON.stringify(value), errors };
}
