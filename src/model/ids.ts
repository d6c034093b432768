// Global object ids: base64url of `<Type>:<uuid>`, opaque to clients. An id names its type, so
// one of the wrong type is refused. (Reads build them in SQL: compile/ids.ts `idSql`.)

import { badInput } from '../errors/index.js';

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
