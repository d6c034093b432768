// Secrets that can travel in headers (Authorization, Cookie) never reach a log line: pino
// replaces them where a line has them at fixed paths (`headers`, `req.headers`), and a log
// formatter where headers sit one level down under any other key (`{ delivery: { headers } }`).
// A child logger's bindings are the server's own (a request id, a component's name), never
// headers.
// Pino can take that last case as a path too (`*.headers.authorization`), but a path that
// starts with a wildcard sends every value of every line through its redactor: 3.4 µs of a
// request line's 4.4 (docs/performance.md), where the formatter only looks for a `headers` key.

/** The headers whose values are replaced. */
const SECRET_HEADERS = ['authorization', 'cookie'] as const;

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Paths pino redacts itself: the keys it sends through its redactor are only `headers` and `req`. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'];

/** Keys whose secrets pino's own paths cover already. */
const COVERED = new Set(['headers', 'req']);

function holdsSecretHeaders(value: unknown): value is { headers: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null || !('headers' in value)) return false;
  const headers = value.headers;
  return typeof headers === 'object' && headers !== null && SECRET_HEADERS.some((name) => name in headers);
}

/**
 * A log line's fields with the secret headers of any field's `headers`
 * replaced; the same object when there are none (the common case costs a look at each field).
 * The caller's objects are not changed: the fields on the way to a secret are copied.
 */
export function redactNestedHeaders<T extends Record<string, unknown>>(fields: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (COVERED.has(key) || !holdsSecretHeaders(value)) continue;
    const headers: Record<string, unknown> = { ...value.headers };
    for (const name of SECRET_HEADERS) if (name in headers) headers[name] = REDACTED;
    copy ??= { ...fields };
    copy[key] = { ...value, headers };
  }
  return (copy ?? fields) as T;
}
