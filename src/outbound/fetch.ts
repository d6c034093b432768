// Outbound HTTP calls made for an app (OpenID discovery, code exchanges, key sets): a `fetch`
// with the safety an app-supplied URL needs. No private address unless allowed — checked on
// the address the connection actually goes to, so a name that resolves differently between a
// check and the call (DNS rebinding) gains nothing; no redirect followed; a deadline; the
// answer's body capped.

import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isPrivateAddress, urlProblem } from './addresses.js';

export interface OutboundPolicy {
  /** Whether private, loopback and link-local addresses may be called (TESSERA_FUNCTIONS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The whole call's deadline (default 10 s). */
  timeoutMs?: number;
  /** The largest answer body read (default 1 MiB). */
  maxBodyBytes?: number;
}

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** An outbound call that was not made or did not complete; the message says why (no secret in it). */
export class OutboundError extends Error {
  /** `refused`: the policy forbids the address; `failed`: the network or the peer failed. */
  readonly reason: 'refused' | 'failed';
  /** What failed, for a call that failed: no answer in time, an answer too large, the caller's abort, or the network. */
  readonly failure: 'timeout' | 'tooLarge' | 'aborted' | 'network' | undefined;
  constructor(reason: 'refused' | 'failed', message: string, failure?: 'timeout' | 'tooLarge' | 'aborted' | 'network') {
    super(message);
    this.name = 'OutboundError';
    this.reason = reason;
    this.failure = reason === 'failed' ? (failure ?? 'network') : undefined;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `dns.lookup` that refuses a name resolving to an address the policy forbids. */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      // Any forbidden address refuses the name: a mixed answer is how rebinding is tried.
      const forbidden = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (forbidden) {
        const refused = new OutboundError('refused', `${hostname} resolves to ${forbidden.address}, a private, loopback or link-local address (allowed only with TESSERA_FUNCTIONS_ALLOW_PRIVATE=true)`);
        return callback(refused as NodeJS.ErrnoException, []);
      }
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams | undefined;
  signal?: AbortSignal | undefined;
}

/** Calls `url` under `policy`; the answer as a `Response`, whatever its status (3xx included). */
export function outboundFetch(url: string, init: OutboundRequest, policy: OutboundPolicy): Promise<Response> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutboundError('refused', 'not an absolute URL'));
  }
  const problem = urlProblem(target, policy.allowPrivate);
  if (problem) return Promise.reject(new OutboundError('refused', problem));
  const body = init.body instanceof URLSearchParams ? init.body.toString() : init.body;
  const maxBytes = policy.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS;
  const options: RequestOptions = {
    method: init.method ?? 'GET',
    headers: { ...init.headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
    lookup: guardedLookup(policy.allowPrivate) as unknown as RequestOptions['lookup'],
    // No pooled connection: each call's address is checked on its own connection.
    agent: false,
  };
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(failure(err));
    };
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) fail(new OutboundError('failed', `the answer is larger than ${maxBytes} bytes`, 'tooLarge'));
        else chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const status = response.statusCode ?? 502;
        const nullBody = status === 204 || status === 205 || status === 304 || status < 200;
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status: status < 200 ? 502 : status, headers: headersOf(response) }));
      });
    });
    const timer = setTimeout(() => fail(new OutboundError('failed', `no complete answer within ${timeoutMs} ms`, 'timeout')), timeoutMs);
    const abort = () => fail(new OutboundError('failed', 'the call was aborted', 'aborted'));
    if (init.signal?.aborted) abort();
    init.signal?.addEventListener('abort', abort, { once: true });
    request.on('error', fail);
    request.on('close', () => init.signal?.removeEventListener('abort', abort));
    request.end(body);
  });
}

function failure(err: unknown): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  return new OutboundError('failed', code ? `the connection failed (${code})` : 'the connection failed');
}
