// The coded error catalogue: every error a client can see has a stable `extensions.code`
// and an HTTP status. Anything that is not a TesseraError is internal and gets masked.

export const ERROR_CODES = {
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  SCHEMA_INVALID: 400,
  DESTRUCTIVE_CHANGE: 400,
  UNAUTHENTICATED: 401,
  /**
   * The password was right but the user has two-factor login on: log in again with a code. It
   * answers a mutation field (loginUser: null), so the response's status is GraphQL over HTTP's.
   */
  MFA_REQUIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 400,
  RATE_LIMITED: 429,
  /** The server (or one of its database clusters) cannot serve the request now; retry later. */
  UNAVAILABLE: 503,
  /** A persisted query's hash names no document known here (or not a trusted one): send the document. */
  PERSISTED_QUERY_NOT_FOUND: 400,
  /** A BEFORE function of the app refused the mutation; the message is the function's. */
  REJECTED: 400,
  /** A function of the app could not be called, failed, timed out or answered something unusable. */
  FUNCTION_FAILED: 502,
  NOT_IMPLEMENTED: 501,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A client-safe error: its message and extensions are shown to the caller as they are. */
export class TesseraError extends Error {
  readonly code: ErrorCode;
  readonly extensions: Readonly<Record<string, unknown>>;
  /** HTTP status this error maps to when it decides the response status on its own. */
  readonly status: number;

  constructor(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}, status?: number) {
    super(message);
    this.name = 'TesseraError';
    this.code = code;
    this.extensions = { ...extensions, code };
    this.status = status ?? ERROR_CODES[code];
  }
}

export function isTesseraError(value: unknown): value is TesseraError {
  return value instanceof TesseraError;
}

export const badInput = (message: string, extensions?: Record<string, unknown>) =>
  new TesseraError('BAD_USER_INPUT', message, extensions);
export const notFound = (message: string) => new TesseraError('NOT_FOUND', message);
export const conflict = (message: string, extensions?: Record<string, unknown>) =>
  new TesseraError('CONFLICT', message, extensions);
export const unauthenticated = (message: string) => new TesseraError('UNAUTHENTICATED', message);
export const limitExceeded = (message: string, status?: number) =>
  new TesseraError('LIMIT_EXCEEDED', message, {}, status);

/** One problem found in an app schema, positioned in the SDL the developer wrote (1-based). */
export interface SchemaProblem {
  message: string;
  line: number;
  column: number;
}

export function schemaInvalid(problems: SchemaProblem[]): TesseraError {
  const count = problems.length;
  const first = problems[0];
  const head = first ? `${first.message} (line ${first.line}, column ${first.column})` : 'schema is invalid';
  const message = count > 1 ? `Schema is invalid: ${head}; and ${count - 1} more problem(s)` : `Schema is invalid: ${head}`;
  return new TesseraError('SCHEMA_INVALID', message, { problems });
}
