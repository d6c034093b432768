// GraphQL over HTTP without a framework: request parameters in, `{ status, headers, body }`
// out. Media type negotiation, GET vs POST rules, parse/validate/limits/execute and error masking.

import { createHash } from 'node:crypto';
import { GraphQLError, Lexer, Source, TokenKind, execute, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLFormattedError, GraphQLSchema, OperationDefinitionNode, ValidationRule } from 'graphql';
import { ERROR_CODES, badInput, isTesseraError } from '../errors/index.js';
import type { ErrorCode, TesseraError } from '../errors/index.js';
import { errorBody, formatGraphQLError } from './clientErrors.js';
import { limitError, withoutSuggestions } from './limits/index.js';
import { negotiateMediaType } from './mediaType.js';
import type { MediaType } from './mediaType.js';
import { readRequestParams } from './requestParams.js';

export interface GraphQLHttpRequest {
  method: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Query-string parameters, already decoded. */
  query: Readonly<Record<string, unknown>>;
  /** The parsed JSON body of a POST (undefined when there is none). */
  body: unknown;
}

export interface GraphQLHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface GraphQLHttpOptions {
  schema: GraphQLSchema;
  contextValue: unknown;
  requestId: string;
  /** Called with the original of every masked error, to be logged under the request id. */
  onInternalError: (error: unknown) => void;
  /** Upper bound on the tokens of a document, checked while parsing (LIMIT_EXCEEDED). */
  maxTokens?: number;
  /**
   * Cheap rules bounding a document's shape (depth, aliases…), run before `validationRules` so
   * that a hostile document is refused before the costlier rules walk it.
   */
  limitRules?: readonly ValidationRule[];
  validationRules?: readonly ValidationRule[];
  /**
   * Checks run per request after validation and before execution: limits that depend on the
   * request's variables, which cannot be cached with the validated document. Any error returned
   * refuses the request.
   */
  checkRequest?: (request: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operation: OperationDefinitionNode;
    variables: Readonly<Record<string, unknown>> | undefined;
  }) => readonly GraphQLError[];
  /** False removes "Did you mean …?" from error messages. Default true. */
  suggestions?: boolean;
  /** Validated documents by query text (only valid ones are kept), to skip parse and validate. */
  documents?: DocumentCache;
  /**
   * The document a request runs, from its text and `extensions.persistedQuery` (persisted and
   * trusted documents); without it, a request must carry its document.
   */
  resolveDocument?: (source: { query: string | undefined; persistedHash: string | undefined }) => { query: string } | { error: TesseraError };
  /** Told of every answered request: its operation type, outcome and duration in seconds. */
  onOperation?: (note: OperationNote, seconds: number) => void;
  /**
   * Runs the operation instead of graphql-js: `data` comes back as JSON text (undefined when
   * the operation could not start, e.g. bad variables).
   */
  execute?: (run: { document: DocumentNode; query: string; operationName?: string | undefined; variables?: Record<string, unknown> | undefined }) => Promise<{ data?: string; errors: readonly GraphQLError[] }>;
}

