// Turns the management API's structured refusals into terminal output: every schema problem
// as FILE:line:column, every refused destructive step, then one summary line as the error.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RemoteError } from './client.js';
import { planLine, plural, problemLine, problemsOf, stepsOf } from './format.js';
import { CliError } from './io.js';
import type { CliIo } from './io.js';

/** Reads a schema file named on the command line; failures become one line naming the file. */
export async function readSchemaFile(file: string, io: CliIo): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? String(err));
    throw new CliError(`cannot read schema file ${file}: ${reason}`);
  }
}

/** Prints the detail of a schema-related refusal to stderr and returns the one-line error to throw. */
export function explainSchemaError(err: unknown, file: string, io: CliIo): unknown {
  if (!(err instanceof RemoteError)) return err;
  if (err.code === 'SCHEMA_INVALID') {
    const problems = problemsOf(err.extensions);
    for (const problem of problems) io.stderr(`${problemLine(file, problem)}\n`);
    return new CliError(`${file} is not a valid schema (${plural(problems.length, 'problem')})`);
  }
  if (err.code === 'DESTRUCTIVE_CHANGE') {
    const steps = stepsOf(err.extensions);
    for (const step of steps) io.stderr(`${planLine(step)}\n`);
    return new CliError(
      `refused ${plural(steps.length, 'destructive step')}; nothing was applied (push again with --allow-destructive to apply)`,
    );
  }
  return err;
}
