// How failures become what a client sees: GraphQL-shaped `{ errors }` bodies with a stable
// code. TesseraErrors and the framework's own request errors are shown; anything else is masked.

import { GraphQLError } from 'graphql';
import type { GraphQLFormattedError } from 'graphql';
import { TesseraError, isTesseraError } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';

export const INTERNAL_MESSAGE = 'Internal server error';

export interface ErrorBody {
  errors: GraphQLFormattedError[];
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  /** True when the error was masked: the caller must log the original under the request id. */
  internal: boolean;
}

export function internalError(requestId: string): GraphQLFormattedError {
  return { message: INTERNAL_MESSAGE, extensions: { code: 'INTERNAL', requestId } };
}

export function tesseraErrorBody(error: TesseraError): ErrorBody {
  return { errors: [{ message: error.message, extensions: { ...error.extensions } }] };
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return tesseraErrorBody(new TesseraError(code, message));
}

/** An error raised by Fastify itself while reading a request (bad JSON, too large, media type). */
function frameworkRequestError(err: unknown): { statusCode: number; message: string } | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, statusCode, message } = err as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (typeof code !== 'string' || !code.startsWith('FST_')) return undefined;
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return undefined;
  return { statusCode, message: typeof message === 'string' ? message : 'Bad request' };
}

/** Maps any thrown value to a response: client-safe errors as they are, the rest as INTERNAL. */
export function errorResponse(err: unknown, requestId: string, bodyLimit: number): ErrorResponse {
  if (isTesseraError(err)) return { status: err.status, body: tesseraErrorBody(err), internal: false };
  const request = frameworkRequestError(err);
  if (request?.statusCode === 413) {
    const message = `Request body is larger than the limit of ${bodyLimit} bytes`;
    return { status: 413, body: errorBody('LIMIT_EXCEEDED', message), internal: false };
  }
  if (request) {
    return { status: request.statusCode, body: errorBody('BAD_USER_INPUT', request.message), internal: false };
  }
  return { status: 500, body: { errors: [internalError(requestId)] }, internal: true };
}

/**
 * Formats errors of a GraphQL result. Errors graphql-js raised itself (syntax, validation,
 * variable coercion) are shown: they carry no original error, or a GraphQLError (a scalar
 * refusing a value); a resolver's TesseraError keeps its code and extensions; any other
 * failure is masked and handed to `onInternal`.
 */
export function formatGraphQLError(
  error: GraphQLError,
  requestId: string,
  onInternal: (original: unknown) => void,
  requestCode: ErrorCode = 'GRAPHQL_VALIDATION_FAILED',
): GraphQLFormattedError {
  const original = error.originalError;
  const where = {
    ...(error.locations ? { locations: error.locations } : {}),
    ...(error.path ? { path: error.path } : {}),
  };
  if (original === undefined || original === null || (original instanceof GraphQLError && !isTesseraError(original))) {
    return { message: error.message, ...where, extensions: { ...error.extensions, code: requestCode } };
  }
  if (isTesseraError(original)) {
    return { message: original.message, ...where, extensions: { ...original.extensions } };
  }
  onInternal(original);
  return { message: INTERNAL_MESSAGE, ...where, extensions: { code: 'INTERNAL', requestId } };
}
