// The platform key that guards the management API: where it comes from (environment, key
// file, or generated at first start) and how a presented key is compared with it.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ADMIN_KEY_FILE } from '../local/index.js';
import { sha256Bytes } from '../store/index.js';

export interface PlatformKey {
  key: string;
  /** `env`: TESSERA_ADMIN_KEY; `file`: read from, or generated into, `path`. */
  source: 'env' | 'file';
  path?: string;
  /** True when the key was created by this call; the caller shows it once. */
  generated: boolean;
}

/** A fresh platform key: 32 random bytes, base64url, prefixed so it is recognisable in a leak scan. */
export function generatePlatformKey(): string {
  return `tsk_${randomBytes(32).toString('base64url')}`;
}

async function readKeyFile(path: string): Promise<string | undefined> {
  try {
    const key = (await readFile(path, 'utf8')).trim();
    if (key === '') throw new Error(`The platform key file ${path} is empty; delete it to generate a new key`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The key kept in `<dataDir>/<file>`, or a new one from `generate` written there with mode 0600
 * (the data directory is created 0700). Several processes starting at once agree on one key.
 */
export async function keyFromFile(dataDir: string, file: string, generate: () => string): Promise<{ key: string; path: string; generated: boolean }> {
  const path = join(dataDir, file);
  const existing = await readKeyFile(path);
  if (existing !== undefined) return { key: existing, path, generated: false };

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const key = generate();
  try {
    // `wx` fails if another process created the file meanwhile; then its key is the one.
    await writeFile(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const raced = await readKeyFile(path);
    if (raced !== undefined) return { key: raced, path, generated: false };
    throw err;
  }
  return { key, path, generated: true };
}

/** TESSERA_ADMIN_KEY if given, else `<dataDir>/admin-key`, else a new key written there with mode 0600. */
export async function resolvePlatformKey(options: { adminKey: string | undefined; dataDir: string }): Promise<PlatformKey> {
  if (options.adminKey !== undefined) return { key: options.adminKey, source: 'env', generated: false };
  const found = await keyFromFile(options.dataDir, ADMIN_KEY_FILE, generatePlatformKey);
  return { ...found, source: 'file' };
}

/** The key last compared against and its digest: the platform key, the same on every call. */
let expectedKey: string | undefined;
let expectedDigest: Buffer = Buffer.alloc(0);

/** Compares a presented key with the platform key in time independent of where they differ. */
export function keysMatch(presented: string, expected: string): boolean {
  if (expected !== expectedKey) {
    expectedDigest = sha256Bytes(expected);
    expectedKey = expected;
  }
  // Hashing first gives both sides the same length, so neither length nor content leaks.
  return timingSafeEqual(sha256Bytes(presented), expectedDigest);
}
