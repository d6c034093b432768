// The `tessera` command tree: commander configured so help goes to stdout, errors become one
// `tessera: …` line on stderr, and nothing calls process.exit behind main's back.

import { Command } from 'commander';
import { registerAppCommands } from './commands/app.js';
import { registerClusterCommands } from './commands/cluster.js';
import { registerDocumentCommands } from './commands/documents.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerInitCommand } from './commands/init.js';
import { registerOidcCommands } from './commands/oidc.js';
import { registerFunctionCommands } from './commands/functions.js';
import { registerPortabilityCommands } from './commands/portability.js';
import { registerSchemaCommands } from './commands/schema.js';
import { registerServerCommands } from './commands/server.js';
import { registerTokenCommands } from './commands/token.js';
import type { CliIo } from './io.js';
import { packageVersion } from '../build/index.js';

/** Commander's own messages ("error: unknown option '--x'") as one `tessera:` line. */
export function commanderErrorLine(text: string): string {
  const line = text.replace(/^error:\s*/i, '').replace(/\s*\n\s*/g, ' ').trim();
  return `tessera: ${line}\n`;
}

export function buildProgram(io: CliIo): Command {
  const program = new Command('tessera');
  // Set before any subcommand is added: subcommands copy these settings when created.
  program
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(commanderErrorLine(text)),
    })
    .showSuggestionAfterError(true);

  program
    .description('Tessera: a self-hosted GraphQL backend. Write a data schema, get a complete GraphQL API.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText(
      'after',
      '\nClient commands (app, cluster, schema, token, oidc, documents) reach the server at --url / TESSERA_URL (default http://127.0.0.1:4000)\nwith the platform key from --admin-key / TESSERA_ADMIN_KEY / ./.tessera/admin-key.',
    );

  registerServerCommands(program, io);
  registerAppCommands(program, io);
  registerClusterCommands(program, io);
  registerPortabilityCommands(program, io);
  registerSchemaCommands(program, io);
  registerTokenCommands(program, io);
  registerOidcCommands(program, io);
  registerFunctionCommands(program, io);
  registerDocumentCommands(program, io);
  registerInitCommand(program, io);
  registerCompletionCommand(program, io);
  return program;
}
