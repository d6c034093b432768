// Prometheus metrics: default process metrics; HTTP requests (and WebSocket connections, when
// they close) by method, route pattern and status; GraphQL operations by type and outcome; the
// store's connections by state; the build. Bounded label values only: route patterns, never
// raw paths or app ids, and error codes from the catalogue.

import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';
import { ERROR_CODES } from '../../errors/index.js';
import type { StatementProbe, Store } from '../../store/index.js';
import { packageVersion } from '../../build/index.js';
import type { AppCacheStats } from '../appCache.js';
import { Timings } from './timings.js';
import type { ExportedMetric } from './timings.js';

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

/** Registers one of our own metrics (timings.ts) with prom-client's registry, which reads it as its own. */
function register(registry: Registry, metric: ExportedMetric): void {
  registry.registerMetric(metric as unknown as Metric);
}

export function installMetrics(app: FastifyInstance, store: Store): Metrics {
  // One registry per server, so several servers in one process (tests) do not collide.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const http = new Timings([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  register(registry, http.counter('tessera_http_requests_total', 'HTTP requests answered, by method, route pattern and status code.'));
  register(registry, http.histogram('tessera_http_request_duration_seconds', 'Time to answer HTTP requests, by method, route pattern and status code.', ['method', 'route', 'status']));
  const answered = (method: string, route: string, status: number, seconds: number) => {
    const series = http.series(`${method}\u0001${route}\u0001${status}`, () => ({ method, route, status: String(status) }));
    http.observe(series, seconds);
  };

  app.addHook('onResponse', (request, reply, done) => {
    // Bounded label values: unknown methods and unmatched paths collapse into one value each.
    answered(METHODS.has(request.method) ? request.method : 'OTHER', request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const operations = new Timings([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]);
  register(registry, operations.counter('tessera_graphql_operations_total', 'GraphQL operations answered, by operation type and outcome (ok, or the first error code).'));
  register(registry, operations.histogram('tessera_graphql_duration_seconds', 'Time to answer GraphQL operations (parse, validate, execute), by operation type.', ['type']));
  const statements = new Timings([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]);
  register(registry, statements.histogram('tessera_db_statement_duration_seconds', 'Time of database statements, and of whole transactions, by kind and outcome (ok or error).', ['kind', 'outcome']));
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
    record: answered,
    operation(type, outcome, seconds) {
      const known = OPERATION_TYPES.has(type) ? type : 'unknown';
      const counted = outcome === 'ok' || outcome in ERROR_CODES ? outcome : 'OTHER';
      operations.observe(operations.series(`${known}\u0001${counted}`, () => ({ type: known, outcome: counted })), seconds);
    },
    statements: {
      start(kind) {
        const started = performance.now();
        return {
          end: (failed) => {
            const outcome = failed ? 'error' : 'ok';
            statements.observe(statements.series(`${kind}\u0001${outcome}`, () => ({ kind, outcome })), (performance.now() - started) / 1000);
          },
        };
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
