// Configuration and the platform key: flag/env precedence and validation, key file creation
// (mode 0600, reused on the next start), and the constant-time comparison.

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keysMatch, loadConfig, resolvePlatformKey, resolveSecretKey } from '../../src/server/index.js';

describe('loadConfig', () => {
  it('has development defaults', () => {
    expect(loadConfig({}, {}, '/srv')).toEqual({
      port: 4000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: '/srv/.tessera',
      adminKey: undefined,
      publicUrl: undefined,
      trustProxy: false,
      logLevel: 'info',
      loginLimits: {
        perUserAndAddress: { points: 10, seconds: 900 },
        perUser: { points: 30, seconds: 900 },
        perAddress: { points: 100, seconds: 3600 },
      },
      corsOrigins: [],
      mail: {},
      dbPoolSize: 10,
      dbConnectionUses: 2000,
      dbPreparedStatements: true,
      dbReadLanes: undefined,
      compression: false,
      tracing: undefined,
      secretKey: undefined,
      allowPrivateNetworks: false,
      appCacheMb: 256,
    });
  });

  it('reads TESSERA_* variables, and flags win over them', () => {
    const env = {
      TESSERA_PORT: '8080',
      TESSERA_HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://db/tessera',
      TESSERA_DATA_DIR: 'data',
      TESSERA_ADMIN_KEY: 'a-long-enough-platform-key',
      TESSERA_PUBLIC_URL: 'https://api.example.com/',
      TESSERA_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
      TESSERA_LOG_LEVEL: 'warn',
      TESSERA_LOGIN_LIMIT_USER_ADDRESS: '5/10m',
      TESSERA_LOGIN_LIMIT_USER: '50 / 1h',
      TESSERA_LOGIN_LIMIT_ADDRESS: '1000/1d',
      TESSERA_CORS_ORIGINS: 'https://app.example.com, http://localhost:3000,https://app.example.com',
      TESSERA_DB_POOL_SIZE: '25',
      TESSERA_DB_CONNECTION_USES: '0',
      TESSERA_DB_PREPARED_STATEMENTS: 'off',
      TESSERA_DB_READ_LANES: '4',
      TESSERA_COMPRESSION: 'yes',
      TESSERA_TRACING: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'api',
      TESSERA_TRACING_RATIO: '0.1',
      TESSERA_SMTP_URL: 'smtp://mailer:pw@mail.example.com:587',
      TESSERA_MAIL_FROM: 'Example <noreply@example.com>',
      TESSERA_SECRET_KEY: 'a-secret-key-of-at-least-32-characters',
      TESSERA_FUNCTIONS_ALLOW_PRIVATE: 'true',
      TESSERA_APP_CACHE_MB: '64',
    };
    expect(loadConfig({}, env, '/srv')).toEqual({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://db/tessera',
      dataDir: '/srv/data',
      adminKey: 'a-long-enough-platform-key',
      publicUrl: 'https://api.example.com',
      trustProxy: ['10.0.0.0/8', '127.0.0.1'],
      logLevel: 'warn',
      loginLimits: {
        perUserAndAddress: { points: 5, seconds: 600 },
        perUser: { points: 50, seconds: 3600 },
        perAddress: { points: 1000, seconds: 86400 },
      },
      corsOrigins: ['https://app.example.com', 'http://localhost:3000'],
      mail: { smtpUrl: 'smtp://mailer:pw@mail.example.com:587', from: 'Example <noreply@example.com>' },
      dbPoolSize: 25,
      dbConnectionUses: 0,
      dbPreparedStatements: false,
      dbReadLanes: 4,
      compression: true,
      tracing: { endpoint: 'http://collector:4318/v1/traces', serviceName: 'api', ratio: 0.1 },
      secretKey: 'a-secret-key-of-at-least-32-characters',
      allowPrivateNetworks: true,
      appCacheMb: 64,
    });
    expect(loadConfig({ port: '0', host: '::1' }, env, '/srv')).toMatchObject({ port: 0, host: '::1' });
  });

  it.each([
    [{ port: '70000' }, {}, '--port'],
    [{}, { TESSERA_PORT: 'http' }, 'TESSERA_PORT'],
    [{}, { TESSERA_LOG_LEVEL: 'loud' }, 'TESSERA_LOG_LEVEL'],
    [{}, { TESSERA_PUBLIC_URL: 'ftp://x' }, 'TESSERA_PUBLIC_URL'],
    [{}, { TESSERA_ADMIN_KEY: 'short' }, 'TESSERA_ADMIN_KEY'],
    [{}, { TESSERA_TRUST_PROXY: 'sometimes' }, 'TESSERA_TRUST_PROXY'],
    [{}, { TESSERA_LOGIN_LIMIT_USER: '30' }, 'TESSERA_LOGIN_LIMIT_USER'],
    [{}, { TESSERA_LOGIN_LIMIT_USER: '0/15m' }, 'TESSERA_LOGIN_LIMIT_USER'],
    [{}, { TESSERA_LOGIN_LIMIT_ADDRESS: '100/8d' }, 'TESSERA_LOGIN_LIMIT_ADDRESS'],
    [{}, { TESSERA_LOGIN_LIMIT_USER_ADDRESS: '10/15 minutes' }, 'TESSERA_LOGIN_LIMIT_USER_ADDRESS'],
    [{}, { TESSERA_CORS_ORIGINS: 'https://app.example.com/' }, 'TESSERA_CORS_ORIGINS'],
    [{}, { TESSERA_CORS_ORIGINS: 'app.example.com' }, 'TESSERA_CORS_ORIGINS'],
    [{}, { TESSERA_DB_POOL_SIZE: '0' }, 'TESSERA_DB_POOL_SIZE'],
    [{}, { TESSERA_DB_POOL_SIZE: 'many' }, 'TESSERA_DB_POOL_SIZE'],
    [{}, { TESSERA_DB_CONNECTION_USES: '10' }, 'TESSERA_DB_CONNECTION_USES'],
    [{}, { TESSERA_DB_CONNECTION_USES: '-1' }, 'TESSERA_DB_CONNECTION_USES'],
    [{}, { TESSERA_DB_PREPARED_STATEMENTS: 'sometimes' }, 'TESSERA_DB_PREPARED_STATEMENTS'],
    [{}, { TESSERA_DB_READ_LANES: '101' }, 'TESSERA_DB_READ_LANES'],
    [{}, { TESSERA_DB_READ_LANES: 'two' }, 'TESSERA_DB_READ_LANES'],
    [{}, { TESSERA_SMTP_URL: 'http://mail.example.com' }, 'TESSERA_SMTP_URL'],
    [{}, { TESSERA_MAIL_FROM: 'nobody' }, 'TESSERA_MAIL_FROM'],
    [{}, { TESSERA_SECRET_KEY: 'too-short-for-a-key' }, 'TESSERA_SECRET_KEY'],
    [{}, { TESSERA_FUNCTIONS_ALLOW_PRIVATE: 'maybe' }, 'TESSERA_FUNCTIONS_ALLOW_PRIVATE'],
    [{}, { TESSERA_APP_CACHE_MB: '0' }, 'TESSERA_APP_CACHE_MB'],
    [{}, { TESSERA_APP_CACHE_MB: '1.5' }, 'TESSERA_APP_CACHE_MB'],
  ])('refuses %o %o naming %s', (flags, env, name) => {
    expect(() => loadConfig(flags, env)).toThrow(name);
  });

  it('parses TESSERA_TRUST_PROXY', () => {
    expect(loadConfig({}, { TESSERA_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({}, { TESSERA_TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({}, { TESSERA_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({}, { TESSERA_TRUST_PROXY: 'Loopback, uniquelocal,192.0.2.1' }).trustProxy).toEqual(['loopback', 'uniquelocal', '192.0.2.1']);
    expect(() => loadConfig({}, { TESSERA_TRUST_PROXY: 'localhost' })).toThrow(/TESSERA_TRUST_PROXY/);
  });
});

describe('platform key', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is generated once into <dataDir>/admin-key with mode 0600, then reused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-key-'));
    const dataDir = join(dir, 'nested', 'data');
    const first = await resolvePlatformKey({ adminKey: undefined, dataDir });
    expect(first).toMatchObject({ source: 'file', path: join(dataDir, 'admin-key'), generated: true });
    expect(first.key).toMatch(/^tsk_[A-Za-z0-9_-]{43}$/);
    expect((await stat(join(dataDir, 'admin-key'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dataDir, 'admin-key'), 'utf8')).trim()).toBe(first.key);
    const second = await resolvePlatformKey({ adminKey: undefined, dataDir });
    expect(second).toEqual({ ...first, generated: false });
  });

  it('comes from TESSERA_ADMIN_KEY when given, touching no file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-key-'));
    const key = await resolvePlatformKey({ adminKey: 'operator-chosen-key', dataDir: join(dir, 'data') });
    expect(key).toEqual({ key: 'operator-chosen-key', source: 'env', generated: false });
    await expect(stat(join(dir, 'data'))).rejects.toThrow();
  });

  it('refuses an empty key file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-key-'));
    await writeFile(join(dir, 'admin-key'), '\n');
    await expect(resolvePlatformKey({ adminKey: undefined, dataDir: dir })).rejects.toThrow('empty');
  });

  it('compares keys by content only', () => {
    expect(keysMatch('tsk_abc', 'tsk_abc')).toBe(true);
    expect(keysMatch('tsk_abd', 'tsk_abc')).toBe(false);
    expect(keysMatch('tsk_ab', 'tsk_abc')).toBe(false);
    expect(keysMatch('', 'tsk_abc')).toBe(false);
  });
});

describe('secret key', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is generated once into <dataDir>/secret-key with mode 0600, beside the platform key, then reused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-key-'));
    const first = await resolveSecretKey({ secretKey: undefined, dataDir: dir });
    expect(first).toMatchObject({ source: 'file', path: join(dir, 'secret-key'), generated: true });
    expect(first.key).toMatch(/^tsec_[A-Za-z0-9_-]{43}$/);
    expect((await stat(join(dir, 'secret-key'))).mode & 0o777).toBe(0o600);
    expect(await resolveSecretKey({ secretKey: undefined, dataDir: dir })).toEqual({ ...first, generated: false });
    expect((await resolvePlatformKey({ adminKey: undefined, dataDir: dir })).key).not.toBe(first.key);
  });

  it('comes from TESSERA_SECRET_KEY when given, touching no file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-key-'));
    const key = await resolveSecretKey({ secretKey: 'an-operator-chosen-secret-key-0123456789', dataDir: join(dir, 'data') });
    expect(key).toEqual({ key: 'an-operator-chosen-secret-key-0123456789', source: 'env', generated: false });
    await expect(stat(join(dir, 'data'))).rejects.toThrow();
  });
});
