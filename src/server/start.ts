// Runs a server from its configuration: platform key, store and catalog, listen, and the
// SIGTERM/SIGINT handlers that stop accepting, finish in-flight requests and close the store.

import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createAdminService } from '../admin/index.js';
import type { AdminService } from '../admin/index.js';
import { Clusters, ensureCatalog, openStore } from '../store/index.js';
import type { Store } from '../store/index.js';
import { defaultPublicUrl } from './config.js';
import type { ServerConfig } from './config.js';
import { resolvePlatformKey } from './platformKey.js';
import type { PlatformKey } from './platformKey.js';
import { resolveSecretKey } from './secretKey.js';
import type { SecretKey } from './secretKey.js';
import { OidcRelyingParty } from '../oidc/index.js';
import { SecretBox } from '../secrets/index.js';
import { DiskStorage, openS3Storage } from '../files/index.js';
import type { BlobStorage } from '../files/index.js';
import { createServer } from './server.js';
import type { LogDestination } from './server.js';
import { startTracing } from './tracing.js';
import { packageVersion } from '../build/index.js';

/** How long in-flight requests get to finish after a shutdown signal before the process gives up. */
export const SHUTDOWN_GRACE_MS = 30_000;

export interface RunningServer {
  app: FastifyInstance;
  /** Where the server listens, e.g. `http://127.0.0.1:4000` (the real port when 0 was asked for). */
  url: string;
  /** The base URL endpoint URLs are reported under. */
  publicUrl: string;
  store: Store;
  admin: AdminService;
  platformKey: PlatformKey;
  /** The key sealing stored secrets. */
  secretKey: SecretKey;
  /** Stops accepting connections, lets in-flight requests finish, closes the store. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Install SIGTERM/SIGINT handlers that stop the server and exit the process (default true). */
  handleSignals?: boolean;
  logDestination?: LogDestination;
}

function listenError(err: unknown, config: ServerConfig): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new Error(`port ${config.port} on ${config.host} is already in use (choose another with --port or TESSERA_PORT)`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new Error(`cannot listen on host "${config.host}" (check --host or TESSERA_HOST)`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Fails at once when the address is taken or unusable, before a key file, a data directory or a
 * store is made: a busy port is reported in a moment, not after the store has opened.
 */
async function checkAddress(config: ServerConfig): Promise<void> {
  if (config.port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (err) => reject(listenError(err, config)));
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

async function openConfiguredStore(config: ServerConfig): Promise<Store> {
  const store = await openStore(config.databaseUrl ? { databaseUrl: config.databaseUrl, maxConnections: config.dbPoolSize, connectionUses: config.dbConnectionUses, preparedStatements: config.dbPreparedStatements, readLanes: config.dbReadLanes } : { dataDir: config.dataDir });
  try {
    await ensureCatalog(store);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

/** Apps' file bytes: the configured S3 bucket, or `<data dir>/files`. */
async function fileStorage(config: ServerConfig): Promise<BlobStorage> {
  if (config.s3) return openS3Storage({ bucket: config.s3.bucket, endpoint: config.s3.endpoint, region: config.s3.region, forcePathStyle: config.s3.forcePathStyle });
  return new DiskStorage(join(config.dataDir, 'files'));
}

function installSignalHandlers(running: RunningServer): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    const log = running.app.log;
    if (stopping) {
      log.warn({ signal }, 'second shutdown signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      log.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown grace period over: exiting with requests unfinished');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    deadline.unref();
    running.stop().then(
      () => {
        log.info('shutdown complete');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  await checkAddress(config);
  const platformKey = await resolvePlatformKey({ adminKey: config.adminKey, dataDir: config.dataDir });
  const secretKey = await resolveSecretKey({ secretKey: config.secretKey, dataDir: config.dataDir });
  const store = await openConfiguredStore(config);
  const oidc = new OidcRelyingParty({ secrets: new SecretBox(secretKey.key), outbound: { allowPrivate: config.allowPrivateNetworks } });
  const functions = { secrets: new SecretBox(secretKey.key), allowPrivate: config.allowPrivateNetworks };
  // Cluster URLs are sealed under the secret key, like every other stored secret.
  const clusters = new Clusters(store, {
    sealer: new SecretBox(secretKey.key),
    poolSize: config.dbPoolSize,
    connectionUses: config.dbConnectionUses,
    preparedStatements: config.dbPreparedStatements,
    readLanes: config.dbReadLanes,
    onOpenError: (cluster, err) => app.log.error({ err, cluster }, 'a cluster could not be opened: its apps answer UNAVAILABLE'),
  });
  const admin = createAdminService(clusters, { oidc, functions });
  const tracing = config.tracing ? await startTracing(config.tracing, packageVersion()) : undefined;
  const app = createServer({
    store,
    clusters,
    admin,
    adminKey: platformKey.key,
    publicUrl: config.publicUrl,
    logLevel: config.logLevel,
    trustProxy: config.trustProxy,
    loginLimits: config.loginLimits,
    mail: config.mail,
    corsOrigins: config.corsOrigins,
    compression: config.compression,
    tracer: tracing?.tracer,
    oidc,
    functions,
    files: { storage: await fileStorage(config), secret: secretKey.key },
    secretKey: secretKey.key,
    appCacheBytes: config.appCacheMb * 1024 * 1024,
    ...(options.logDestination ? { logDestination: options.logDestination } : {}),
  });
  // Closing the app (after in-flight requests) closes the store, whoever triggers it.
  app.addHook('onClose', async () => {
    await store.close();
    // The spans of the last requests are sent before the process exits.
    await tracing?.shutdown().catch(() => undefined);
  });

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw listenError(err, config);
  }
  const address = app.server.address() as AddressInfo;
  const url = defaultPublicUrl(address.address, address.port);
  const running: RunningServer = {
    app,
    url,
    publicUrl: config.publicUrl ?? url,
    store,
    admin,
    platformKey,
    secretKey,
    stop: () => app.close(),
  };
  if (options.handleSignals ?? true) installSignalHandlers(running);
  return running;
}
