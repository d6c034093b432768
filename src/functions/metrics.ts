// Function calls on the server's Prometheus registry: calls and failures by outcome, and their
// duration, per function. Label values stay bounded: the first MAX_LABELLED_FUNCTIONS
// functions seen (app id and function name) get series of their own, any further one is
// counted under app="_other", function="_other" — a server with thousands of apps cannot grow
// the registry without end. The outbox's backlog is a gauge read from the catalog.

import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { FunctionCallObserver } from './call.js';

/** Functions that get their own series; beyond them, one `_other` series. */
export const MAX_LABELLED_FUNCTIONS = 200;
const OTHER = '_other';

export interface FunctionMetricsOptions {
  /** Deliveries waiting in the outbox (read when the metrics are scraped). */
  pending?: () => Promise<number>;
  maxLabelled?: number;
}

/** Registers the function series on `registry`; returns the observer that feeds them. */
export function functionMetrics(registry: Registry, options: FunctionMetricsOptions = {}): FunctionCallObserver {
  const maxLabelled = options.maxLabelled ?? MAX_LABELLED_FUNCTIONS;
  const labelNames = ['app', 'function', 'kind', 'outcome'] as const;
  const calls = new Counter({
    name: 'tessera_function_calls_total',
    help: 'Calls of functions, by app id, function name, kind and outcome (ok, timeout, network, status, unreadable, refused, aborted); functions beyond the first 200 seen count as app="_other".',
    labelNames,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'tessera_function_failures_total',
    help: 'Calls of functions that got no usable answer, by app id, function name and kind.',
    labelNames: ['app', 'function', 'kind'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tessera_function_call_duration_seconds',
    help: 'Time of function calls (until the answer is read, or the failure), by app id, function name and kind.',
    labelNames: ['app', 'function', 'kind'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  if (options.pending) {
    const pending = options.pending;
    new Gauge({
      name: 'tessera_function_deliveries_pending',
      help: 'Event deliveries waiting in the outbox (not yet delivered nor dead), across every app.',
      registers: [registry],
      async collect() {
        this.set(await pending().catch(() => Number.NaN));
      },
    });
  }
  const labelled = new Set<string>();
  return (fn, result, seconds) => {
    const key = `${fn.appId}\u0000${fn.name}`;
    if (!labelled.has(key) && labelled.size < maxLabelled) labelled.add(key);
    const own = labelled.has(key);
    const where = { app: own ? fn.appId : OTHER, function: own ? fn.name : OTHER, kind: fn.kind };
    calls.inc({ ...where, outcome: result.ok ? 'ok' : result.kind });
    if (!result.ok) failures.inc(where);
    duration.observe(where, seconds);
  };
}
