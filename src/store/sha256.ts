// SHA-256 of a string, in one call where Node.js has it (`crypto.hash`, 20.12 on): no hash
// object made and freed again. Request paths use it: an admin token's stored form is looked up by
// its hex digest, and the platform key's comparison hashes every token that is not an app's
// admin token, where the object cost more than the hashing.

import crypto from 'node:crypto';

const oneCall = typeof crypto.hash === 'function';

/** The SHA-256 of `value` (UTF-8), in hex. */
export function sha256Hex(value: string): string {
  return oneCall ? crypto.hash('sha256', value, 'hex') : crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The SHA-256 of `value` (UTF-8), as bytes. */
export function sha256Bytes(value: string): Buffer {
  return oneCall ? crypto.hash('sha256', value, 'buffer') : crypto.createHash('sha256').update(value, 'utf8').digest();
}
