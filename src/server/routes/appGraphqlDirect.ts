// The data route's common request answered on Node's HTTP server, before Fastify sees it: a
// POST of a JSON body with a Content-Length to `/graphql/<appId>`, without Origin (no CORS to
// answer), upgrade, transfer or content encoding, or Expect. Fastify's request and reply objects,
// hook runners, router and body parser cost more per request than the rest of a by-id read's
// server time beyond the driver (docs/performance.md, "The data route without the framework").
// Every other request to any path goes to Fastify as before.
//
// The answer is the Fastify route's, byte for byte but for the request id and the date: the same
// answerer (appGraphql.ts), the same headers (`x-request-id`, `vary: Origin`, `connection: close`
// while the server drains), the same coded bodies for a body that is not JSON or carries a
// prototype key (Fastify's own errors, through the same error answer), the same log line and
// metrics. test/server/directRoute.test.ts holds the two routes to that, request by request.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import { errorCodes } from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import secureJson from 'secure-json-parse';
import type { TrustProxy } from '../config.js';
import type { Drain } from '../plugins/drain.js';
import { errorAnswer } from '../plugins/errors.js';
import { logAnswered } from '../plugins/requestLog.js';
import { REQUEST_ID_HEADER, generateRequestId } from '../plugins/requestId.js';
import type { AppAnswerer } from './appGraphql.js';

export interface DirectRouteOptions {
  answer: AppAnswerer;
  /** The server's body limit: a longer body goes to Fastify, which refuses it (413). */
  bodyLimit: number;
  /** The server's logger: each request logs through a child with its id, as Fastify's do. */
  log: FastifyBaseLogger;
  trustProxy: TrustProxy;
  drain: Drain;
  /** Counts an answer in the HTTP metrics (method, route pattern, status, seconds). */
  record(method: string, route: string, status: number, seconds: number): void;
}

const PREFIX = '/graphql/';
/** The route pattern the metrics count these answers under: the Fastify route's. */
const ROUTE = '/graphql/:appId';
/** An app id as the path holds it: anything longer or stranger (to decode, or to refuse) is Fastify's. */
const APP_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Fastify's JSON parser's options (its defaults): a body with `__proto__` or `constructor.prototype` is refused. */
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;
const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});
/** Every answer depends on Origin (plugins/cors.ts): these requests carry none. */
const VARY = 'Origin';

/** Whether a Content-Type is JSON as clients send it; other spellings and parameters go to Fastify. */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.toLowerCase();
  return type === 'application/json' || type === 'application/json; charset=utf-8';
}

/** The client's address as Fastify's `request.ip` reads it with the server's `trustProxy`. */
function addressOf(trustProxy: TrustProxy): (request: IncomingMessage) => string | undefined {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const trusted =
    trustProxy === true ? () => true
    : typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy
    : proxyAddr.compile(trustProxy);
  return (request) => {
    const all = proxyAddr.all(request, trusted);
    return all[all.length - 1];
  };
}

/**
 * The direct route: a function that answers a request it takes and returns true, or returns
 * false at once, having read nothing, for Fastify to answer.
 */
export function directAppRoute(options: DirectRouteOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  const address = addressOf(options.trustProxy);
  const { answer, bodyLimit, log: serverLog, drain, record } = options;

  /** Sends an answer, then counts and logs it when it has gone (as Fastify's onResponse hooks do). */
  const send = (request: IncomingMessage, response: ServerResponse, started: number, log: FastifyBaseLogger, requestId: string, address: string | undefined, answer: { status: number; headers: Record<string, string>; body: string }) => {
    const { status, headers, body } = answer;
    const vary = headers.vary;
    headers.vary = vary === undefined ? VARY : `${VARY}, ${vary}`;
    headers[REQUEST_ID_HEADER] = requestId;
    headers['content-length'] = String(Buffer.byteLength(body));
    if (drain.closing) headers.connection = 'close';
    response.once('finish', () => {
      const elapsed = performance.now() - started;
      record('POST', ROUTE, status, elapsed / 1000);
      logAnswered(log, 'POST', request.url as string, status, address, elapsed);
      drain.answered();
    });
    response.writeHead(status, headers);
    response.end(body);
  };

  /** The answer to a whole body: the data route's, or the coded refusal of whatever failed. */
  const answerOf = async (request: IncomingMessage, appId: string, text: string, log: FastifyBaseLogger, requestId: string, address: string | undefined) => {
    try {
      let body: unknown;
      try {
        body = secureJson.parse(text, undefined, PARSE_OPTIONS);
      } catch {
        throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
      }
      const answered = await answer({ appId, method: 'POST', headers: request.headers, query: NO_QUERY, body, address: address as string, requestId, log });
      return { status: answered.status, headers: { ...answered.headers }, body: answered.body };
    } catch (err) {
      const refused = errorAnswer(err, requestId, bodyLimit, log);
      return { status: refused.status, headers: refused.headers, body: JSON.stringify(refused.body) };
    }
  };

  const serve = async (request: IncomingMessage, response: ServerResponse, appId: string, text: string, started: number, requestId: string) => {
    const log = serverLog.child({ requestId });
    const from = address(request);
    const answered = await answerOf(request, appId, text, log, requestId, from);
    try {
      send(request, response, started, log, requestId, from, answered);
    } catch (err) {
      // The connection failed under the answer: nothing more can be said on it.
      log.warn({ err }, 'answer not sent');
      response.destroy();
    }
  };

  return (request, response) => {
    // Requests that arrive once the server is shutting down are Fastify's (503 on a kept-alive connection).
    if (request.method !== 'POST' || drain.closing) return false;
    const url = request.url;
    if (url === undefined || !url.startsWith(PREFIX)) return false;
    const appId = url.slice(PREFIX.length);
    if (!APP_ID.test(appId)) return false;
    const headers = request.headers;
    if (!isJson(headers['content-type'])) return false;
    if (headers.origin !== undefined || headers.upgrade !== undefined || headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined || headers.expect !== undefined) return false;
    const length = headers['content-length'];
    if (length === undefined || !/^[0-9]{1,10}$/.test(length)) return false;
    const bytes = Number(length);
    if (bytes === 0 || bytes > bodyLimit) return false;
    const started = performance.now();
    const requestId = generateRequestId();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A client gone before its body arrived is answered by no one, as by Fastify.
    request.on('error', () => undefined);
    request.on('end', () => {
      const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
      serve(request, response, appId, text, started, requestId).catch((err: unknown) => {
        serverLog.error({ err, requestId }, 'request failed');
        response.destroy();
      });
    });
    return true;
  };
}

/**
 * Puts `direct` in front of the Fastify handler of `server` (the one request listener Fastify
 * adds when it creates the server): a request it does not take goes on to Fastify unchanged.
 */
export function putInFront(server: Server, direct: (request: IncomingMessage, response: ServerResponse) => boolean): void {
  const listeners = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  const fastify = listeners[0];
  if (listeners.length !== 1 || fastify === undefined) throw new Error(`expected Fastify's one request listener, found ${listeners.length}`);
  server.removeListener('request', fastify);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!direct(request, response)) fastify(request, response);
  });
}
