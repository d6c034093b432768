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
  /** Where the app's mail goes out (`smtp://user:pass@host:587`, `smtps://…`); null: the server's TESSERA_SMTP_URL. */
  smtpUrl: string | null;
  /** The sender of the app's mail (`Shop <noreply@shop.example>`); null: the server's TESSERA_MAIL_FROM. */
  mailFrom: string | null;
  /** Subject and text of the address verification mail; null: the built-in ones. */
  verifyEmailSubject: string | null;
  verifyEmailText: string | null;
  /** Subject and text of the password reset mail; null: the built-in ones. */
  resetPasswordSubject: string | null;
  resetPasswordText: string | null;
  /** The largest upload a File may hold, in bytes; a bigger one is refused while it streams. */
  maxFileSize: number;
  /** How long a File's signed download URL stays valid. */
  fileUrlLifetimeSeconds: number;
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
  smtpUrl: null,
  mailFrom: null,
  verifyEmailSubject: null,
  verifyEmailText: null,
  resetPasswordSubject: null,
  resetPasswordText: null,
  maxFileSize: 52_428_800,
  fileUrlLifetimeSeconds: 3600,
});

/** Settings holding text (null: the default), with their longest length and a check of their form. */
export const TEXT_SETTINGS: Readonly<Record<string, { max: number; problem?: (value: string) => string | undefined }>> = Object.freeze({
  smtpUrl: { max: 2000, problem: smtpUrlProblem },
  mailFrom: { max: 320, problem: (v) => (/^[^<>@\s]+@[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(v.trim()) ? undefined : `"${v}" is not a sender such as noreply@shop.example or Shop <noreply@shop.example>`) },
  verifyEmailSubject: { max: 200 },
  verifyEmailText: { max: 10_000, problem: (v) => (v.includes('{{token}}') ? undefined : 'the text must contain {{token}}') },
  resetPasswordSubject: { max: 200 },
  resetPasswordText: { max: 10_000, problem: (v) => (v.includes('{{token}}') ? undefined : 'the text must contain {{token}}') },
});

function smtpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'it is not a URL such as smtp://user:password@mail.example.com:587';
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return 'it must start with smtp:// or smtps://';
  if (!url.hostname) return 'it names no host';
  return undefined;
}

/** What replaces a password in an SMTP URL when settings are read back. */
export const HIDDEN_PASSWORD = '********';

/** The settings as they are shown: the SMTP URL's password hidden. */
export function shownSettings(settings: AppSettings): AppSettings {
  return { ...settings, smtpUrl: hidePassword(settings.smtpUrl) };
}

/** An SMTP URL with its password (if any) replaced by HIDDEN_PASSWORD. */
export function hidePassword(smtpUrl: string | null): string | null {
  if (smtpUrl === null) return null;
  try {
    const url = new URL(smtpUrl);
    if (!url.password) return smtpUrl;
    url.password = HIDDEN_PASSWORD;
    return url.toString();
  } catch {
    return null;
  }
}

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
  // A File's size is a GraphQL Int: the largest is 2^31 - 1 bytes (2 GiB less one byte).
  maxFileSize: [1, 2_147_483_647],
  fileUrlLifetimeSeconds: [60, 7 * 24 * 3600],
});

export function withDefaults(stored: Partial<AppSettings> | null | undefined): AppSettings {
  return { ...DEFAULT_SETTINGS, ...(stored ?? {}) };
}
