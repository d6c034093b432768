// How an operation's errors reach a client, whatever carries them: coded and masked
// (clientErrors.ts), with the request id on those the operator must see too, and without
// "Did you mean …?" when the app turned suggestions off.

import { GraphQLError } from 'graphql';
import type { GraphQLFormattedError } from 'graphql';
import { ERROR_CODES, isTesseraError } from '../../errors/index.js';
import type { ErrorCode } from '../../errors/index.js';
import { formatGraphQLError } from '../clientErrors.js';
import { withoutSuggestions } from '../limits/index.js';

/** What formatting needs to know of the request. */
export interface FormatOptions {
  requestId: string;
  /** Called with the original of every masked or reported error, to be logged under the request id. */
  onInternalError: (error: unknown) => void;
  /** False removes "Did you mean …?" from error messages. Default true. */
  suggestions?: boolean | undefined;
}

/** The error code of a formatted error, when it carries one of the catalogue's. */
export function codeOf(error: GraphQLFormattedError): ErrorCode | undefined {
  const code = error.extensions?.code;
  return typeof code === 'string' && code in ERROR_CODES ? (code as ErrorCode) : undefined;
}

/**
 * A client-safe error that stands for something the operator should see too (a statement the
 * database cancelled at the app's timeout carries the driver's error as its cause): the
 * client gets the request id with it, and the cause is logged under that id.
 */
function reported(error: GraphQLError, formatted: GraphQLFormattedError, options: FormatOptions): GraphQLFormattedError {
  const original = error.originalError;
  if (!isTesseraError(original) || original.cause === undefined) return formatted;
  options.onInternalError(original);
  return { ...formatted, extensions: { ...formatted.extensions, requestId: options.requestId } };
}

/** `code`: the code of errors graphql-js raised itself (syntax, validation, variables). */
export function formatErrors(errors: readonly GraphQLError[], options: FormatOptions, code?: ErrorCode): GraphQLFormattedError[] {
  return errors.map((e) => {
    const formatted = reported(e, formatGraphQLError(e, options.requestId, options.onInternalError, code), options);
    return options.suggestions === false ? { ...formatted, message: withoutSuggestions(formatted.message) } : formatted;
  });
}

/** Any error as a GraphQLError, a coded TesseraError keeping its code and extensions. */
export function asGraphQLError(err: unknown): GraphQLError {
  if (err instanceof GraphQLError) return err;
  const original = err instanceof Error ? err : new Error(String(err));
  return new GraphQLError(original.message, { originalError: original, ...(isTesseraError(original) ? { extensions: { ...original.extensions } } : {}) });
}
