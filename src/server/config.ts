// Server configuration: command-line flags first, then TESSERA_* environment variables,
// then defaults. Invalid values are refused with a message naming the flag or variable.

import { resolve } from 'node:path';
import { LOGIN_LIMITS } from '../accounts/index.js';
import type { LoginLimit, LoginLimits } from '../accounts/index.js';
import { badInput } from '../errors/index.js';
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT } from '../local/index.js';
import { TEXT_SETTINGS, corsOriginProblem } from '../model/index.js';
import { MIN_SECRET_KEY_LENGTH } from '../secrets/index.js';
import type { TracingConfig } from './tracing.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fastify's `trustProxy`: off, on, a hop count, or the addresses/CIDR ranges to trust. */
export type TrustProxy = boolean | number | string[];

export interface ServerConfig {
  port: number;
  host: string;
  /** PostgreSQL connection string; when absent the embedded store in `dataDir` is used. */
  databaseUrl: string | undefined;
  /** Absolute path of the data directory (embedded store, generated platform key). */
  dataDir: string;
  /** The platform key from TESSERA_ADMIN_KEY, if given. */
  adminKey: string | undefined;
  /** Base URL for the endpoint URLs the API reports; derived from the listen address when absent. */
  publicUrl: string | undefined;
  trustProxy: TrustProxy;
  logLevel: LogLevel;
  /** Login throttling: failures allowed per username and address, per username, per address. */
  loginLimits: LoginLimits;
  /** The server's mail settings, for apps without their own (TESSERA_SMTP_URL, TESSERA_MAIL_FROM). */
  mail: { smtpUrl?: string; from?: string };
  /** Origins whose browser apps may call the APIs (TESSERA_CORS_ORIGINS); empty: none. */
  corsOrigins: string[];
  /** Connections in the PostgreSQL pool (TESSERA_DB_POOL_SIZE). */
  dbPoolSize: number;
  /** Counted uses a pooled PostgreSQL connection serves before it is replaced, 0 for never (TESSERA_DB_CONNECTION_USES; the store's `connectionUses`). */
  dbConnectionUses: number;
  /** Keep recurring statements prepared on each PostgreSQL connection (TESSERA_DB_PREPARED_STATEMENTS). */
  dbPreparedStatements: boolean;
  /** Connections of the pool kept as read lanes (TESSERA_DB_READ_LANES; the store's `readLanes`); undefined: the store's default. */
  dbReadLanes: number | undefined;
  /** Compress answers for clients that accept it (TESSERA_COMPRESSION). */
  compression: boolean;
  /** OpenTelemetry tracing (TESSERA_TRACING), with where spans go; undefined when off. */
  tracing: TracingConfig | undefined;
  /** The key sealing stored secrets (TESSERA_SECRET_KEY), if given; else a key file in the data directory. */
  secretKey: string | undefined;
  /** Whether outbound calls made for apps may reach private addresses (TESSERA_FUNCTIONS_ALLOW_PRIVATE). */
  allowPrivateNetworks: boolean;
  /** Where apps' file bytes go: an S3-compatible bucket (TESSERA_S3_*), else `<dataDir>/files`. */
  s3: S3Config | undefined;
  /** Budget of the loaded apps in MiB (TESSERA_APP_CACHE_MB). */
  appCacheMb: number;
}

/** An S3-compatible object store for files; credentials come from the usual AWS variables. */
export interface S3Config {
  bucket: string;
  endpoint: string | undefined;
  region: string | undefined;
  forcePathStyle: boolean;
}

/** Flags as parsed by the CLI; strings because that is what a command line holds. */
export interface ConfigFlags {
  port?: string | number | undefined;
  host?: string | undefined;
  dataDir?: string | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Platform keys given by the operator must be at least this long. */
export const MIN_ADMIN_KEY_LENGTH = 16;

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function parsePort(value: string | number, source: string): number {
  const text = String(value).trim();
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw badInput(`${source} must be a port number from 0 to 65535, got "${text}"`);
  }
  return port;
}

