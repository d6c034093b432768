// Database failures as internal errors: a plain Error whose `cause` is the driver's error, and
// readers for the SQLSTATE and constraint name the few callers that map failures need.

import { isTesseraError } from '../errors/index.js';

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  severity?: unknown;
}

/** The driver's own error (pg's or PGlite's `DatabaseError`) in `err` or its cause chain. */
function driverError(err: unknown): DriverError | undefined {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    // Both drivers' DatabaseError carry the server's severity; Node system errors do not.
    if ('severity' in e && 'code' in e) return e as DriverError;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The PostgreSQL SQLSTATE of a failed statement (`23505`, `22P02`…), if it came from the server. */
export function sqlState(err: unknown): string | undefined {
  const code = driverError(err)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The constraint or index a failed statement violated, when the server names one. */
export function violatedConstraint(err: unknown): string | undefined {
  const name = driverError(err)?.constraint;
  return typeof name === 'string' && name ? name : undefined;
}

/** Wraps a driver failure as an internal error; coded Tessera errors pass through untouched. */
export function databaseError(err: unknown): Error {
  if (isTesseraError(err)) return err;
  const state = sqlState(err);
  const message = err instanceof Error ? err.message : String(err);
  return new Error(state ? `Database error ${state}: ${message}` : `Database error: ${message}`, { cause: err });
}
