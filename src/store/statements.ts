// The few statements both drivers issue on their own behalf, written once so they cannot drift:
// transaction-scoped advisory locks on a 64-bit hash of a key, and notifications.

import { sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';

/** `hashtextextended` gives a 64-bit key from any string, in PostgreSQL and PGlite alike. */
export function advisoryLockStatement(key: string): SqlFragment {
  return sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}::text, 0))`;
}

/** Inside a transaction the notification is delivered at commit, and dropped on rollback. */
export function notifyStatement(channel: string, payload: string): SqlFragment {
  return sql`SELECT pg_notify(${channel}::text, ${payload}::text)`;
}
