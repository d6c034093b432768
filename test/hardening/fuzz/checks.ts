// What every fuzzed response must satisfy: no 5xx, a JSON body whose errors all carry a code of
// DESIGN §6 (INTERNAL is a failure: nothing the fuzzer sends may break the server), and no
// message revealing SQL, a table or schema name, a stack frame or the database driver's text.
// Tallies what came back, to show what the run covered.

import type { FuzzRequest } from './invalidGen.js';

const CLIENT_CODES = new Set(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'LIMIT_EXCEEDED']);

/** Text that only an unmasked internal error would put in a message. */
const LEAKS: readonly RegExp[] = [
  /\(?\/?[\w./@-]+\.(?:js|ts|mjs|cjs):\d+:\d+\)?/, // stack frames
  /\n\s+at /,
  /\bSELECT\b|\bINSERT INTO\b|\bDELETE FROM\b|\bUPDATE\s+\S+\s+SET\b|\bRETURNING\b/,
  /json_build_object|json_agg|jsonb_|::uuid|::jsonb|::text|\$\d+\b/,
  /\bapp_[a-z][a-z0-9]{11}\b/,
  /\btessera\.[a-z_]+/,
  /violates .{0,40}constraint|duplicate key value|syntax error at or near|invalid input syntax|canceling statement|could not|SQLSTATE/i,
  /\b(relation|column|operator|function|type) .{0,80} does not exist/,
  /PGlite|pglite|node_modules|DatabaseError|\bpg_/,
];

/** graphql-js and Tessera quote the input they echo; what is quoted is the client's own text. */
function unquoted(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

/**
 * The first pattern of LEAKS the message shows outside the client's own text: what is quoted,
 * and any match that is part of what the client sent (`sent`, its request as text). graphql-js
 * prints an input object's keys unquoted ("got invalid value { a$1: 2 }"), so a key the fuzzer
 * made up can look like a placeholder; it is the client's text all the same.
 */
export function leakIn(message: string, sent = ''): RegExp | undefined {
  const text = unquoted(message);
  return LEAKS.find((re) => {
    for (const match of text.matchAll(new RegExp(re.source, `${re.flags}g`))) if (!sent.includes(match[0])) return true;
    return false;
  });
}

export interface Reply {
  status: number;
  contentType: string;
  text: string;
}

export class Tally {
  requests = 0;
  /** Requests answered with data and no error at all. */
  clean = 0;
  readonly byKind = new Map<string, number>();
  readonly byStatus = new Map<number, number>();
  readonly byCode = new Map<string, number>();

  count<K>(map: Map<K, number>, key: K): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  summary(): string {
    const list = <K>(m: Map<K, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${String(k)} ${n}`).join(', ');
    return `${this.requests} requests, ${this.clean} answered with data and no error; statuses: ${list(this.byStatus)}; codes: ${list(this.byCode)}; kinds: ${list(this.byKind)}`;
  }
}

function describe(request: FuzzRequest, reply: Reply): string {
  const body = typeof request.body === 'string' ? request.body.slice(0, 1500) : request.body ? `<${request.body.length} bytes>` : '';
  return `${request.kind}: ${request.method}${request.search ? ` ${request.search.slice(0, 300)}` : ''} ${body}\n→ ${reply.status} ${reply.text.slice(0, 1500)}`;
}

/** The request as the client wrote it, and the keys and strings of its JSON body unescaped. */
function sentText(request: FuzzRequest): string {
  const body = typeof request.body === 'string' ? request.body : '';
  const strings: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) (strings.push(k), collect(x));
  };
  try {
    collect(JSON.parse(body));
  } catch {
    // Not JSON: the text as sent is all there is.
  }
  return [request.search ?? '', body, ...strings].join('\n');
}

/** Checks one reply; returns its parsed body, or throws with the request and reply. */
export function checkReply(request: FuzzRequest, reply: Reply, tally: Tally): unknown {
  const fail = (why: string): never => {
    throw new Error(`${why}\n${describe(request, reply)}`);
  };
  tally.requests += 1;
  tally.count(tally.byKind, request.kind);
  tally.count(tally.byStatus, reply.status);
  if (reply.status >= 500) fail(`HTTP ${reply.status}`);
  if (!reply.contentType.includes('json')) fail(`not JSON: ${reply.contentType}`);
  let body: { data?: unknown; errors?: { message?: unknown; extensions?: Record<string, unknown> }[] };
  try {
    body = JSON.parse(reply.text) as typeof body;
  } catch {
    return fail('body is not JSON');
  }
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code;
    tally.count(tally.byCode, String(code));
    // The fuzzed servers have no mail settings: their apps' mail mutations (aliased or not) answer so.
    const noMail = code === 'UNAVAILABLE' && String(error.message).startsWith('The app cannot send mail');
    if (typeof code !== 'string' || !(CLIENT_CODES.has(code) || noMail)) fail(`error code ${String(code)}`);
    if (typeof error.message !== 'string') fail('error without a message');
    const leak = leakIn(error.message as string, sentText(request));
    if (leak) fail(`message matches ${leak}`);
    for (const key of ['stack', 'exception', 'stacktrace', 'sql']) if (error.extensions && key in error.extensions) fail(`extensions.${key}`);
  }
  if (body.data !== undefined && body.data !== null && (body.errors ?? []).length === 0) tally.clean += 1;
  else if (process.env.TESSERA_FUZZ_DEBUG && request.kind.startsWith('valid')) console.log(describe(request, reply).slice(0, 3000));
  return body;
}
