// What a function is: an app's HTTP endpoint Tessera calls, of one kind (BEFORE hooks, EVENT
// webhooks, RESOLVER fields), with the bounds its settings must keep (docs/functions.md).

export const FUNCTION_KINDS = ['BEFORE', 'EVENT', 'RESOLVER'] as const;
export type FunctionKind = (typeof FUNCTION_KINDS)[number];

/** A header sent with every call (its value only ever stored sealed). */
export interface FunctionHeader {
  name: string;
  value: string;
}

/** A function as its callers use it: the secret and header values opened. */
export interface FunctionDefinition {
  appId: string;
  name: string;
  kind: FunctionKind;
  url: string;
  headers: FunctionHeader[];
  timeoutMs: number;
  enabled: boolean;
  /** BEFORE hooks of one operation run in this order (then by name). */
  order: number;
  /** BEFORE and EVENT: the app's mutations it is called for; RESOLVER: none. */
  operations: string[];
}

/** Function names: what `@function(name:)` and the management API call it. */
export const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const MIN_TIMEOUT_MS = 100;
export const MAX_TIMEOUT_MS = 30_000;
export const DEFAULT_TIMEOUT_MS = 5_000;
export const MAX_HEADERS = 20;
export const MAX_HEADER_VALUE = 4096;
export const MAX_OPERATIONS = 200;
export const MAX_URL_LENGTH = 2048;
/** The largest answer a function's endpoint may send. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Headers Tessera sets itself, or that belong to the connection: a function cannot set them. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'tessera-signature',
  'tessera-event-id',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** Where a function's secret and header values are sealed: bound to the app and the function. */
export function sealContext(appId: string, name: string, part: 'secret' | `header:${string}`): string {
  return `function:${appId}:${name}:${part}`;
}