/** A bounded map of validated documents. */
export class DocumentCache {
  readonly #documents = new Map<string, DocumentNode>();
  constructor(readonly limit = 500) {}
  get(query: string): DocumentNode | undefined {
    return this.#documents.get(query);
  }
  set(query: string, document: DocumentNode): void {
    if (this.#documents.size >= this.limit) this.#documents.delete(this.#documents.keys().next().value as string);
    this.#documents.set(query, document);
  }
}

/** Codes that decide the HTTP status on their own when a response carries no data. */
const STATUS_DECIDING: readonly ErrorCode[] = ['INTERNAL', 'UNAUTHENTICATED', 'RATE_LIMITED'];

function respond(status: number, mediaType: MediaType, payload: unknown, extra: Record<string, string> = {}): GraphQLHttpResponse {
  return {
    status,
    headers: { 'content-type': `${mediaType}; charset=utf-8`, ...extra },
    body: JSON.stringify(payload),
  };
}

function codeOf(error: GraphQLFormattedError): ErrorCode | undefined {
  const code = error.extensions?.code;
  return typeof code === 'string' && code in ERROR_CODES ? (code as ErrorCode) : undefined;
}

/**
 * With `application/json` a well-formed request is answered 200 whatever its GraphQL errors
 * (GraphQL over HTTP, for legacy clients); with `application/graphql-response+json` a response
 * without data takes the status of its first error. Internal, authentication and throttling
 * errors decide the status for both media types, so failures are visible to HTTP tooling.
 */
export function resultStatus(mediaType: MediaType, hasData: boolean, errors: readonly GraphQLFormattedError[]): number {
  if (hasData || errors.length === 0) return 200;
  const codes = errors.map(codeOf);
  const deciding = codes.find((code) => code !== undefined && STATUS_DECIDING.includes(code));
  if (deciding) return ERROR_CODES[deciding];
  if (mediaType === 'application/json') return 200;
  const first = codes[0];
  return first ? ERROR_CODES[first] : 400;
}

/**
 * A client-safe error that stands for something the operator should see too (a statement the
 * database cancelled at the app's timeout carries the driver's error as its cause): the
 * client gets the request id with it, and the cause is logged under that id.
 */
function reported(error: GraphQLError, formatted: GraphQLFormattedError, options: Pick<GraphQLHttpOptions, 'requestId' | 'onInternalError'>): GraphQLFormattedError {
  const original = error.originalError;
  if (!isTesseraError(original) || original.cause === undefined) return formatted;
  options.onInternalError(original);
  return { ...formatted, extensions: { ...formatted.extensions, requestId: options.requestId } };
}

export function formatErrors(errors: readonly GraphQLError[], options: Pick<GraphQLHttpOptions, 'requestId' | 'onInternalError' | 'suggestions'>, code?: ErrorCode): GraphQLFormattedError[] {
  return errors.map((e) => {
    const formatted = reported(e, formatGraphQLError(e, options.requestId, options.onInternalError, code), options);
    return options.suggestions === false ? { ...formatted, message: withoutSuggestions(formatted.message) } : formatted;
  });
}

/**
 * A query answered over GET, cacheable by revalidation: its ETag (the SHA-256 of the answer),
 * `Cache-Control: no-cache` (the answer depends on the data and on who asks: a cache must check
 * with the server each time) and `Vary: Authorization`; a request whose `If-None-Match` names
 * the same answer gets 304 and no body.
 */
function revalidated(request: GraphQLHttpRequest, response: GraphQLHttpResponse): GraphQLHttpResponse {
  if (response.status !== 200) return response;
  const etag = `"${createHash('sha256').update(response.body, 'utf8').digest('base64url')}"`;
  const headers = { ...response.headers, etag, 'cache-control': 'no-cache', vary: 'Authorization' };
  const wanted = request.headers['if-none-match'];
  const tags = (Array.isArray(wanted) ? wanted.join(',') : (wanted ?? '')).split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes(etag) || tags.includes('*')) return { status: 304, headers, body: '' };
  return { ...response, headers };
}

/** Any error as a GraphQLError, a coded TesseraError keeping its code and extensions. */
export function asGraphQLError(err: unknown): GraphQLError {
  if (err instanceof GraphQLError) return err;
  const original = err instanceof Error ? err : new Error(String(err));
  return new GraphQLError(original.message, { originalError: original, ...(isTesseraError(original) ? { extensions: { ...original.extensions } } : {}) });
}

function requestErrorResponse(
  mediaType: MediaType,
  errors: readonly GraphQLError[],
  options: GraphQLHttpOptions,
  code: ErrorCode,
): GraphQLHttpResponse {
  const formatted = formatErrors(errors, options, code);
  return respond(resultStatus(mediaType, false, formatted), mediaType, { errors: formatted });
}

/** Whether a document has more than `max` tokens, counted the way the parser counts them. */
function exceedsTokens(query: string, max: number): boolean {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) if (++count > max) return true;
  } catch {
    // A lexical error before the limit: a syntax error, not a document too long.
  }
  return false;
}

