// Builds the Fastify instance: logger, limits and the plugins in the order of their hooks.
// It neither opens nor closes the store; startServer does that.

import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { LogController } from 'fastify';
import type { FastifyInstance } from 'fastify';
import { Clusters, perStore, withProbes } from '../store/index.js';
import type { AppHome, ListenOptions, Store } from '../store/index.js';
import { defaultPublicUrl } from './config.js';
import type { LogLevel, TrustProxy } from './config.js';
import { installCompression } from './plugins/compression.js';
import { allowedOrigin, installCors } from './plugins/cors.js';
import { installDrain } from './plugins/drain.js';
import { clientErrors, frameworkErrors, installErrorHandling } from './plugins/errors.js';
import { installHealth } from './plugins/health.js';
import { appCacheMetrics, installMetrics } from './plugins/metrics.js';
import { installRequestLog } from './plugins/requestLog.js';
import { lazySchemaCompilers } from './plugins/schemaCompilers.js';
import { REDACTED, REDACTED_PATHS, redactNestedHeaders } from './logSecrets.js';
import { installUpgrades } from './plugins/upgrades.js';
import { generateRequestId, installRequestId } from './plugins/requestId.js';
import { installAdminGraphql } from './routes/adminGraphql.js';
import { installAppGraphql } from './routes/appGraphql.js';
import { DEFAULT_RECHECK_MS, installAppSubscriptions } from './routes/appSubscriptions.js';
import { installConsole } from './routes/console.js';
import { installFileDownloads } from './routes/fileDownloads.js';
import { installMultipart } from './multipart.js';
import { FileRemover, FileUrlSigner, urlExpiry, variantName } from '../files/index.js';
import type { BlobStorage } from '../files/index.js';
import type { FileUrlKeys } from '../compile/index.js';
import { LoginThrottle, Mailer, UserTokenCache, pruneSessionsHourly } from '../accounts/index.js';
import type { MailDefaults } from '../accounts/index.js';
import type { LoginLimits } from '../accounts/index.js';
import { MAX_PENDING_EVENTS, SubscriberDirectory } from '../realtime/index.js';
import { AppRegistry } from './appRegistry.js';
import { AppOperations } from './operation/appOperations.js';
import { PersistedQueries } from './persisted.js';
import { TrafficRecorder, trafficSource } from './traffic.js';
import { mailTester } from './appPorts.js';
import type { AnsweredOperation } from './traffic.js';
import { loadPropagator, statementSpans } from './tracing.js';
import type { Tracer } from '@opentelemetry/api';
import type { AdminService } from '../admin/index.js';
import { portabilityOf } from './portability.js';
import type { OidcRelyingParty } from '../oidc/index.js';
import { DeliveryWorker, FunctionSecrets, OutboxSignal, functionMetrics } from '../functions/index.js';
import type { DeliverySchedule, FunctionsSetup } from '../functions/index.js';
import { pendingDeliveries } from '../store/index.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Where log lines go: anything with `write`, e.g. a stream a test reads back. */
export interface LogDestination {
  write(line: string): void;
}

