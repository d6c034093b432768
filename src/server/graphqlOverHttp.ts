// GraphQL over HTTP without a framework: an HTTP request in, `{ status, headers, body }` out.
// Only HTTP lives here — methods, media type negotiation, GET vs POST rules, statuses,
// revalidation of GET answers; the operation itself is the runner's (server/operation/).

import { createHash } from 'node:crypto';
import type { GraphQLFormattedError } from 'graphql';
import { ERROR_CODES } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';
import { errorBody } from './clientErrors.js';
import { negotiateMediaType } from './mediaType.js';
import type { MediaType } from './mediaType.js';
import { codeOf } from './operation/format.js';
import type { OperationNote, OperationRunner } from './operation/outcome.js';
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

/** A response, and what the request was for metrics and traces. */
export interface GraphQLHttpAnswer {
  response: GraphQLHttpResponse;
  note: OperationNote;
}

/** Codes that decide the HTTP status on their own when a response carries no data. */
const STATUS_DECIDING: readonly ErrorCode[] = ['INTERNAL', 'UNAUTHENTICATED', 'RATE_LIMITED'];

/** The content type of each media type, made once. */
const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  'application/json': 'application/json; charset=utf-8',
  'application/graphql-response+json': 'application/graphql-response+json; charset=utf-8',
};

function respond(status: number, mediaType: MediaType, body: string, extra?: Record<string, string>): GraphQLHttpResponse {
  const headers: Record<string, string> = { 'content-type': CONTENT_TYPES[mediaType] };
  if (extra) Object.assign(headers, extra);
  return { status, headers, body };
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

/**
 * A database out of reach (an app's cluster down, or the app moving to another) is an HTTP
 * matter too: 503 with Retry-After, whatever the media type.
 */
function unreachable(errors: readonly GraphQLFormattedError[]): Record<string, string> | undefined {
  const error = errors.find((e) => codeOf(e) === 'UNAVAILABLE' && e.extensions?.cluster !== undefined);
  return error && { 'retry-after': String(error.extensions?.retryAfter ?? 1) };
}

export async function handleGraphQLOverHttp(request: GraphQLHttpRequest, runner: OperationRunner): Promise<GraphQLHttpAnswer> {
  const refuse = (status: number, mediaType: MediaType, code: ErrorCode, message: string, extra?: Record<string, string>): GraphQLHttpAnswer => ({
    response: respond(status, mediaType, JSON.stringify(errorBody(code, message)), extra),
    note: { type: 'unknown', outcome: code },
  });
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'POST') {
    return refuse(405, 'application/json', 'BAD_USER_INPUT', 'Use GET or POST', { allow: 'GET, POST' });
  }
  const mediaType = negotiateMediaType(request.headers.accept);
  if (mediaType === undefined) {
    return refuse(406, 'application/json', 'BAD_USER_INPUT', 'Accept must allow application/graphql-response+json or application/json');
  }
  const params = readRequestParams(method, request.query, request.body);
  if ('error' in params) return refuse(400, mediaType, 'BAD_USER_INPUT', params.error);

  const { outcome, note } = await runner.run(params, {
    early: (operation) => {
      if (method !== 'GET' || !operation || operation.operation === 'query') return undefined;
      return refuse(405, mediaType, 'BAD_USER_INPUT', `A ${operation.operation} cannot be sent with GET; use POST`, { allow: 'POST' });
    },
  });
  switch (outcome.kind) {
    case 'early':
      return outcome.value;
    case 'refused': {
      const body = JSON.stringify({ errors: outcome.errors });
      const retry = unreachable(outcome.errors);
      if (retry) return { response: respond(ERROR_CODES.UNAVAILABLE, mediaType, body, retry), note };
      return { response: respond(resultStatus(mediaType, false, outcome.errors), mediaType, body), note };
    }
    case 'subscription':
      // Runners give subscriptions back only to transports that asked for streams.
      throw new Error('A subscription reached GraphQL over HTTP');
    case 'result': {
      const { errors, data } = outcome;
      if (errors.length === 0) {
        const response = respond(200, mediaType, `{"data":${data}}`);
        return { response: method === 'GET' ? revalidated(request, response) : response, note };
      }
      const body = `{"data":${data},"errors":${JSON.stringify(errors)}}`;
      // Throttling is an HTTP matter even when other fields answered: 429 with Retry-After.
      const retryAfter = Math.max(0, ...errors.filter((e) => codeOf(e) === 'RATE_LIMITED').map((e) => Number(e.extensions?.retryAfter ?? 1)));
      if (retryAfter > 0) return { response: respond(ERROR_CODES.RATE_LIMITED, mediaType, body, { 'retry-after': String(retryAfter) }), note };
      const retry = unreachable(errors);
      if (retry) return { response: respond(ERROR_CODES.UNAVAILABLE, mediaType, body, retry), note };
      const response = respond(resultStatus(mediaType, outcome.hasData, errors), mediaType, body);
      return { response: method === 'GET' ? revalidated(request, response) : response, note };
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}
