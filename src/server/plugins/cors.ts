// Cross-origin requests from browser apps: an app's API answers the origins of its setting
// `corsOrigins`, or, when the app has none, the server's list (TESSERA_CORS_ORIGINS); the
// management API answers the server's list. Preflights are answered with the methods and
// headers GraphQL clients send and cached by the browser. Credentials are bearer tokens in
// `Authorization`, never cookies, so no request is sent with cookies. The same lists decide
// which WebSocket upgrades are accepted (allowedOrigin).
//
// One `onRequest` hook of our own rather than @fastify/cors: the plugin's per-request options
// (needed here, since an app's origins are its own) are normalised and copied for every
// request, an Origin or not; this hook answers a request without Origin — most traffic:
// servers, mobile apps, same-origin pages — with `Vary: Origin` alone, and cost 10 µs less
// per request (docs/performance.md).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppRegistry } from '../appRegistry.js';

/** Headers a browser app may send: the ones GraphQL clients (Apollo, urql, Relay) set. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id', 'Apollo-Require-Preflight', 'Apollographql-Client-Name', 'Apollographql-Client-Version'];
/** Headers a browser app may read from an answer. */
const EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'ETag'];
/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

const APP_PATH = /^\/graphql\/([^/?#]+)/;

export interface CorsOptions {
  /** The server's allowed origins (`*` allowed); empty: same-origin only. */
  origins: readonly string[];
  registry: AppRegistry;
}

/**
 * The allowed origins for a request's path, and whether any are configured there: an app's own
 * (its setting, when not null) or the server's; undefined for paths outside the two APIs.
 */
async function allowedFor(options: CorsOptions, url: string): Promise<{ origins: readonly string[]; configured: boolean } | undefined> {
  const server = { origins: options.origins, configured: options.origins.length > 0 };
  const path = url.split('?', 1)[0] ?? '';
  if (path === '/admin/graphql') return server;
  const appId = APP_PATH.exec(path)?.[1];
  if (appId === undefined) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(appId);
  } catch {
    return server;
  }
  const own = (await options.registry.get(id))?.context.app.settings.corsOrigins;
  return own === null || own === undefined ? server : { origins: own, configured: true };
}

/**
 * Whether a WebSocket upgrade may go on: a browser page of another origin only when origins are
 * configured for the path and its origin is among them. A client that sends no Origin is not a
 * browser page, and a page of the server's own origin (the console) is not cross-origin.
 */
export async function allowedOrigin(options: CorsOptions, request: FastifyRequest): Promise<boolean> {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    if (new URL(origin).host === request.headers.host) return true;
  } catch {
    return false;
  }
  const allowed = await allowedFor(options, request.url);
  if (!allowed?.configured) return true;
  return allowed.origins.includes('*') || allowed.origins.includes(origin);
}

/** The methods a preflight allows: those GraphQL over HTTP uses. */
const ALLOWED_METHODS = 'GET, POST, OPTIONS';

/**
 * Adds `name` to what the answer varies on (the Vary header), keeping what is there; nothing
 * to add to `*`.
 */
export function varyOn(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('vary', name);
    return;
  }
  const text = Array.isArray(current) ? current.join(', ') : String(current);
  const names = text.split(',').map((n) => n.trim().toLowerCase());
  if (names.includes('*') || names.includes(name.toLowerCase())) return;
  reply.header('vary', `${text}, ${name}`);
}

/**
 * The CORS headers of a request with an Origin, from the origins allowed on its path. True when
 * it was a preflight, answered here with 204; false lets the request go on. A path that allows
 * no origin gives no CORS header, and an OPTIONS there is not found, as on any other path.
 */
async function answerCrossOrigin(options: CorsOptions, request: FastifyRequest, reply: FastifyReply, origin: string): Promise<boolean> {
  const allowed = (await allowedFor(options, request.url))?.origins ?? [];
  if (allowed.length === 0) return false;
  // An origin not allowed gets no Access-Control-Allow-Origin: the browser withholds the answer.
  if (allowed.includes('*')) reply.header('access-control-allow-origin', '*');
  else if (allowed.includes(origin)) reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSED_HEADERS.join(', '));
  if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return false;
  void reply
    .code(204)
    .header('access-control-allow-methods', ALLOWED_METHODS)
    .header('access-control-allow-headers', ALLOWED_HEADERS.join(', '))
    .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
    // Some browsers wait for a body of a 204 without a length.
    .header('content-length', '0')
    .send();
  return true;
}

/**
 * Sets an answer's headers on the reply; a `vary` among them is added to what the answer
 * varies on already (Origin, from the CORS hook) rather than put in its place.
 */
export function setAnswerHeaders(reply: FastifyReply, headers: Readonly<Record<string, string>>): FastifyReply {
  for (const name in headers) {
    const value = headers[name] as string;
    if (name === 'vary') varyOn(reply, value);
    else reply.header(name, value);
  }
  return reply;
}

export function installCors(app: FastifyInstance, options: CorsOptions): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Every answer depends on Origin: a cache must not give one origin's answer to another.
    varyOn(reply, 'Origin');
    const origin = request.headers.origin;
    // No promise for a request without Origin.
    if (origin === undefined) return done();
    answerCrossOrigin(options, request, reply, origin).then(
      (answered) => {
        if (!answered) done();
      },
      (err: Error) => done(err),
    );
  });
  // Lets OPTIONS reach the hook on any path: a preflight is answered there, anything else
  // that gets here is not found.
  app.options('*', (_request, reply) => reply.callNotFound());
}
