// An app's traffic through the management API: operations per minute over a window (summed over
// every instance, a zero entry for a quiet minute) and the latest operations the answering
// instance served, with who asked and how each ended.

import { adminRequest } from './admin';

export interface TrafficMinute {
  /** The minute's start (ISO 8601). */
  minute: string;
  operations: number;
  /** Operations answered with an error of any kind, refusals included. */
  errors: number;
  /** The errors that were the server's failures (INTERNAL, UNAVAILABLE): a part of `errors`. */
  failures: number;
  /** Upper bound of the latency bucket half the minute's operations fell in; null without operations. */
  p50Ms: number | null;
  /** The same for 95 %; 10000 means 10 s or more. */
  p95Ms: number | null;
}

export interface LoggedOperation {
  at: string;
  /** `http` or `websocket`. */
  transport: string;
  /** `query`, `mutation`, `subscription`, or `unknown` when the document did not parse or validate. */
  type: string;
  name: string | null;
  /** `ok`, or the code of the first error. */
  outcome: string;
  durationMs: number;
  /** The HTTP status; null over WebSocket. */
  status: number | null;
  requestId: string;
  /** `anonymous`, `user` or `admin`. */
  caller: string;
  userId: string | null;
}

export interface AppTraffic {
  id: string;
  name: string;
  traffic: TrafficMinute[];
  recentOperations: LoggedOperation[];
}

/** The most the server keeps and answers per app. */
export const MAX_RECENT_OPERATIONS = 100;

const QUERY = `query AppTraffic($id: ID!, $minutes: Int!, $last: Int!) { app(id: $id) {
  id name
  traffic(minutes: $minutes) { minute operations errors failures p50Ms p95Ms }
  recentOperations(last: $last) { at transport type name outcome durationMs status requestId caller userId }
} }`;

/** The app's last `minutes` minutes (oldest first) and its latest operations (newest first); null when there is no such app. */
export async function loadTraffic(appId: string, minutes: number, last = MAX_RECENT_OPERATIONS): Promise<AppTraffic | null> {
  return (await adminRequest<{ app: AppTraffic | null }>(QUERY, { id: appId, minutes, last })).app;
}
