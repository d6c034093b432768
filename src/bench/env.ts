// Settings of the benchmark sections from the environment, checked before anything runs.

import { LOG_LEVELS } from '../server/index.js';
import type { LogLevel } from '../server/index.js';

/** A positive number from the environment variable `name`, or `fallback` when it is not set. */
export function numberFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${text}"`);
  return n;
}

/** The server logs as `tessera serve` does by default (info), unless TESSERA_LOG_LEVEL says otherwise. */
export function logLevel(): LogLevel {
  const text = process.env.TESSERA_LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new Error(`TESSERA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return text as LogLevel;
}
