// Where the client commands find the server and the platform key: flags, then TESSERA_URL /
// TESSERA_ADMIN_KEY, then defaults (the local server, the key file of the local data dir).

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT, adminKeyPath } from '../local/index.js';
import type { Env } from '../server/index.js';
import { CliError } from './io.js';

export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

export interface ConnectionFlags {
  url?: string | undefined;
  adminKey?: string | undefined;
}

export interface Connection {
  /** Base URL of the server, without a trailing slash. */
  url: string;
  key: string;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function readLocalKey(env: Env, cwd: string): string | undefined {
  const path = adminKeyPath(resolve(cwd, present(env.TESSERA_DATA_DIR) ?? DEFAULT_DATA_DIR));
  try {
    return present(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

export function resolveConnection(flags: ConnectionFlags, env: Env, cwd: string): Connection {
  const url = present(flags.url) ?? present(env.TESSERA_URL) ?? DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`invalid server URL "${url}": expected http://host:port`);
  }
  const key = present(flags.adminKey) ?? present(env.TESSERA_ADMIN_KEY) ?? readLocalKey(env, cwd);
  if (key === undefined) {
    throw new CliError(
      'no platform key: pass --admin-key, set TESSERA_ADMIN_KEY, or run where the server keeps it (.tessera/admin-key)',
    );
  }
  return { url: url.replace(/\/+$/, ''), key };
}
