// Password hashing with Argon2id at (at least) the OWASP minimum: 19 MiB of memory, two
// passes, one lane. The parameters are stored inside each PHC-format hash.

import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

export const PASSWORD_HASH_OPTIONS = {
  algorithm: ARGON2ID,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASH_OPTIONS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    // A malformed stored hash verifies nothing.
    return false;
  }
}

/**
 * Whether a stored hash is not Argon2id with at least today's memory and passes: it is
 * replaced at the next successful login.
 */
export function needsRehash(stored: string): boolean {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored);
  if (!m) return true;
  return Number(m[1]) < PASSWORD_HASH_OPTIONS.memoryCost || Number(m[2]) < PASSWORD_HASH_OPTIONS.timeCost;
}

/**
 * A short fingerprint of a stored hash, carried in tokens: a new password gives a new hash,
 * so the tokens issued before no longer match.
 */
export function passwordFingerprint(stored: string): string {
  return createHash('sha256').update(stored, 'utf8').digest('base64url').slice(0, 16);
}

/** A hash to verify against when the username is unknown, so both failures take as long. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword('decoy password for unknown usernames');
  return decoy;
}

/**
 * Stored passwords starting with this are not hashes, and no password matches them: the
 * password of an account made by an OpenID Connect sign-in, until an admin sets one.
 */
const NO_PASSWORD = '!';

/** A stored password no password matches (random, so each account's token fingerprint is its own). */
export function unusablePassword(): string {
  return `${NO_PASSWORD}no-password:${randomBytes(16).toString('base64url')}`;
}

/** Whether a stored password can be matched at all (false for an unusablePassword). */
export function hasPassword(stored: string): boolean {
  return !stored.startsWith(NO_PASSWORD);
}
