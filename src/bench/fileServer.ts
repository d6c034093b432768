// A Tessera server keeping files on disk, in a child process of its own, for the files bench:
// its memory (peak resident set included) is its own, apart from the client that uploads.
// Started with the data directory and platform key as arguments; says its port on stdout.

import { join } from 'node:path';
import { createAdminService } from '../admin/index.js';
import { DiskStorage } from '../files/index.js';
import { createServer } from '../server/index.js';
import { ensureCatalog, openStore } from '../store/index.js';

const [dataDir, adminKey, databaseUrl] = process.argv.slice(2);
if (!dataDir || !adminKey) throw new Error('usage: fileServer.js <data dir> <platform key> [database url]');
const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir: join(dataDir, 'db') });
await ensureCatalog(store);
const app = createServer({
  store,
  admin: createAdminService(store),
  adminKey,
  logLevel: 'warn',
  logDestination: { write: () => undefined },
  files: { storage: new DiskStorage(join(dataDir, 'files')) },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('no TCP address');
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => store.close()).then(() => process.exit(0));
});
