// Per-application settings: limits and behaviour an operator can tune per app.
// Stored in the catalog as JSON; missing keys take the defaults below.

export interface AppSettings {
  /** Lifetime of user tokens issued by `loginUser`/`createUser`. */
  tokenLifetimeSeconds: number;
  defaultPageSize: number;
  maxPageSize: number;
  maxDepth: number;
  maxAliases: number;
  /** Most directives (`@skip`, `@include`, …) one operation may use. */
  maxDirectives: number;
  maxTokens: number;
  maxCost: number;
  introspection: boolean;
  fieldSuggestions: boolean;
  statementTimeoutMs: number;
}

export const DEFAULT_SETTINGS: Readonly<AppSettings> = Object.freeze({
  tokenLifetimeSeconds: 15 * 24 * 3600,
  defaultPageSize: 100,
  maxPageSize: 1000,
  maxDepth: 15,
  maxAliases: 30,
  maxDirectives: 50,
  maxTokens: 5000,
  maxCost: 50000,
  introspection: true,
  fieldSuggestions: true,
  statementTimeoutMs: 10_000,
});

/** Bounds each numeric setting may take; out-of-range input is refused, not clamped. */
export const SETTING_BOUNDS: Readonly<Record<string, readonly [number, number]>> = Object.freeze({
  tokenLifetimeSeconds: [60, 365 * 24 * 3600],
  defaultPageSize: [1, 10_000],
  maxPageSize: [1, 10_000],
  maxDepth: [1, 100],
  maxAliases: [1, 1000],
  maxDirectives: [1, 1000],
  maxTokens: [100, 100_000],
  maxCost: [1, 10_000_000],
  statementTimeoutMs: [100, 300_000],
});

export function withDefaults(stored: Partial<AppSettings> | null | undefined): AppSettings {
  return { ...DEFAULT_SETTINGS, ...(stored ?? {}) };
}
