// Global object ids: base64url of `<Type>:<uuid>`, opaque to clients. An id names its type, so
// one of the wrong type is refused. (Reads build them in SQL: compile/ids.ts `idSql`.)

import { badInput } from '../errors/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeId(type: string, uuid: string): string {
  return Buffer.from(`${type}:${uuid}`, 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const TYPE_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const BASE64URL_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether base64url text (its alphabet checked) is the one spelling of its bytes, the one
 * `toString('base64url')` writes: no lone last digit, and no bit set in the last digit's part
 * that holds no byte (the decoder ignores those bits, so they would give other spellings).
 */
function canonicalBase64url(text: string): boolean {
  const rest = text.length % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  const last = BASE64URL_DIGITS.indexOf(text[text.length - 1] as string);
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

/** The type and row uuid an id stands for, or undefined when it is not one of ours. */
export function decodeAnyId(id: string): { type: string; uuid: string } | undefined {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200 || !BASE64URL.test(id)) return undefined;
  // Only the canonical spelling is an id: no second string may name the same object.
  if (!canonicalBase64url(id)) return undefined;
  // Latin-1 maps each byte to one character: an id's text is ASCII (checked below), and any
  // other byte gives a character no check lets through.
  const text = Buffer.from(id, 'base64url').toString('latin1');
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const uuid = text.slice(colon + 1);
  const type = text.slice(0, colon);
  if (!UUID.test(uuid) || !TYPE_NAME.test(type)) return undefined;
  return { type, uuid };
}

/** The row uuid of an id that must name a `type` object; `what` names the input in errors. */
export function decodeId(id: string, type: string, what: string): string {
  const decoded = decodeAnyId(id);
  if (!decoded) throw badInput(`${what}: ${quotedId(id)} is not a valid id`, { field: what });
  if (decoded.type !== type) {
    throw badInput(`${what}: ${quotedId(id)} is the id of a ${decoded.type}, not of a ${type}`, { field: what });
  }
  return decoded.uuid;
}

/**
 * A client's id as error messages quote it: shortened, in JSON quotes, so that quotes or
 * anything else in it cannot pass for the message's own text.
 */
export function quotedId(id: unknown): string {
  const text = String(id);
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}