/**
 * Named ranges TESSERA_TRUST_PROXY may list (Fastify's proxy-addr knows them): `loopback`
 * (127.0.0.0/8, ::1), `linklocal`, and `uniquelocal` (10/8, 172.16/12, 192.168/16, fc00::/7 —
 * where a container's network puts the proxy in front of it).
 */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = present(value);
  if (text === undefined) return false;
  const lower = text.toLowerCase();
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  if (['true', 'yes', 'on'].includes(lower)) return true;
  if (/^\d+$/.test(text)) return Number(text);
  const list = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (list.some((entry) => !PROXY_RANGE_NAMES.has(entry.toLowerCase()) && !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry))) {
    throw badInput(
      `TESSERA_TRUST_PROXY must be "true", "false", a hop count, or a comma-separated list of addresses, CIDR ranges and ${[...PROXY_RANGE_NAMES].join('/')}, got "${text}"`,
    );
  }
  return list.map((entry) => (PROXY_RANGE_NAMES.has(entry.toLowerCase()) ? entry.toLowerCase() : entry));
}

function parseLogLevel(value: string | undefined): LogLevel {
  const text = present(value)?.toLowerCase() ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(text)) {
    throw badInput(`TESSERA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${text}"`);
  }
  return text as LogLevel;
}

