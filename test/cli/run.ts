// Runs the built `tessera` command as a child process, as a user would: one-shot commands
// collected to completion, and `tessera serve` kept running until the test stops it.

import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '../../bin/tessera.js');

if (!existsSync(join(import.meta.dirname, '../../dist/cli/index.js'))) {
  throw new Error('dist/ is missing: run `npm run build` (npm test does) before the CLI tests');
}

/** The parent's environment without any Tessera setting, so tests start from a clean slate. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('TESSERA_') && name !== 'DATABASE_URL') env[name] = value;
  }
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `nodeArgs`: options for Node itself, before the script (e.g. `--import` of a hook). */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; nodeArgs?: string[] } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], { env: options.env ?? cleanEnv(), cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServeChild {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** Everything printed to stdout up to now. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts `tessera <command> --port 0 …` and waits for the line that names its URL. */
export function startServe(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<ServeChild> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [BIN, ...args, '--port', '0'], { env, cwd: options.cwd });
  let stdout = '';
  let stderr = '';
  // 'close', not 'exit': it comes once the output pipes are drained too, so nothing printed is missed.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // The start-up banner goes to stderr (stdout carries JSON log lines only).
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /^Tessera listening on (http:\/\/\S+)$/m.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stdout: () => stdout, stderr: () => stderr, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stdout}\n${stderr}`));
    });
  });
}

/** Waits until `read()` contains `text`: stdout and stderr are separate pipes, read in no set order. */
export async function waitForText(read: () => string, text: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!read().includes(text)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)} in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}
