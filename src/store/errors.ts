// Database failures as internal errors: a plain Error whose `cause` is the driver's error, and
// readers for the SQLSTATE and constraint name the few callers that map failures need. A
// statement cancelled by a timeout the caller asked for is the one failure answered as a limit.

import { TesseraError, isTesseraError } from '../errors/index.js';

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

/** SQLSTATE `query_canceled`: what PostgreSQL answers when `statement_timeout` cancels a statement. */
const QUERY_CANCELED = '57014';

/**
 * `databaseError`, except that a statement cancelled under a timeout the caller set
 * (`timeoutMs`, an app's `statementTimeoutMs`) becomes `LIMIT_EXCEEDED`: the operation asked
 * for more than the app allows, like a query over its cost. The driver's error stays as the
 * cause, for the log; the client sees only the limit. Without a caller's timeout a
 * cancellation is internal, as any other database failure.
 */
export function statementError(err: unknown, timeoutMs: number | undefined): Error {
  if (timeoutMs === undefined || sqlState(err) !== QUERY_CANCELED) return databaseError(err);
  const message = `The operation ran longer than the app's statement timeout of ${timeoutMs} ms (app setting statementTimeoutMs)`;
  const error = new TesseraError('LIMIT_EXCEEDED', message, { limit: 'statementTimeoutMs', maximum: timeoutMs });
  // Not in `extensions`, so the client does not see them; the log shows both.
  return Object.assign(error, { cause: err, sqlState: QUERY_CANCELED });
}

/**
 * Whether a failed statement left its connection unusable: anything but an error the server
 * reported for the statement itself (a network failure, a connection the server ended).
 */
export function connectionBroken(err: unknown): boolean {
  const driver = driverError(err);
  return driver === undefined || driver.severity === 'FATAL' || driver.severity === 'PANIC';
}

/**
 * A connection that could not be made (refused, timed out, the server starting up or gone):
 * `UNAVAILABLE`, retryable in a second, naming the cluster when the store is one. The driver's
 * error stays as the cause, for the log. A database error the server reported (a wrong
 * password, an unknown database) is a configuration fault: internal.
 */
export function unreachable(err: unknown, cluster: string | undefined): Error {
  const state = sqlState(err);
  if (state !== undefined && !state.startsWith('08') && state !== '57P03') return databaseError(err);
  return connectionLost(err, cluster);
}

/**
 * SQLSTATEs with which the server ends a session (FATAL): an administrator's command (a fast
 * stop, pg_terminate_backend), a crash of another backend, the server shutting down.
 */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P03']);

/** Whether a statement failed because the server ended its session (see SESSION_ENDED). */
export function sessionEnded(err: unknown): boolean {
  const driver = driverError(err);
  return driver?.severity === 'FATAL' && typeof driver.code === 'string' && SESSION_ENDED.has(driver.code);
}

/**
 * A statement or transaction whose connection was lost before it was answered (the server
 * stopped, restarted or ended the session, or the network failed): `UNAVAILABLE`, as a
 * connection that cannot be made. A connection the server closed while it was idle in the pool
 * is known to be closed only once the driver reads so, which may be after a statement took it.
 */
export function connectionLost(err: unknown, cluster: string | undefined): Error {
  const where = cluster ? `The database of cluster "${cluster}"` : 'The database';
  const error = new TesseraError('UNAVAILABLE', `${where} cannot be reached; try again shortly`, { retryAfter: 1, ...(cluster ? { cluster } : {}) });
  return Object.assign(error, { cause: err });
}
