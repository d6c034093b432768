// SHA-256 of a string, in one call where Node.js has it (`crypto.hash`, 20.12 on): no hash
// object made and freed again. The credential checks hash on every request that carries a
// token, where the object cost more than the hashing.

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
