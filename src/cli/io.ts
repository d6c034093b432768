// What a CLI command may touch of its surroundings: output streams, environment, working
// directory. Passed in, so the commands stay plain functions of their input.

import type { Env } from '../server/index.js';

export interface CliIo {
  /** Writes to standard output; the text carries its own newlines. */
  stdout(text: string): void;
  stderr(text: string): void;
  env: Env;
  cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * A failure already explained to the user: `main` prints `tessera: <message>` and exits with
 * `exitCode`. Lines a command printed before throwing (schema problems, refused steps) stay.
 */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
