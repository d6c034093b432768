// The few statements both drivers issue on their own behalf, written once so they cannot drift:
// transaction-scoped advisory locks on a 64-bit hash of a key, notifications, statement timeouts.

import { literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';

/** `hashtextextended` gives a 64-bit key from any string, in PostgreSQL and PGlite alike. */
export function advisoryLockStatement(key: string): SqlFragment {
  return sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}::text, 0))`;
}

/** Inside a transaction the notification is delivered at commit, and dropped on rollback. */
export function notifyStatement(channel: string, payload: string): SqlFragment {
  return sql`SELECT pg_notify(${channel}::text, ${payload}::text)`;
}

/** A timeout in whole milliseconds, 0 meaning none, as PostgreSQL's `statement_timeout` takes it. */
function timeoutValue(ms: number): SqlFragment {
  if (!Number.isInteger(ms) || ms < 0) throw new TypeError(`a statement timeout is a whole number of milliseconds ≥ 0, got ${ms}`);
  // SET takes no parameters; the number is checked above, so a literal is safe.
  return literal(ms);
}

/** Sets the session's statement timeout (until set again). */
export function setStatementTimeout(ms: number): SqlFragment {
  return sql`SET statement_timeout = ${timeoutValue(ms)}`;
}

/**
 * Opens a transaction whose statements run under `ms`, in one message (no parameters, so the
 * simple protocol carries both statements): the timeout costs no extra round trip, and it ends
 * with the transaction.
 */
export function beginWithStatementTimeout(ms: number): SqlFragment {
  return sql`BEGIN; SET LOCAL statement_timeout = ${timeoutValue(ms)}`;
}

/** Lifts the statement timeout for the rest of the current transaction (DDL, lock waits). */
export const UNBOUNDED_TRANSACTION: SqlFragment = sql`SET LOCAL statement_timeout = 0`;
