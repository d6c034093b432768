// The `tessera` command's entry point: runs the command line and turns every failure into
// one `tessera: …` line on stderr and a non-zero exit code, never a stack trace.

import { CommanderError } from 'commander';
import { CliError, processIo } from './io.js';
import type { CliIo } from './io.js';
import { buildProgram } from './program.js';

export type { CliIo } from './io.js';
export { CliError } from './io.js';

/**
 * Runs `argv` (as in process.argv: node, script, args…) and resolves to the exit code. For
 * `dev` and `serve` it resolves once the server listens; the server's signal handlers end the process.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'node' });
    return 0;
  } catch (err) {
    // Commander has already printed its message (or the help / version it was asked for).
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      io.stderr(`tessera: ${err.message}\n`);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`tessera: ${message.split('\n')[0] ?? 'unexpected error'}\n`);
    return 1;
  }
}
