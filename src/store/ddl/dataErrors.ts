// Which database failures during a migration are the stored data's fault (and so reported to
// the developer as coded errors) rather than Tessera's (internal errors).

import { sqlState } from '../errors.js';

/** A value that does not convert, does not fit, or breaks NOT NULL / CHECK. */
export function isDataError(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && (state.startsWith('22') || state === '23502' || state === '23514');
}

export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}
