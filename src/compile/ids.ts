// Global object ids, built in SQL for reads; decoding them is the model's (model/ids.ts).

import { literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { base64urlSql } from './base64url.js';

export { decodeAnyId, decodeId, encodeId } from '../model/index.js';

/** The id of the row whose uuid is `column`, as SQL. The type name is a validated GraphQL name, safe as a literal. */
export function idSql(type: string, column: SqlFragment): SqlFragment {
  return base64urlSql(sql`${literal(`${type}:`)} || ${column}::text`);
}
