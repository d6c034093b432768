// Where a local Tessera lives when nothing says otherwise: the address its server listens on,
// the directory it keeps its data in, and the platform key file there. The server starts with
// these defaults and the CLI's client commands find that server and its key with them, without
// loading the server itself.

import { join } from 'node:path';

export const DEFAULT_PORT = 4000;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_DATA_DIR = '.tessera';

/** The file in the data directory that holds a generated platform key. */
export const ADMIN_KEY_FILE = 'admin-key';

export function adminKeyPath(dataDir: string): string {
  return join(dataDir, ADMIN_KEY_FILE);
}
