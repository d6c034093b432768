// What a CLI command may touch of its surroundings: output streams, environment, working
// directory. Passed in, so the commands stay plain functions of their input.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import type { Env } from '../server/index.js';

export interface CliIo {
  /** Writes to standard output; the text carries its own newlines. */
  stdout(text: string): void;
  stderr(text: string): void;
  env: Env;
  cwd: string;
}

/** The variables of a `.env` file in `dir` (as `tessera init` writes one), or none. */
export function dotEnv(dir: string): Env {
  let text: string;
  try {
    text = readFileSync(join(dir, '.env'), 'utf8');
  } catch {
    return {};
  }
  return parseEnv(text);
}

export function processIo(): CliIo {
  const cwd = process.cwd();
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    // A `.env` in the working directory fills in what the environment does not set.
    env: { ...dotEnv(cwd), ...process.env },
    cwd,
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
