// Opaque strings built in SQL: global ids and keyset cursors are base64url of a text, without
// padding, as the model decodes them (Buffer's 'base64url').

import { sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';

/**
 * The base64url form of `text` (UTF-8), as SQL. PostgreSQL 15 encodes standard base64 only, with
 * a line break every 76 characters. Four `replace`s of one character each make it base64url:
 * each scans the string once and returns it as it is when the character is absent. One
 * `translate` call would do the same, yet costs 1.2–1.5 µs a value against 0.2, since it matches
 * every character of the string against its list as a multi-byte character; a page of 20 rows
 * encodes 41 values (docs/performance.md).
 */
export function base64urlSql(text: SqlFragment): SqlFragment {
  const base64 = sql`encode(convert_to(${text}, 'UTF8'), 'base64')`;
  return sql`replace(replace(replace(replace(${base64}, E'\\n', ''), '+', '-'), '/', '_'), '=', '')`;
}
