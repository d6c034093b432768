// Names of the indexes and constraints Tessera creates: derived from table and columns only, so
// they can be found again (and renamed with their table or column); hash-shortened past 63 bytes.

import { createHash } from 'node:crypto';

/** `pkey` primary key, `idx` btree index, `key` unique index, `check` enum check, `fkey` foreign key. */
export type NameSuffix = 'pkey' | 'idx' | 'key' | 'check' | 'fkey';

export const NAME_SUFFIXES: readonly NameSuffix[] = ['pkey', 'idx', 'key', 'check', 'fkey'];

const MAX_BYTES = 63;
const HASH_CHARS = 8;

/**
 * `Post_title_idx`, `UserEdits_userId_postId_key`, `Post_pkey`. A name that would pass
 * PostgreSQL's limit keeps a readable prefix and gains a hash of the whole: two long names never
 * collapse into one as they would under PostgreSQL's silent truncation.
 */
export function derivedName(table: string, columns: readonly string[], suffix: NameSuffix): string {
  const base = [table, ...columns].join('_');
  const full = `${base}_${suffix}`;
  if (Buffer.byteLength(full, 'utf8') <= MAX_BYTES) return full;
  const hash = createHash('sha256').update(JSON.stringify([table, columns, suffix])).digest('hex').slice(0, HASH_CHARS);
  let prefix = base.slice(0, MAX_BYTES - suffix.length - HASH_CHARS - 2);
  // Model names are ASCII; this only guards against cutting a multi-byte character in half.
  while (Buffer.byteLength(`${prefix}_${hash}_${suffix}`, 'utf8') > MAX_BYTES) prefix = prefix.slice(0, -1);
  return `${prefix}_${hash}_${suffix}`;
}

export const primaryKeyName = (table: string) => derivedName(table, [], 'pkey');
export const indexName = (table: string, column: string) => derivedName(table, [column], 'idx');
export const uniqueIndexName = (table: string, column: string) => derivedName(table, [column], 'key');
export const checkName = (table: string, column: string) => derivedName(table, [column], 'check');
export const foreignKeyName = (table: string, column: string) => derivedName(table, [column], 'fkey');
/** The unique index of a join table's two end columns: one row per edge. */
export const edgeIndexName = (table: string, columns: readonly [string, string]) => derivedName(table, columns, 'key');
