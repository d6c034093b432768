// Global object ids, built in SQL for reads; decoding them is the model's (model/ids.ts).

import { literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';

export { decodeAnyId, decodeId, encodeId } from '../model/index.js';

/**
 * The id of the row whose uuid is `column`, as SQL. The type name is a validated GraphQL
 * name, safe as a literal; `translate` turns base64 into base64url without padding or the
 * line breaks PostgreSQL inserts every 76 characters.
 */
export function idSql(type: string, column: SqlFragment): SqlFragment {
  return sql`translate(encode(convert_to(${literal(`${type}:`)} || ${column}::text, 'UTF8'), 'base64'), E'+/=\\n', '-_')`;
}