/** A document nested so deeply that parsing or validating it exhausted the stack. */
function tooDeeplyNested(): GraphQLError {
  return limitError('nesting', undefined, 'The document is nested too deeply to be read');
}

/** Parses a document, telling a syntax error from a document over a size limit. */
function parseDocument(query: string, maxTokens: number | undefined): DocumentNode | GraphQLError {
  try {
    return parse(query, maxTokens === undefined ? {} : { maxTokens });
  } catch (err) {
    if (err instanceof GraphQLError) {
      // Told apart by counting rather than by the parser's wording of its message.
      if (maxTokens === undefined || !exceedsTokens(query, maxTokens)) return err;
      return limitError('maxTokens', maxTokens, `Document token limit of ${maxTokens} exceeded (setting maxTokens)`);
    }
    // The parser descends recursively; thousands of nested brackets fit in a token budget.
    if (err instanceof RangeError) return tooDeeplyNested();
    throw err;
  }
}

/** Validation errors of a document: the limit rules first, the others only once those pass. */
function validateDocument(document: DocumentNode, options: Pick<GraphQLHttpOptions, 'schema' | 'limitRules' | 'validationRules'>): readonly GraphQLError[] {
  try {
    if (options.limitRules && options.limitRules.length > 0) {
      const limited = validate(options.schema, document, options.limitRules);
      if (limited.length > 0) return limited;
    }
    return validate(options.schema, document, options.validationRules ?? specifiedRules);
  } catch (err) {
    if (err instanceof RangeError) return [tooDeeplyNested()];
    throw err;
  }
}

/** A request's operation, ready to run, or why it cannot run (with the code its errors take). */
export type PreparedOperation<R> =
  | { document: DocumentNode; operation: OperationDefinitionNode | null }
  | { errors: readonly GraphQLError[]; code: ErrorCode }
  | { response: R };

/**
 * Parse (or the document cache), validation with the limit rules first, and the per-request
 * checks: what every transport does before running an operation. `early` may answer for the
 * transport once the operation is known (HTTP refuses mutations sent with GET).
 */
export function prepareOperation<R>(
  params: { query: string; operationName?: string | undefined; variables?: Readonly<Record<string, unknown>> | undefined },
  options: Pick<GraphQLHttpOptions, 'schema' | 'documents' | 'maxTokens' | 'limitRules' | 'validationRules' | 'checkRequest'>,
  early?: (operation: OperationDefinitionNode | null) => R | undefined,
): PreparedOperation<R> {
  const cached = options.documents?.get(params.query);
  const document = cached ?? parseDocument(params.query, options.maxTokens);
  if (document instanceof GraphQLError) return { errors: [document], code: 'GRAPHQL_VALIDATION_FAILED' };
  const operation = getOperationAST(document, params.operationName) ?? null;
  const answered = early?.(operation);
  if (answered !== undefined) return { response: answered };
  if (!cached) {
    const validationErrors = validateDocument(document, options);
    if (validationErrors.length > 0) return { errors: validationErrors, code: 'GRAPHQL_VALIDATION_FAILED' };
    options.documents?.set(params.query, document);
  }
  if (operation && options.checkRequest) {
    const refused = options.checkRequest({ schema: options.schema, document, operation, variables: params.variables });
    if (refused.length > 0) return { errors: refused, code: 'LIMIT_EXCEEDED' };
  }
  return { document, operation };
}

/** What an answered request was, for metrics: its operation type and its outcome. */
export interface OperationNote {
  /** `query`, `mutation`, `subscription`, or `unknown` before the document is read. */
  type: string;
  /** `ok`, or the code of the answer's first error. */
  outcome: string;
  /** The operation's name, when it has one. */
  name?: string;
}

export async function handleGraphQLOverHttp(request: GraphQLHttpRequest, options: GraphQLHttpOptions): Promise<GraphQLHttpResponse> {
  const started = performance.now();
  const note: OperationNote = { type: 'unknown', outcome: 'ok' };
  const response = await answer(request, options, note);
  options.onOperation?.(note, (performance.now() - started) / 1000);
  return response;
}

