// Global object ids: base64url of `<Type>:<uuid>`, opaque to clients, built in SQL for reads
// and decoded here for inputs. An id names its type, so one of the wrong type is refused.

import { badInput } from '../errors/index.js';
import { literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeId(type: string, uuid: string): string {
  return Buffer.from(`${type}:${uuid}`, 'utf8').toString('base64url');
}

/** The type and row uuid an id stands for, or undefined when it is not one of ours. */
export function decodeAnyId(id: string): { type: string; uuid: string } | undefined {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200 || !/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const uuid = text.slice(colon + 1);
  const type = text.slice(0, colon);
  if (!UUID.test(uuid) || !/^[_A-Za-z][_0-9A-Za-z]*$/.test(type)) return undefined;
  // Only the canonical spelling is an id: no second string may name the same object.
  if (encodeId(type, uuid) !== id) return undefined;
  return { type, uuid };
}

/** The row uuid of an id that must name a `type` object; `what` names the input in errors. */
export function decodeId(id: string, type: string, what: string): string {
  const decoded = decodeAnyId(id);
  if (!decoded) throw badInput(`${what}: "${shorten(id)}" is not a valid id`, { field: what });
  if (decoded.type !== type) {
    throw badInput(`${what}: "${shorten(id)}" is the id of a ${decoded.type}, not of a ${type}`, { field: what });
  }
  return decoded.uuid;
}

function shorten(text: string): string {
  return typeof text === 'string' && text.length > 60 ? `${text.slice(0, 57)}...` : String(text);
}

/**
 * The id of the row whose uuid is `column`, as SQL. The type name is a validated GraphQL
 * name, safe as a literal; `translate` turns base64 into base64url without padding or the
 * line breaks PostgreSQL inserts every 76 characters.
 */
export function idSql(type: string, column: SqlFragment): SqlFragment {
  return sql`translate(encode(convert_to(${literal(`${type}:`)} || ${column}::text, 'UTF8'), 'base64'), E'+/=\\n', '-_')`;
}
