// Keyset cursors: base64url of a JSON array `[signature, key values…, id]`. The signature
// names the app, type and order the cursor belongs to, so a cursor from another connection,
// order or app is refused instead of silently paging somewhere else.

import { badInput } from '../errors/index.js';
import { normalizeDateTime } from '../model/index.js';
import { join, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { base64urlSql } from './base64url.js';

/** A value kind a cursor position may hold, by the column it was read from. */
export type KeyKind = 'uuid' | 'text' | 'integer' | 'float' | 'boolean' | 'timestamp';

export interface CursorKey {
  kind: KeyKind;
  nullable: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** The JSON text a cursor encodes, from a row's key columns (the id last). */
export function cursorJson(signature: SqlFragment, keys: readonly SqlFragment[]): SqlFragment {
  return sql`json_build_array(${signature}::text, ${join(keys)})::text`;
}

/** A cursor's JSON text as the opaque cursor string (base64url, no padding). */
export function encodeCursor(json: SqlFragment): SqlFragment {
  return base64urlSql(json);
}

/** The cursor of a row as SQL, from its key columns (the id last). */
export function cursorSql(signature: SqlFragment, keys: readonly SqlFragment[]): SqlFragment {
  return encodeCursor(cursorJson(signature, keys));
}

function parseRaw(cursor: unknown): unknown[] | undefined {
  // No length cap of its own: a cursor carries its row's key values, and an orderable Text (or a
  // long String of multi-byte characters) makes a long one. The request body limit bounds it.
  if (typeof cursor !== 'string' || cursor.length === 0 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Which key positions of a cursor are null: the part of a cursor a statement's text depends on. */
export function cursorShape(cursor: unknown): string {
  if (cursor === undefined || cursor === null) return '-';
  const raw = parseRaw(cursor);
  return raw ? raw.slice(1).map((v) => (v === null ? 'n' : 'v')).join('') : 'x';
}

function keyValue(v: unknown, key: CursorKey): unknown {
  if (v === null) return key.nullable ? null : undefined;
  switch (key.kind) {
    case 'uuid':
      return typeof v === 'string' && UUID.test(v) ? v : undefined;
    case 'text':
      return typeof v === 'string' && !v.includes('\0') ? v : undefined;
    case 'integer':
      return Number.isInteger(v) && (v as number) >= INT_MIN && (v as number) <= INT_MAX ? v : undefined;
    case 'float':
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    case 'boolean':
      return typeof v === 'boolean' ? v : undefined;
    case 'timestamp': {
      // PostgreSQL has no year 0: a forged position there would fail in the database.
      const iso = typeof v === 'string' ? normalizeDateTime(v) : undefined;
      return iso?.startsWith('0000-') ? undefined : iso;
    }
    default: {
      const never: never = key.kind;
      throw new Error(`unknown key kind ${String(never)}`);
    }
  }
}

/** The key values of a cursor for a connection with this signature and keys, or BAD_USER_INPUT. */
export function decodeCursor(cursor: unknown, signature: string, keys: readonly CursorKey[], what: string): unknown[] {
  const raw = parseRaw(cursor);
  const refuse = () => badInput(`${what}: not a cursor of this connection and order (cursors come from edges or pageInfo of the same connection with the same orderBy)`, { argument: what });
  if (!raw || raw[0] !== signature || raw.length !== keys.length + 1) throw refuse();
  return keys.map((key, i) => {
    const v = keyValue(raw[i + 1], key);
    if (v === undefined) throw refuse();
    return v;
  });
}