export interface ServerOptions {
  /** The store holding the catalog (and the apps of cluster `main`). */
  store: Store;
  /**
   * The clusters apps live on, `main` being `store` (default: `store` alone, and the clusters
   * the catalog records, opened without a way to unseal their URLs). Started and closed with
   * the server; `store` itself is not closed.
   */
  clusters?: Clusters | undefined;
  admin: AdminService;
  /** The platform key the management API wants as its bearer token. */
  adminKey: string;
  /** Base URL reported in endpoint URLs; derived from the listening address when absent. */
  publicUrl?: string | undefined;
  logLevel?: LogLevel;
  logDestination?: LogDestination;
  trustProxy?: TrustProxy;
  bodyLimit?: number;
  /** How often an open WebSocket connection's credentials are checked again (default 60 s). */
  credentialRecheckMs?: number;
  /** Events queued for one subscription before its subscriber counts as too slow (default 256). */
  maxPendingEvents?: number;
  /** Distinct subscribers one statement evaluates an event for, at most (default 1,000). */
  maxCallersPerStatement?: number;
  /** Login throttling limits (default LOGIN_LIMITS). */
  loginLimits?: LoginLimits;
  /** Where apps without mail settings of their own send mail (TESSERA_SMTP_URL, TESSERA_MAIL_FROM). */
  mail?: MailDefaults;
  /** Origins whose browser apps may call the APIs, unless an app sets its own (default none). */
  corsOrigins?: readonly string[];
  /** Compress answers of 1 KiB and more for clients that accept it (default off). */
  compression?: boolean;
  /** Traces data API operations and their statements (OpenTelemetry; default none). */
  tracer?: Tracer | undefined;
  /** Redeems apps' OpenID sign-ins (default none: loginUserWithOidc answers NOT_IMPLEMENTED). */
  oidc?: OidcRelyingParty | undefined;
  /** The server's secret key, which signs export links (default: a key derived from the platform key). */
  secretKey?: string | undefined;
  /**
   * Functions: the key their secrets are sealed under and whether they may be on private
   * networks, and (tests) a shorter delivery schedule. Without it this instance delivers no
   * EVENT function's outbox (mutations still write it).
   */
  functions?: (FunctionsSetup & { schedule?: Partial<DeliverySchedule> | undefined }) | undefined;
  /** Apps' files: where their bytes are kept and the secret their download URLs are signed with. */
  files?: FileOptions | undefined;
  /** Budget of the loaded apps in bytes, estimated (TESSERA_APP_CACHE_MB; default 256 MiB). */
  appCacheBytes?: number | undefined;
}

export interface FileOptions {
  /** Absent: the server keeps no files (uploads answer UNAVAILABLE). */
  storage?: BlobStorage | undefined;
  /**
   * Download URLs are signed with a key derived from it; every instance needs the same one
   * (default: a random one per process, for a single instance or a test).
   */
  secret?: string | undefined;
  /** How often the removal worker looks for due removals (default 2 s). */
  removalIntervalMs?: number | undefined;
  /** False: this instance removes no bytes itself and leaves the queue to other instances (default true). */
  removals?: boolean | undefined;
}

/** Fastify honours hop counts but its types omit them; a function says the same thing. */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/**
 * The hook list, in request order:
 *   onRequest   requestId (x-request-id header); admin scope: platform-key check (401)
 *   parsing     JSON bodies (at most `bodyLimit` bytes, 413), and multipart uploads to app
 *               endpoints, their files streamed into storage; 415 otherwise
 *   handler     routes: /admin/graphql, /graphql/:appId, /files/:appId/:fileId, /healthz, /readyz, /metrics
 *   errors      the error handler (coded bodies, INTERNAL masking) and the 404 handler
 *   onSend      drain: `Connection: close` once the server is shutting down
 *   onResponse  metrics (counter and histogram by route pattern); one log line per request
 */
