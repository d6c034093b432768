// The server's secret key, which seals the secrets it must read back (OpenID providers' client
// secrets) before they are stored: TESSERA_SECRET_KEY, or generated at the first start into
// `<data dir>/secret-key` (mode 0600) beside the platform key — never in the database, so a
// copy of the database alone opens nothing. Every instance of a deployment needs the same key.

import { generateSecretKey } from '../secrets/index.js';
import { keyFromFile } from './platformKey.js';

export const SECRET_KEY_FILE = 'secret-key';

export interface SecretKey {
  key: string;
  /** `env`: TESSERA_SECRET_KEY; `file`: read from, or generated into, `path`. */
  source: 'env' | 'file';
  path?: string;
  generated: boolean;
}

/** TESSERA_SECRET_KEY if given, else `<dataDir>/secret-key`, else a new key written there with mode 0600. */
export async function resolveSecretKey(options: { secretKey: string | undefined; dataDir: string }): Promise<SecretKey> {
  if (options.secretKey !== undefined) return { key: options.secretKey, source: 'env', generated: false };
  const found = await keyFromFile(options.dataDir, SECRET_KEY_FILE, generateSecretKey);
  return { ...found, source: 'file' };
}
