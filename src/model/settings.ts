// Per-application settings: limits and behaviour an operator can tune per app.
// Stored in the catalog as JSON; missing keys take the defaults below.

export interface AppSettings {
  /** Lifetime of user tokens issued by `loginUser`/`createUser`. */
  tokenLifetimeSeconds: number;
  /** Lifetime of a refresh token: a session unused this long ends. Each refresh starts it again. */
  refreshTokenLifetimeSeconds: number;
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
  /**
   * Origins whose browser apps may call the app's API (`https://app.example.com`, or `*` for
   * any); null follows the server's list (TESSERA_CORS_ORIGINS).
   */
  corsOrigins: string[] | null;
}

export const DEFAULT_SETTINGS: Readonly<AppSettings> = Object.freeze({
  tokenLifetimeSeconds: 15 * 24 * 3600,
  refreshTokenLifetimeSeconds: 30 * 24 * 3600,
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
  corsOrigins: null,
});

/** Most origins one list may hold. */
export const MAX_CORS_ORIGINS = 100;

/**
 * Why `value` is not an allowed-origin entry, or undefined when it is: `*`, or an origin as
 * browsers send it — scheme, host and optional port, no path (`https://app.example.com:8443`).
 */
export function corsOriginProblem(value: string): string | undefined {
  if (value === '*') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not an origin such as https://app.example.com`;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value) {
    return `"${value}" is not an origin such as https://app.example.com (scheme, host and port only, no path or trailing slash)`;
  }
  return undefined;
}

/** Bounds each numeric setting may take; out-of-range input is refused, not clamped. */
export const SETTING_BOUNDS: Readonly<Record<string, readonly [number, number]>> = Object.freeze({
  tokenLifetimeSeconds: [60, 365 * 24 * 3600],
  refreshTokenLifetimeSeconds: [300, 365 * 24 * 3600],
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