export function createServer(options: ServerOptions): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    logger: {
      level: options.logLevel ?? 'info',
      // Secrets that can travel in headers are replaced before a line is written (logSecrets.ts).
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      formatters: { log: redactNestedHeaders },
      ...(options.logDestination ? { stream: options.logDestination } : {}),
    },
    genReqId: generateRequestId,
    frameworkErrors,
    clientErrorHandler: clientErrors,
    // Fastify's two lines per request are replaced by one (plugins/requestLog.ts).
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit,
    trustProxy: fastifyTrustProxy(options.trustProxy ?? false),
    // Bounds the time to receive a whole request (slow-body clients), not the time to answer it.
    requestTimeout: 30_000,
    schemaController: lazySchemaCompilers,
  });

  const publicUrl = (): string => {
    if (options.publicUrl) return options.publicUrl;
    const address = app.server.address() as AddressInfo | string | null;
    if (address === null || typeof address === 'string') return 'http://localhost';
    return defaultPublicUrl(address.address, address.port);
  };

  // GraphQL over HTTP takes JSON bodies only; any other media type is answered 415.
  app.removeContentTypeParser('text/plain');

  installRequestId(app);
  installDrain(app);
  const metrics = installMetrics(app, options.store);
  // Traced operations continue a caller's trace: its reader loads before the server is ready.
  if (options.tracer) app.addHook('onReady', loadPropagator);
  // Every statement the server runs for the data API, realtime and logins is timed (metrics),
  // on every cluster.
  const probes = options.tracer ? [metrics.statements, statementSpans(options.tracer)] : [metrics.statements];
  const store = withProbes(options.store, probes);
  const clusters = options.clusters ?? new Clusters(options.store);
  const probedStore = perStore((raw) => (raw === options.store ? store : withProbes(raw, probes)));
  const probed = (home: AppHome): AppHome => ({ cluster: home.cluster, store: probedStore(home.store) });
  const homes = {
    home: async (appId: string) => probed(await clusters.home(appId)),
    listen: (channel: string, handler: (payload: string, store: Store) => void, options: ListenOptions = {}) =>
      clusters.listen(channel, (payload, home) => handler(payload, probed(home).store), { resumed: () => options.resumed?.() }),
  };
  app.addHook('onReady', async () => clusters.start());
  app.addHook('onClose', async () => clusters.close());
  installRequestLog(app);
  installErrorHandling(app, bodyLimit);
  installHealth(app, { store: options.store, clusters: () => clusters.homes() });
  if (options.compression) installCompression(app);
  // Each cluster's outbox tells that cluster's workers (on every instance) of new deliveries.
  const outboxOf = perStore((on) => new OutboxSignal(on));
  const signer = new FileUrlSigner(options.files?.secret ?? randomBytes(32));
  const pads = signer.pads();
  const fileUrls: FileUrlKeys = { base: publicUrl, inner: pads.inner, outer: pads.outer, expiry: (lifetime) => urlExpiry(lifetime), variant: variantName };
  const registry = new AppRegistry(homes, {
    onUpgradeError: (appId, err) => app.log.error({ err, appId }, 'the built-in fields could not be added to the app'),
    eventsQueued: (on) => outboxOf(on).queued(),
    files: fileUrls,
    cacheBytes: options.appCacheBytes,
  });
  appCacheMetrics(metrics.registry, () => registry.cacheStats);
  // One observer for every call (event deliveries and resolver fields): it owns the metric series.
  const calling = options.functions && {
    secrets: new FunctionSecrets(options.functions.secrets),
    allowPrivate: options.functions.allowPrivate,
    observe: functionMetrics(metrics.registry, { pending: async () => sum(await Promise.all(clusters.homes().map((home) => pendingDeliveries(probed(home).store).catch(() => 0)))) }),
  };
  // Workers beside each cluster (its outbox, its file removals, its expired sessions), started
  // when the server is ready and for each cluster added later. preClose: onClose hooks run
  // after the one closing the stores (start.ts); workers give back what they hold first.
  const storage = options.files?.storage;
  const removers = new Set<FileRemover>();
  const functionsSetup = options.functions;
  let stopWorkers: (() => Promise<void>) | undefined;
  app.addHook('onReady', async () => {
    stopWorkers = clusters.each((home) => {
      const on = probed(home).store;
      const worker = functionsSetup && calling
        ? new DeliveryWorker({
            store: on,
            secrets: calling.secrets,
            allowPrivate: calling.allowPrivate,
            schedule: functionsSetup.schedule,
            observe: calling.observe,
            log: app.log.child({ component: 'functions', cluster: home.cluster }),
          })
        : undefined;
      void worker?.start().catch((err: unknown) => app.log.error({ err, cluster: home.cluster }, 'the delivery worker did not start'));
      const remover = storage && options.files?.removals !== false
        ? new FileRemover(home.store, storage, {
            intervalMs: options.files?.removalIntervalMs,
            onError: (err, key) => app.log.warn({ err, key, cluster: home.cluster }, 'file bytes not removed yet (tried again later)'),
          })
        : undefined;
      if (remover) {
        removers.add(remover);
        remover.start();
      }
      const stopPruning = pruneSessionsHourly(on, (err) => app.log.warn({ err, cluster: home.cluster }, 'expired sessions not pruned'));
      return async () => {
        stopPruning();
        await worker?.stop();
        if (remover) {
          removers.delete(remover);
          await remover.stop();
        }
      };
    });
  });
  app.addHook('preClose', async () => stopWorkers?.());
  const wakeRemovers = () => {
    for (const remover of removers) remover.wake();
  };
  app.addHook('onClose', async () => {
    await stopWorkers?.();
    await storage?.close();
  });
  const cors = { origins: options.corsOrigins ?? [], registry };
  installCors(app, cors);
  app.addHook('onReady', () => registry.start());
  app.addHook('onClose', () => registry.stop());
  const traffic = new TrafficRecorder(store, { onError: (err) => app.log.warn({ err }, 'app traffic not recorded') });
  app.addHook('onReady', async () => traffic.start());
  // preClose: the stores close in an onClose hook (start.ts) that runs before this plugin's.
  app.addHook('preClose', async () => traffic.stop());
  const mailer = new Mailer(options.mail ?? {});
  app.addHook('onClose', async () => mailer.close());
  const portability = portabilityOf(app, options, clusters, publicUrl, wakeRemovers);
  installAdminGraphql(app, { admin: invalidating(options.admin, registry), platformKey: options.adminKey, publicUrl, traffic: trafficSource(traffic), mail: mailTester(registry, mailer), portability });
  // Login failures are counted in the catalog, for the apps of every cluster.
  const throttle = new LoginThrottle(store, options.loginLimits);
  const directory = new SubscriberDirectory(store);
  installUpgrades(app, { maxPayload: bodyLimit });
  const persisted = new PersistedQueries();
  const onOperation = (operation: AnsweredOperation) => {
    metrics.operation(operation.type, operation.outcome, operation.seconds);
    traffic.record(operation);
  };
  const tokens = new UserTokenCache();
  app.addHook('onReady', async () => tokens.start(homes));
  app.addHook('onClose', async () => tokens.stop());
  const operations = new AppOperations({ registry, platformKey: options.adminKey, throttle, mailer, directory, persisted, oidc: options.oidc, functions: calling, blobsRemoved: wakeRemovers, tokens });
  const webSocket = installAppSubscriptions(app, {
    operations,
    listen: homes.listen,
    metrics: metrics.registry,
    originAllowed: (request) => allowedOrigin(cors, request),
    onConnectionClosed: (seconds) => metrics.record('GET', '/graphql/:appId', 101, seconds),
    onOperation,
    tracer: options.tracer,
    recheckMs: options.credentialRecheckMs ?? DEFAULT_RECHECK_MS,
    maxPendingEvents: options.maxPendingEvents ?? MAX_PENDING_EVENTS,
    maxCallersPerStatement: options.maxCallersPerStatement,
    directory,
  });
  // Registered after the WebSocket plugin, so that it sees the route's wsHandler.
  void app.register(async (scope) => {
    // Uploads: multipart bodies to the app endpoints stream their files into storage.
    // A server that keeps no files answers multipart bodies 415, as any other media type.
    if (storage) {
      installMultipart(scope, {
        registry,
        storage,
        fieldLimit: bodyLimit,
        identify: (live, authorization) => operations.identify(live, authorization),
        released: wakeRemovers,
        onError: (err) => app.log.warn({ err }, 'uploads not released'),
      });
    }
    installAppGraphql(scope, { operations, webSocket, onOperation, tracer: options.tracer });
  });
  installFileDownloads(app, { registry, signer, storage });
  installConsole(app);
  return app;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * The management service with this instance's cache of an app dropped as soon as a change to
 * it commits (other instances hear of it through the catalog notification).
 */
function invalidating(admin: AdminService, registry: AppRegistry): AdminService {
  const after = <A extends { appId: string }, R>(fn: (args: A) => Promise<R>) =>
    async (args: A): Promise<R> => {
      try {
        return await fn(args);
      } finally {
        registry.invalidate(args.appId);
      }
    };
  return {
    ...admin,
    migrateSchema: after(admin.migrateSchema.bind(admin)),
    updateApp: after(admin.updateApp.bind(admin)),
    deleteApp: after(admin.deleteApp.bind(admin)),
    moveApp: after(admin.moveApp.bind(admin)),
    revokeAdminToken: after(admin.revokeAdminToken.bind(admin)),
    rotateSigningKey: after(admin.rotateSigningKey.bind(admin)),
    setTrustedDocuments: after(admin.setTrustedDocuments.bind(admin)),
    createFunction: after(admin.createFunction.bind(admin)),
    updateFunction: after(admin.updateFunction.bind(admin)),
    deleteFunction: after(admin.deleteFunction.bind(admin)),
  };
}
