// Random requests at the server's edge, where no GraphQL document is involved yet: request
// targets whose path holds made-up app ids (raw and percent-encoded bytes, traversal, huge
// segments), header sets of a hostile client (garbage and forged credentials, odd media types,
// forwarding headers, oversized and malformed headers), and WebSocket sessions that open with a
// random subprotocol and `connection_init` payload and then send random frames.

import fc from 'fast-check';
import type { Choose } from './choose.js';

/** Bytes a request line may not hold raw; they end up percent-encoded or make a parse error on purpose. */
const SEPARATORS = /[\s?#]/g;

function percentEncodeAll(bytes: Uint8Array): string {
  return [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** A path segment where an app id belongs: as a hostile client writes it, in request-line text (latin1). */
export function pathSegment(c: Choose, validId: string): string {
  switch (c.int(0, 9)) {
    case 0:
      return percentEncodeAll(c.g(fc.uint8Array, { minLength: 1, maxLength: 40 }));
    case 1:
      // Raw bytes, spaces and `?`/`#` excepted (those end the path); control bytes and 0x80+ included.
      return Buffer.from(c.g(fc.uint8Array, { minLength: 1, maxLength: 24 })).toString('latin1').replace(SEPARATORS, '_');
    case 2:
      return c.pick(['%00', '..', '%2e%2e', '..%2f..%2f', '%2e%2e%5c', '.', '%', '%z', '%zz', '%E0%A4%A', '%C0%AF', '%FF', '%u0041', '\\..\\', '%2F', '%252e']);
    case 3:
      return 'a'.repeat(c.pick([12, 13, 63, 64, 101, 1000, 2000, 8000]));
    case 4:
      return `${validId}${c.pick(['%00', '%20', '.', '..', '%2F..', 'x', '/', '//', ';x', '%0d%0a'])}`;
    case 5:
      return percentEncodeAll(Buffer.from(c.g(fc.string, { unit: 'grapheme', minLength: 1, maxLength: 20 }), 'utf8'));
    case 6:
      return validId.toUpperCase();
    case 7:
      // Lone surrogates become U+FFFD's bytes, as a client's encoder would send them.
      return percentEncodeAll(Buffer.from(c.oddString().slice(0, 3000), 'utf8'));
    case 8:
      return validId;
    default:
      return c.name('z', 11).toLowerCase();
  }
}

export interface RawRequest {
  kind: string;
  head: string;
  body: string;
  /** Answers need not be JSON (the console's pages, the WebSocket library's refusals). */
  anyBody?: boolean;
}

/** A request to some route with a made-up path segment. */
export function pathRequest(c: Choose, validId: string): RawRequest {
  const seg = pathSegment(c, validId);
  const method = c.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'FOO']);
  const [kind, target] = c.pick<[string, string]>([
    ['path: app', `/graphql/${seg}`],
    ['path: app', `/graphql/${seg}?query=%7B__typename%7D`],
    ['path: jwks', `/graphql/${seg}/.well-known/jwks.json`],
    ['path: under an app', `/graphql/${validId}/${seg}`],
    ['path: management', `/admin/${seg}`],
    ['path: top level', `/${seg}`],
    ['path: files', `/files/${seg}/${seg}`],
    ['path: health', `/healthz/${seg}`],
  ]);
  const body = method === 'POST' || method === 'PUT' ? JSON.stringify({ query: '{ __typename }' }) : '';
  return { kind, head: `${method} ${target} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json`, body };
}

function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** An Authorization value a hostile client might send, given real credentials to mangle. */
export function authorizationValue(c: Choose, real: { adminToken: string; userToken: string; otherToken: string; platformKey: string }): string {
  switch (c.int(0, 11)) {
    case 0:
      return `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'x', aud: 'y', exp: 9999999999 })}.`;
    case 1:
      return `Bearer ${real.userToken.slice(0, -c.int(1, 5))}${c.pick(['A', 'x', '_', '-'])}`;
    case 2:
      return `Bearer ${real.otherToken}`;
    case 3:
      return `Bearer ${real.platformKey}${c.pick(['x', ' ', '\t', '%00'])}`;
    case 4:
      return `Bearer ${'A'.repeat(c.pick([100, 4000, 12_000]))}`;
    case 5:
      return c.pick(['Bearer', 'Bearer ', 'bearer ' + real.adminToken, 'BEARER ' + real.adminToken, `Bearer  ${real.adminToken}`, `Basic ${base64url('a:b')}`, `Token ${real.adminToken}`, '', ' ']);
    case 6:
      return `Bearer ${Buffer.from(c.g(fc.uint8Array, { minLength: 1, maxLength: 40 })).toString('latin1').replace(/[\r\n\0]/g, '')}`;
    case 7:
      return `Bearer ${base64url({ alg: 'HS256', kid: '../../etc/passwd' })}.${base64url({ sub: 'VXNlcjo=', aud: 'app' })}.${base64url('sig')}`;
    case 8:
      return `Bearer tat_${c.name('', 40)}`;
    case 9:
      return `Bearer ${real.adminToken}`;
    case 10:
      return `Bearer ${real.userToken}`;
    default:
      return `Bearer ${c.oddString().slice(0, 500).replace(/[\r\n\0]/g, '')}`;
  }
}

/** A POST of a valid operation to the app with a random, hostile set of headers. */
export function headerRequest(c: Choose, endpointPath: string, real: Parameters<typeof authorizationValue>[1]): RawRequest {
  const headers: string[] = [];
  let kind = 'headers';
  const contentType = c.chance(0.7)
    ? 'application/json'
    : c.pick(['application/json; charset=latin1', 'application/json; charset=utf-8; x=' + 'y'.repeat(500), 'application/graphql', 'text/plain', 'multipart/form-data; boundary=--x', 'application/x-www-form-urlencoded', '*/*', 'application/json, text/plain', '', 'application/graphql-response+json']);
  headers.push(`Content-Type: ${contentType}`);
  if (c.chance(0.8)) headers.push(`Authorization: ${authorizationValue(c, real)}`);
  if (c.chance(0.15)) headers.push(`Authorization: ${authorizationValue(c, real)}`);
  if (c.chance(0.3)) headers.push(`Accept: ${c.pick(['application/graphql-response+json', 'text/html', '*/*;q=0', 'application/json;q=0', 'x/y', '', 'application/*', 'text/event-stream'])}`);
  if (c.chance(0.3)) headers.push(`X-Forwarded-For: ${c.pick(['1.2.3.4', '::1', 'unknown', '1.2.3.4, 5.6.7.8', 'x'.repeat(2000), '999.999.999.999', '', '::ffff:127.0.0.1'])}`);
  if (c.chance(0.2)) headers.push(`X-Request-Id: ${c.pick(['../../etc', 'x'.repeat(5000), '\u00ff\u00fe', '1; DROP TABLE x'])}`);
  if (c.chance(0.1)) {
    kind = 'headers: many';
    const count = c.int(50, 300);
    for (let i = 0; i < count; i++) headers.push(`X-H${i}: value-${i}`);
  }
  if (c.chance(0.05)) {
    kind = 'headers: oversized';
    headers.push(`X-Big: ${'b'.repeat(c.pick([20_000, 70_000]))}`);
  }
  if (c.chance(0.05)) {
    kind = 'headers: malformed';
    headers.push(c.pick(['Bad Header: x', 'X-Ctl: a\u0001b', ': empty-name', 'Transfer-Encoding: chunked', 'Content-Length: 5']));
  }
  if (c.chance(0.05)) {
    kind = 'headers: obs-text';
    headers.push(`X-Latin: ${Buffer.from([0xc3, 0xa9, 0xff, 0x80]).toString('latin1')}`);
  }
  const body = JSON.stringify({ query: c.pick(['{ viewer { id } }', '{ __typename }', 'mutation { __typename }']) });
  return { kind, head: `POST ${endpointPath} HTTP/1.1\r\n${headers.join('\r\n')}`, body };
}

/** The subprotocol a WebSocket client asks for. */
export function subprotocol(c: Choose): string | undefined {
  return c.pick(['graphql-transport-ws', 'graphql-transport-ws', 'graphql-ws', 'graphql-ws', 'graphql-subscriptions', 'x-unknown', undefined]);
}

/** A `connection_init` payload: what older and newer clients send, and what a hostile one might. */
export function initPayload(c: Choose, real: Parameters<typeof authorizationValue>[1]): string | undefined {
  switch (c.int(0, 9)) {
    case 0:
      return JSON.stringify({ Authorization: authorizationValue(c, real) });
    case 1:
      return JSON.stringify({ headers: { Authorization: authorizationValue(c, real) } });
    case 2:
      return JSON.stringify({ authorization: c.pick([12, true, null, [`Bearer ${real.userToken}`], { token: real.userToken }, '']) });
    case 3:
      return JSON.stringify({ headers: c.pick(['x', 1, null, [], { authorization: 5 }]) });
    case 4:
      return c.pick(['{"__proto__":{"Authorization":"Bearer x"}}', '{"constructor":{"prototype":{"admin":true}}}', '{"AUTHORIZATION":"Bearer ' + real.adminToken + '"}']);
    case 5:
      return JSON.stringify(c.json());
    case 6:
      return JSON.stringify({ Authorization: `Bearer ${'x'.repeat(c.pick([1000, 100_000]))}` });
    case 7:
      return c.pick(['null', '[]', '"text"', '1', 'true']);
    case 8:
      return undefined;
    default:
      return JSON.stringify({ Authorization: `Bearer ${real.userToken}` });
  }
}

/** Frames sent after `connection_init`: valid, malformed and out of protocol. */
export function laterFrame(c: Choose): string | Buffer {
  switch (c.int(0, 8)) {
    case 0:
      return 'not json';
    case 1:
      return Buffer.from(c.g(fc.uint8Array, { minLength: 1, maxLength: 64 }));
    case 2:
      return JSON.stringify({ type: c.pick(['subscribe', 'start']), id: c.pick(['1', 1, null, '', 'x'.repeat(300)]), payload: { query: '{ viewer { id } }' } });
    case 3:
      return JSON.stringify({ type: c.pick(['subscribe', 'start']), id: 'q', payload: c.pick([null, 'x', { query: 5 }, { query: '{' }, { query: '{ viewer { id } }', variables: 'x' }]) });
    case 4:
      return JSON.stringify({ type: 'connection_init', payload: {} });
    case 5:
      return JSON.stringify({ type: c.pick(['ping', 'pong', 'complete', 'stop', 'connection_terminate', 'ka', 'data', 'unknown', 5, null]) });
    case 6:
      return JSON.stringify(c.json());
    case 7:
      return JSON.stringify({ type: 'subscribe', id: 's', payload: { query: `{ ${'a: __typename '.repeat(c.int(1, 60))} }` } });
    default:
      return '{"type":"subscribe","id":"z","payload":{"query":"' + '{'.repeat(c.int(10, 3000)) + '"}}';
  }
}
