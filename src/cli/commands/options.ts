// Options shared by the client commands: where the server is and which platform key to send.

import type { Command } from 'commander';
import { resolveConnection } from '../connection.js';
import type { Connection } from '../connection.js';
import type { CliIo } from '../io.js';

export function withConnectionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'server URL (default: TESSERA_URL, else http://127.0.0.1:4000)')
    .option('--admin-key <key>', 'platform key (default: TESSERA_ADMIN_KEY, else the key file in TESSERA_DATA_DIR or ./.tessera)');
}

export function connectionOf(command: Command, io: CliIo): Connection {
  const options = command.opts<{ url?: string; adminKey?: string }>();
  return resolveConnection(options, io.env, io.cwd);
}