async function answer(request: GraphQLHttpRequest, options: GraphQLHttpOptions, note: OperationNote): Promise<GraphQLHttpResponse> {
  const refuse = (status: number, mediaType: MediaType, code: ErrorCode, message: string, extra?: Record<string, string>) => {
    note.outcome = code;
    return respond(status, mediaType, errorBody(code, message), extra);
  };
  const failed = (mediaType: MediaType, errors: readonly GraphQLError[], code: ErrorCode) => {
    const response = requestErrorResponse(mediaType, errors, options, code);
    note.outcome = String(errors[0]?.extensions?.code ?? code);
    return response;
  };
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'POST') {
    return refuse(405, 'application/json', 'BAD_USER_INPUT', 'Use GET or POST', { allow: 'GET, POST' });
  }
  const mediaType = negotiateMediaType(request.headers.accept);
  if (mediaType === undefined) {
    const message = 'Accept must allow application/graphql-response+json or application/json';
    return refuse(406, 'application/json', 'BAD_USER_INPUT', message);
  }

  const read = readRequestParams(method, request.query, request.body);
  if ('error' in read) return refuse(400, mediaType, 'BAD_USER_INPUT', read.error);
  const resolved = options.resolveDocument ? options.resolveDocument(read) : read.query === undefined ? { error: badInput('Persisted queries are not served here: send "query"') } : { query: read.query };
  if ('error' in resolved) return failed(mediaType, [asGraphQLError(resolved.error)], resolved.error.code);
  const params = { ...read, query: resolved.query };

  const prepared = prepareOperation(params, options, (operation) => {
    if (method === 'GET' && operation && operation.operation !== 'query') {
      const message = `A ${operation.operation} cannot be sent with GET; use POST`;
      return refuse(405, mediaType, 'BAD_USER_INPUT', message, { allow: 'POST' });
    }
    return undefined;
  });
  if ('response' in prepared) return prepared.response;
  if ('errors' in prepared) return failed(mediaType, prepared.errors, prepared.code);
  const { document } = prepared;
  note.type = prepared.operation?.operation ?? 'unknown';
  if (prepared.operation?.name) note.name = prepared.operation.name.value;

  if (options.execute) {
    const run = await options.execute({ document, query: params.query, operationName: params.operationName, variables: params.variables });
    if (run.data === undefined) return failed(mediaType, run.errors, 'BAD_USER_INPUT');
    const errors = formatErrors(run.errors, options);
    if (errors[0]) note.outcome = codeOf(errors[0]) ?? 'INTERNAL';
    const body = errors.length > 0 ? `{"data":${run.data},"errors":${JSON.stringify(errors)}}` : `{"data":${run.data}}`;
    const headers: Record<string, string> = { 'content-type': `${mediaType}; charset=utf-8` };
    // Throttling is an HTTP matter even when other fields answered: 429 with Retry-After.
    const retryAfter = Math.max(0, ...errors.filter((e) => codeOf(e) === 'RATE_LIMITED').map((e) => Number(e.extensions?.retryAfter ?? 1)));
    if (retryAfter > 0) return { status: ERROR_CODES.RATE_LIMITED, headers: { ...headers, 'retry-after': String(retryAfter) }, body };
    const response = { status: resultStatus(mediaType, true, errors), headers, body };
    return method === 'GET' ? revalidated(request, response) : response;
  }

  const result: ExecutionResult = await execute({
    schema: options.schema,
    document,
    contextValue: options.contextValue,
    variableValues: params.variables,
    operationName: params.operationName,
  });
  // No `data` at all means the operation never ran: bad variables or an unknown operation name.
  if (!('data' in result)) return failed(mediaType, result.errors ?? [], 'BAD_USER_INPUT');

  const errors = formatErrors(result.errors ?? [], options);
  if (errors[0]) note.outcome = codeOf(errors[0]) ?? 'INTERNAL';
  const hasData = result.data !== null && result.data !== undefined;
  const payload = errors.length > 0 ? { data: result.data, errors } : { data: result.data };
  return respond(resultStatus(mediaType, hasData, errors), mediaType, payload);
}
