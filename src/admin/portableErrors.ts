// Database failures of an import or a fork said in the archive's terms: a value the column
// refuses, two rows sharing a unique value, a reference to a row that is not there. Coded
// (BAD_USER_INPUT, CONFLICT), never the driver's text; anything else stays internal.

import { TesseraError, conflict, isTesseraError } from '../errors/index.js';
import { sqlState, violatedConstraint } from '../store/index.js';

/** Where the failing statement's rows came from, e.g. `table Post, lines 12–2011`. */
export function dataFailure(err: unknown, what: string, where?: string, extensions: Record<string, unknown> = {}): unknown {
  if (isTesseraError(err)) return err;
  const state = sqlState(err);
  const constraint = violatedConstraint(err);
  const at = where ? ` (${where})` : '';
  const named = constraint ? ` (constraint ${constraint})` : '';
  if (state === '23505') return conflict(`${what}: two rows share a value that must be unique${named}${at}`, extensions);
  if (state === '23503') return new TesseraError('BAD_USER_INPUT', `${what}: a reference names a row that is not there${named}${at}`, extensions);
  if (state === '23502') return new TesseraError('BAD_USER_INPUT', `${what}: a required value is missing${at}`, extensions);
  if (state === '23514') return new TesseraError('BAD_USER_INPUT', `${what}: a value is not one the column allows${named}${at}`, extensions);
  if (state?.startsWith('22')) return new TesseraError('BAD_USER_INPUT', `${what}: a value does not fit its column's type${at}`, extensions);
  return err;
}
