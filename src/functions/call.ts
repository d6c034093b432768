// The one way Tessera calls a function, whatever its kind: the body signed, posted through the
// guarded outbound client (http/https only, no redirect, a deadline, the answer capped, no
// private address unless allowed — checked on the address resolved), and the outcome typed: an
// answer, or a failure saying which kind. Each call is reported to an observer (metrics, logs)
// without its body, secret or header values.

import { randomUUID } from 'node:crypto';
import { OutboundError, outboundFetch } from '../outbound/index.js';
import type { FunctionDefinition } from './definition.js';
import type { FunctionSecrets } from './sealing.js';
import type { FunctionRow } from '../store/index.js';
import { MAX_ANSWER_BYTES } from './definition.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.js';

/** The body of every call (`input` for BEFORE, `event` for EVENT, `arguments` for RESOLVER). */
export interface FunctionCallBody {
  /** The call's id, also sent as Tessera-Event-Id: an event's stays the same at every attempt. */
  id: string;
  app: string;
  function: string;
  operation: string;
  caller: { userId: string | null; admin: boolean };
  input?: unknown;
  event?: unknown;
  arguments?: unknown;
  /** When the call (an event: its mutation) was made, ISO 8601. */
  createdAt: string;
}

export type FunctionFailureKind = 'timeout' | 'network' | 'status' | 'unreadable' | 'refused' | 'aborted';

/** A call that got no usable answer; the message says why (never a secret or the answer's body). */
export interface FunctionCallFailure {
  ok: false;
  kind: FunctionFailureKind;
  message: string;
  /** The answer's status, when there was one (non-2xx, or unreadable). */
  status?: number;
}

export interface FunctionCallAnswer {
  ok: true;
  status: number;
  /** The answer parsed when it says it is JSON, else its text ('' when empty). */
  body: unknown;
}

export type FunctionCallResult = FunctionCallAnswer | FunctionCallFailure;

/** Told of every call once it has ended. */
export type FunctionCallObserver = (fn: Pick<FunctionDefinition, 'appId' | 'name' | 'kind' | 'url'>, result: FunctionCallResult, seconds: number) => void;

/** What a server needs to call functions while it answers operations (BEFORE hooks, custom fields). */
export interface FunctionCalling {
  secrets: FunctionSecrets;
  /** Whether private, loopback and link-local addresses may be called (TESSERA_FUNCTIONS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  observe?: FunctionCallObserver | undefined;
}

/** What the client is told of a failed call: its kind and status, not where the address resolved. */
export function failureReason(failure: FunctionCallFailure): string {
  return failure.kind === 'refused' ? 'its address is refused (a private, loopback or link-local address, or not http/https)' : failure.message;
}

export interface FunctionCallPolicy {
  /** Whether private, loopback and link-local addresses may be called (TESSERA_FUNCTIONS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The largest answer read (default 1 MiB). */
  maxAnswerBytes?: number;
  observe?: FunctionCallObserver | undefined;
}

function failed(kind: FunctionFailureKind, message: string, status?: number): FunctionCallFailure {
  return status === undefined ? { ok: false, kind, message } : { ok: false, kind, message, status };
}

function outboundFailure(err: unknown): FunctionCallFailure {
  if (!(err instanceof OutboundError)) return failed('network', 'the call failed');
  if (err.reason === 'refused') return failed('refused', err.message);
  switch (err.failure) {
    case 'timeout':
      return failed('timeout', err.message);
    case 'tooLarge':
      return failed('unreadable', err.message);
    case 'aborted':
      return failed('aborted', err.message);
    case 'network':
    case undefined:
      return failed('network', err.message);
    default: {
      const never: never = err.failure;
      return failed('network', String(never));
    }
  }
}

async function answerOf(response: Response): Promise<FunctionCallResult> {
  const status = response.status;
  if (status < 200 || status > 299) return failed('status', `the endpoint answered ${status}`, status);
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type.trim())) return { ok: true, status, body: text };
  try {
    return { ok: true, status, body: JSON.parse(text) as unknown };
  } catch {
    return failed('unreadable', 'the endpoint answered JSON that does not parse', status);
  }
}

/**
 * Calls `fn` with `body`, signed with `secret`. Resolves to the answer or a typed failure; it
 * never rejects. `signal` aborts the call (a failure of kind `aborted`).
 */
export async function callFunction(fn: FunctionDefinition, secret: string, body: FunctionCallBody, policy: FunctionCallPolicy, signal?: AbortSignal): Promise<FunctionCallResult> {
  const started = performance.now();
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {};
  for (const h of fn.headers) headers[h.name] = h.value;
  headers['content-type'] = 'application/json';
  headers['user-agent'] = 'Tessera-Functions/1';
  headers[SIGNATURE_HEADER] = signatureHeader(secret, text);
  headers[EVENT_ID_HEADER] = body.id;
  let result: FunctionCallResult;
  try {
    const response = await outboundFetch(fn.url, { method: 'POST', headers, body: text, signal }, {
      allowPrivate: policy.allowPrivate,
      timeoutMs: fn.timeoutMs,
      maxBodyBytes: policy.maxAnswerBytes ?? MAX_ANSWER_BYTES,
    });
    result = await answerOf(response);
  } catch (err) {
    result = outboundFailure(err);
  }
  policy.observe?.(fn, result, (performance.now() - started) / 1000);
  return result;
}

/** Why a stored function could not be called for an operation, in words for the client. */
export type OperationCallRefusal = { ok: false; reason: string; secretUnopened: boolean };

/**
 * Calls a stored function for one operation of its app: its secret opened (a secret this
 * server's key cannot open is logged, never shown), the body given its id and time, signed and
 * sent under the server's policy. Resolves to the answer, or why there is none — a failed
 * call logged with its kind and status, never its body or secret.
 */
export async function callForOperation(
  calling: FunctionCalling,
  row: FunctionRow,
  body: Omit<FunctionCallBody, 'id' | 'createdAt'>,
  log?: { error(detail: object, message: string): void; warn(detail: object, message: string): void },
): Promise<FunctionCallAnswer | OperationCallRefusal> {
  let opened: ReturnType<FunctionSecrets['open']>;
  try {
    opened = calling.secrets.open(row);
  } catch (err) {
    log?.error({ err, appId: row.appId, function: row.name }, "a function's secret could not be opened with this server's key");
    return { ok: false, reason: "its secret does not open with this server's key", secretUnopened: true };
  }
  const result = await callFunction(opened.definition, opened.secret, { id: randomUUID(), ...body, createdAt: new Date().toISOString() }, { allowPrivate: calling.allowPrivate, observe: calling.observe });
  if (result.ok) return result;
  log?.warn({ appId: row.appId, function: row.name, operation: body.operation, failure: result.kind, status: result.status, reason: result.message }, `a ${row.kind === 'RESOLVER' ? 'resolver' : row.kind} call failed`);
  return { ok: false, reason: failureReason(result), secretUnopened: false };
}
