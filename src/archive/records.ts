// The records of an app archive (docs/portability.md): one JSON value per line, objects with a
// `kind`, and JSON arrays holding the rows of the table named by the last `table` record.

/** What the first line names, and the format version this code writes. */
export const ARCHIVE_FORMAT = 'tessera-app-archive';
export const ARCHIVE_VERSION = 2;
/** The versions this code reads: 2 adds `function` records, which a reader of version 1 does not know. */
export const READABLE_VERSIONS: readonly number[] = [1, 2];
/** The archive's media type: newline-delimited JSON, gzip-compressed. */
export const ARCHIVE_MEDIA_TYPE = 'application/gzip';

export interface HeaderRecord {
  kind: 'header';
  format: typeof ARCHIVE_FORMAT;
  version: number;
  /** The Tessera version that wrote it. */
  tessera: string;
  exportedAt: string;
  /** The app as it was where it was exported (its id names the sealed secrets' place). */
  app: { id: string; name: string; createdAt: string };
  /** `embedded` or `postgres`: how the snapshot was taken there. */
  store: string;
}

export interface SchemaRecord {
  kind: 'schema';
  /** The live schema version where it was exported; the import starts again at 1. */
  version: number;
  sdl: string;
}

export interface SettingsRecord {
  kind: 'settings';
  /** The app's own settings (those it changed from the defaults). */
  settings: Record<string, unknown>;
}

/** Starts the rows of one table: a `@model` type's, or a many-to-many relation's join table. */
export interface TableRecord {
  kind: 'table';
  name: string;
  of: 'type' | 'relation';
  /** Column names, in the order of each row's values. */
  columns: string[];
}

export interface TotpFactorRecord {
  kind: 'totpFactor';
  userId: string;
  /** Base32, as stored. */
  secret: string;
  createdAt: string;
  confirmedAt: string | null;
  lastStep: number | null;
  recoveryCodes: { codeHash: string; usedAt: string | null }[];
}

export interface OidcIdentityRecord {
  kind: 'oidcIdentity';
  issuer: string;
  subject: string;
  userId: string;
  createdAt: string;
  lastLoginAt: string | null;
}

export interface OidcProviderRecord {
  kind: 'oidcProvider';
  name: string;
  issuer: string;
  clientId: string;
  /** The client secret sealed under the exporting server's secret key, for the exported app. */
  sealedSecret: string;
  scopes: string[];
  metadata: Record<string, unknown>;
  createdAt: string;
}

export interface TrustedDocumentsRecord {
  kind: 'trustedDocuments';
  enforce: boolean;
  documents: string[];
}

/**
 * One of the app's functions (DESIGN section 9). Its signing secret and header values are
 * sealed under the exporting server's secret key for the exported app, never in clear.
 */
export interface FunctionRecord {
  kind: 'function';
  name: string;
  /** BEFORE, EVENT or RESOLVER. */
  functionKind: string;
  url: string;
  operations: string[];
  order: number;
  enabled: boolean;
  timeoutMs: number;
  sealedSecret: string;
  /** Header names, each with its value sealed. */
  headers: { name: string; sealedValue: string }[];
  createdAt: string;
}

/**
 * A stored file's bytes (DESIGN section 10): the File row's id, size and digest, then the bytes
 * in `fileChunk` records in order. Files come last, in ascending id order, one per File row.
 */
export interface FileRecord {
  kind: 'file';
  id: string;
  size: number;
  sha256: string;
}

export interface FileChunkRecord {
  kind: 'fileChunk';
  id: string;
  /** Base64 (the writer's pieces are 256 KiB of bytes, the last one shorter). */
  data: string;
}

/** The last line: what came before it, so a truncated or altered archive is detected. */
export interface EndRecord {
  kind: 'end';
  /** Lines before this one. */
  lines: number;
  /** Rows per table. */
  rows: Record<string, number>;
  /** SHA-256 (hex) of every byte before this line, newlines included, uncompressed. */
  sha256: string;
}

export type CatalogRecord = TotpFactorRecord | OidcIdentityRecord | OidcProviderRecord | TrustedDocumentsRecord | FunctionRecord;

export type ArchiveRecord = HeaderRecord | SchemaRecord | SettingsRecord | TableRecord | CatalogRecord | FileRecord | FileChunkRecord | EndRecord;

export type RecordKind = ArchiveRecord['kind'];

export const RECORD_KINDS: readonly RecordKind[] = [
  'header',
  'schema',
  'settings',
  'table',
  'totpFactor',
  'oidcIdentity',
  'oidcProvider',
  'trustedDocuments',
  'function',
  'file',
  'fileChunk',
  'end',
];