function parsePublicUrl(value: string | undefined): string | undefined {
  const text = present(value);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badInput(`TESSERA_PUBLIC_URL must be an absolute http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badInput(`TESSERA_PUBLIC_URL must be an absolute http(s) URL, got "${text}"`);
  }
  return text.replace(/\/+$/, '');
}

const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A login limit written `<failures>/<window>`, e.g. `30/15m` (units s, m, h, d). */
export function parseLoginLimit(value: string | undefined, variable: string, fallback: LoginLimit): LoginLimit {
  const text = present(value);
  if (text === undefined) return fallback;
  const match = /^(\d{1,6})\s*\/\s*(\d{1,6})\s*([smhd])$/.exec(text);
  const points = Number(match?.[1]);
  const seconds = Number(match?.[2]) * (DURATION_UNITS[match?.[3] ?? ''] ?? NaN);
  if (!match || points < 1 || !(seconds >= 1) || seconds > 7 * 86400) {
    throw badInput(`${variable} must be <failures>/<window> with a window of 1 s to 7 d, e.g. "30/15m", got "${text}"`);
  }
  return { points, seconds };
}

function parseLoginLimits(env: Env): LoginLimits {
  return {
    perUserAndAddress: parseLoginLimit(env.TESSERA_LOGIN_LIMIT_USER_ADDRESS, 'TESSERA_LOGIN_LIMIT_USER_ADDRESS', LOGIN_LIMITS.perUserAndAddress),
    perUser: parseLoginLimit(env.TESSERA_LOGIN_LIMIT_USER, 'TESSERA_LOGIN_LIMIT_USER', LOGIN_LIMITS.perUser),
    perAddress: parseLoginLimit(env.TESSERA_LOGIN_LIMIT_ADDRESS, 'TESSERA_LOGIN_LIMIT_ADDRESS', LOGIN_LIMITS.perAddress),
  };
}

export const DEFAULT_DB_POOL_SIZE = 10;

function parsePoolSize(value: string | undefined): number {
  const text = present(value);
  if (text === undefined) return DEFAULT_DB_POOL_SIZE;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 1000)) throw badInput(`TESSERA_DB_POOL_SIZE must be a number of connections from 1 to 1000, got "${text}"`);
  return n;
}

/** The default of TESSERA_DB_CONNECTION_USES (the PostgreSQL store's CONNECTION_USES). */
export const DEFAULT_DB_CONNECTION_USES = 2_000;

function parseConnectionUses(value: string | undefined): number {
  const text = present(value);
  if (text === undefined) return DEFAULT_DB_CONNECTION_USES;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n === 0 || (n >= 100 && n <= 1_000_000_000))) {
    throw badInput(`TESSERA_DB_CONNECTION_USES must be 0 (never replace a connection) or a number of statements from 100 to 1000000000, got "${text}"`);
  }
  return n;
}

function parseReadLanes(value: string | undefined): number | undefined {
  const text = present(value);
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 100)) throw badInput(`TESSERA_DB_READ_LANES must be a number of connections from 0 to 100, got "${text}"`);
  return n;
}

/** Where spans go and how many, from the OpenTelemetry variables every SDK reads. */
function parseTracing(env: Record<string, string | undefined>): TracingConfig {
  const traces = present(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = present(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const endpoint = traces ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : 'http://localhost:4318/v1/traces');
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw badInput(`${traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http(s) URL, got "${endpoint}"`);
  }
  const ratioText = present(env.TESSERA_TRACING_RATIO);
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!(ratio >= 0 && ratio <= 1)) throw badInput(`TESSERA_TRACING_RATIO must be a number from 0 to 1, got "${ratioText}"`);
  return { endpoint, serviceName: present(env.OTEL_SERVICE_NAME) ?? 'tessera', ratio };
}

/** An on/off variable: `on`, `true`, `yes`, `1` or `off`, `false`, `no`, `0`; unset: the default. */
function parseSwitch(value: string | undefined, name: string, fallback: boolean): boolean {
  const text = present(value)?.toLowerCase();
  if (text === undefined) return fallback;
  if (['on', 'true', 'yes', '1'].includes(text)) return true;
  if (['off', 'false', 'no', '0'].includes(text)) return false;
  throw badInput(`${name} must be "on" or "off", got "${value}"`);
}

/** TESSERA_CORS_ORIGINS: comma-separated origins, or `*`. */
export function parseCorsOrigins(value: string | undefined): string[] {
  const text = present(value);
  if (text === undefined) return [];
  const origins = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const origin of origins) {
    const problem = corsOriginProblem(origin);
    if (problem) throw badInput(`TESSERA_CORS_ORIGINS: ${problem}`);
  }
  return [...new Set(origins)];
}

function parseAdminKey(value: string | undefined): string | undefined {
  const key = present(value);
  if (key !== undefined && key.length < MIN_ADMIN_KEY_LENGTH) {
    throw badInput(`TESSERA_ADMIN_KEY must be at least ${MIN_ADMIN_KEY_LENGTH} characters long`);
  }
  return key;
}

function parseSecretKey(value: string | undefined): string | undefined {
  const key = present(value);
  if (key !== undefined && key.length < MIN_SECRET_KEY_LENGTH) {
    throw badInput(`TESSERA_SECRET_KEY must be at least ${MIN_SECRET_KEY_LENGTH} characters long`);
  }
  return key;
}

/** Default budget of the loaded apps, in MiB (docs/scaling.md). */
export const DEFAULT_APP_CACHE_MB = 256;

function parseAppCacheMb(value: string | undefined): number {
  const text = present(value);
  if (text === undefined) return DEFAULT_APP_CACHE_MB;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 1_048_576)) throw badInput(`TESSERA_APP_CACHE_MB must be a whole number of MiB from 1 to 1048576, got "${text}"`);
  return n;
}

/** Reads the configuration; `cwd` anchors a relative data directory. */
export function loadConfig(flags: ConfigFlags, env: Env, cwd: string = process.cwd()): ServerConfig {
  const envPort = present(env.TESSERA_PORT);
  const port =
    flags.port !== undefined
      ? parsePort(flags.port, '--port')
      : envPort !== undefined
        ? parsePort(envPort, 'TESSERA_PORT')
        : DEFAULT_PORT;
  return {
    port,
    host: present(flags.host) ?? present(env.TESSERA_HOST) ?? DEFAULT_HOST,
    databaseUrl: present(env.DATABASE_URL),
    dataDir: resolve(cwd, present(flags.dataDir) ?? present(env.TESSERA_DATA_DIR) ?? DEFAULT_DATA_DIR),
    adminKey: parseAdminKey(env.TESSERA_ADMIN_KEY),
    publicUrl: parsePublicUrl(env.TESSERA_PUBLIC_URL),
    trustProxy: parseTrustProxy(env.TESSERA_TRUST_PROXY),
    logLevel: parseLogLevel(env.TESSERA_LOG_LEVEL),
    loginLimits: parseLoginLimits(env),
    mail: parseMail(env),
    corsOrigins: parseCorsOrigins(env.TESSERA_CORS_ORIGINS),
    dbPoolSize: parsePoolSize(env.TESSERA_DB_POOL_SIZE),
    dbConnectionUses: parseConnectionUses(env.TESSERA_DB_CONNECTION_USES),
    dbPreparedStatements: parseSwitch(env.TESSERA_DB_PREPARED_STATEMENTS, 'TESSERA_DB_PREPARED_STATEMENTS', true),
    dbReadLanes: parseReadLanes(env.TESSERA_DB_READ_LANES),
    compression: parseSwitch(env.TESSERA_COMPRESSION, 'TESSERA_COMPRESSION', false),
    tracing: parseSwitch(env.TESSERA_TRACING, 'TESSERA_TRACING', false) ? parseTracing(env) : undefined,
    secretKey: parseSecretKey(env.TESSERA_SECRET_KEY),
    allowPrivateNetworks: parseSwitch(env.TESSERA_FUNCTIONS_ALLOW_PRIVATE, 'TESSERA_FUNCTIONS_ALLOW_PRIVATE', false),
    s3: parseS3(env),
    appCacheMb: parseAppCacheMb(env.TESSERA_APP_CACHE_MB),
  };
}

/** TESSERA_S3_BUCKET selects S3 storage; the other TESSERA_S3_* variables need it. */
function parseS3(env: Env): S3Config | undefined {
  const bucket = present(env.TESSERA_S3_BUCKET);
  const endpoint = present(env.TESSERA_S3_ENDPOINT);
  const region = present(env.TESSERA_S3_REGION);
  const pathStyle = present(env.TESSERA_S3_FORCE_PATH_STYLE);
  if (bucket === undefined) {
    const stray = endpoint !== undefined ? 'TESSERA_S3_ENDPOINT' : region !== undefined ? 'TESSERA_S3_REGION' : pathStyle !== undefined ? 'TESSERA_S3_FORCE_PATH_STYLE' : undefined;
    if (stray) throw badInput(`${stray} is set but TESSERA_S3_BUCKET is not: name the bucket files go to`);
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw badInput(`TESSERA_S3_BUCKET must be a bucket name (3 to 63 lower-case letters, digits, dots and hyphens), got "${bucket}"`);
  if (endpoint !== undefined && (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol))) {
    throw badInput(`TESSERA_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  }
  return { bucket, endpoint, region, forcePathStyle: parseSwitch(pathStyle, 'TESSERA_S3_FORCE_PATH_STYLE', false) };
}

/** TESSERA_SMTP_URL (smtp:// or smtps://) and TESSERA_MAIL_FROM, each optional. */
function parseMail(env: NodeJS.ProcessEnv): { smtpUrl?: string; from?: string } {
  const smtpUrl = present(env.TESSERA_SMTP_URL);
  const from = present(env.TESSERA_MAIL_FROM);
  const urlProblem = smtpUrl === undefined ? undefined : TEXT_SETTINGS.smtpUrl?.problem?.(smtpUrl);
  if (urlProblem) throw badInput(`TESSERA_SMTP_URL: ${urlProblem}`);
  const fromProblem = from === undefined ? undefined : TEXT_SETTINGS.mailFrom?.problem?.(from);
  if (fromProblem) throw badInput(`TESSERA_MAIL_FROM: ${fromProblem}`);
  return { ...(smtpUrl === undefined ? {} : { smtpUrl }), ...(from === undefined ? {} : { from }) };
}

/** The base URL clients reach a server listening on `host:port` at (used when no public URL is set). */
export function defaultPublicUrl(host: string, port: number): string {
  // A wildcard address is not somewhere a client can connect to; the loopback name is.
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}
