// The records of an app archive (docs/portability.md): one JSON value per line, objects with a
// `kind`, and JSON arrays holding the rows of the table named by the last `table` record.

/** What the first line names, and the format version this code writes and reads. */
export const ARCHIVE_FORMAT = 'tessera-app-archive';
export const ARCHIVE_VERSION = 1;
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
 * A stored file (DESIGN section 10): its metadata, then its bytes in `fileChunk` records in
 * order. Reserved: this version writes none and refuses them on import (see docs).
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
  /** Base64. */
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

export type CatalogRecord = TotpFactorRecord | OidcIdentityRecord | OidcProviderRecord | TrustedDocumentsRecord;

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
  'file',
  'fileChunk',
  'end',
];
