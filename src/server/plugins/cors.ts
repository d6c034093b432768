// Cross-origin requests from browser apps (@fastify/cors): an app's API answers the origins of
// its setting `corsOrigins`, or, when the app has none, the server's list
// (TESSERA_CORS_ORIGINS); the management API answers the server's list. Preflights are answered
// with the methods and headers GraphQL clients send and cached by the browser. Credentials are
// bearer tokens in `Authorization`, never cookies, so no request is sent with cookies.
// The same lists decide which WebSocket upgrades are accepted (allowedOrigin).

import fastifyCors from '@fastify/cors';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/**
 * A request without Origin is not a browser's cross-origin call: no CORS header concerns it but
 * `Vary: Origin` (which the plugin adds to every answer, as the answer to the same request with
 * an Origin differs). Most traffic (servers, mobile apps, same-origin pages) is such requests.
 */
const WITHOUT_ORIGIN: FastifyCorsOptions = Object.freeze({ origin: false });

/** The plugin's options for a request with an Origin, from the origins allowed on its path. */
async function optionsFor(options: CorsOptions, request: FastifyRequest): Promise<FastifyCorsOptions> {
  const allowed = (await allowedFor(options, request.url))?.origins ?? [];
  if (allowed.length === 0) return { origin: false };
  return {
    origin: allowed.includes('*') ? '*' : [...allowed],
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
  };
}

export function installCors(app: FastifyInstance, options: CorsOptions): void {
  void app.register(fastifyCors, {
    hideOptionsRoute: true,
    // The callback form: a request without Origin is answered at once, with no promise.
    delegator: (request, callback) => {
      if (request.headers.origin === undefined) return callback(null, WITHOUT_ORIGIN);
      optionsFor(options, request).then((found) => callback(null, found), (err: Error) => callback(err));
    },
  });
}
