// Prometheus metrics: default process metrics; HTTP requests (and WebSocket connections, when
// they close) by method, route pattern and status; GraphQL operations by type and outcome; the
// store's connections by state; the build. Bounded label values only: route patterns, never
// raw paths or app ids, and error codes from the catalogue.

import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ERROR_CODES } from '../../errors/index.js';
import type { StatementProbe, Store } from '../../store/index.js';
import { packageVersion } from '../../build/index.js';
import type { AppCacheStats } from '../appCache.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface Metrics {
  registry: Registry;
  /** Counts an answer the request hooks do not see (a WebSocket connection, when it closes). */
  record(method: string, route: string, status: number, seconds: number): void;
  /** Counts a GraphQL operation answered (over HTTP or WebSocket): its type, outcome (`ok` or an error code) and duration. */
  operation(type: string, outcome: string, seconds: number): void;
  /** Times each database statement, and each whole transaction, and tells failed ones apart. */
  statements: StatementProbe;
}

const OPERATION_TYPES = new Set(['query', 'mutation', 'subscription']);

export function installMetrics(app: FastifyInstance, store: Store): Metrics {
  // One registry per server, so several servers in one process (tests) do not collide.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'tessera_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status code.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      // Bounded label values: unknown methods and unmatched paths collapse into one value each.
      method: METHODS.has(request.method) ? request.method : 'OTHER',
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  const operations = new Counter({
    name: 'tessera_graphql_operations_total',
    help: 'GraphQL operations answered, by operation type and outcome (ok, or the first error code).',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
  });
  const operationTime = new Histogram({
    name: 'tessera_graphql_duration_seconds',
    help: 'Time to answer GraphQL operations (parse, validate, execute), by operation type.',
    labelNames: ['type'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const statementTime = new Histogram({
    name: 'tessera_db_statement_duration_seconds',
    help: 'Time of database statements, and of whole transactions, by kind and outcome (ok or error).',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'tessera_db_pool_connections',
    help: "The store's database connections by state: idle, used, and requests waiting for one.",
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const c = store.connections();
      this.set({ state: 'idle' }, c.idle);
      this.set({ state: 'used' }, c.used);
      this.set({ state: 'waiting' }, c.waiting);
    },
  });
  new Gauge({
    name: 'tessera_build_info',
    help: 'The running build: version, Node.js version and store kind (always 1).',
    labelNames: ['version', 'node', 'store'] as const,
    registers: [registry],
  }).set({ version: packageVersion(), node: process.version, store: store.kind }, 1);

  app.get('/metrics', async (_request, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  return {
    registry,
    record(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    operation(type, outcome, seconds) {
      const known = OPERATION_TYPES.has(type) ? type : 'unknown';
      operations.inc({ type: known, outcome: outcome === 'ok' || outcome in ERROR_CODES ? outcome : 'OTHER' });
      operationTime.observe({ type: known }, seconds);
    },
    statements: {
      start(kind) {
        const started = performance.now();
        return { end: (failed) => statementTime.observe({ kind, outcome: failed ? 'error' : 'ok' }, (performance.now() - started) / 1000) };
      },
    },
  };
}

/** The app cache: apps and schemas held, their estimated bytes, apps let go to keep the budget. */
export function appCacheMetrics(registry: Registry, stats: () => AppCacheStats): void {
  new Gauge({
    name: 'tessera_app_cache_apps',
    help: 'Apps loaded in this instance (their schemas, compiled statements and documents).',
    registers: [registry],
    collect() {
      this.set(stats().apps);
    },
  });
  new Gauge({
    name: 'tessera_app_cache_schemas',
    help: 'Distinct GraphQL schemas the loaded apps share (apps of the same model share one).',
    registers: [registry],
    collect() {
      this.set(stats().schemas);
    },
  });
  new Gauge({
    name: 'tessera_app_cache_bytes',
    help: 'Estimated bytes of the loaded apps and their schemas, kept within TESSERA_APP_CACHE_MB.',
    registers: [registry],
    collect() {
      this.set(stats().bytes);
    },
  });
  // Counters that follow the cache's own counts: each collection adds what happened since the last.
  const counted = (name: string, help: string, count: (s: AppCacheStats) => number) => {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = count(stats());
        this.inc(now - reported);
        reported = now;
      },
    });
  };
  counted('tessera_app_cache_evictions_total', 'Apps let go, least recently used first, to stay within TESSERA_APP_CACHE_MB.', (s) => s.evictions);
  counted('tessera_app_cache_loads_total', "Apps loaded from the catalog: an app's first request, and its first after an eviction or a change.", (s) => s.loads);
}
