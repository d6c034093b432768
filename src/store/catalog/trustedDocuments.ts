// Catalog rows of an app's trusted documents: the allow-list of GraphQL documents its API runs
// when the list is enforced, each by the SHA-256 (hex) of its text.

import { createHash } from 'node:crypto';
import { sql } from '../../sql/index.js';
import type { Queryable, Transaction } from '../types.js';

/** A document's key, in the list and in persisted-query requests: the SHA-256 of its text, lower-case hex. */
export function documentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface TrustedDocumentSet {
  enforce: boolean;
  /** Document texts by the SHA-256 of their text. */
  documents: Map<string, string>;
}

/** Replaces the app's list (an empty list with enforce off removes it). */
export async function replaceTrustedDocuments(tx: Transaction, appId: string, enforce: boolean, documents: ReadonlyMap<string, string>): Promise<void> {
  await tx.query(sql`DELETE FROM tessera.trusted_document_sets WHERE app_id = ${appId}`);
  if (!enforce && documents.size === 0) return;
  await tx.query(sql`INSERT INTO tessera.trusted_document_sets (app_id, enforce) VALUES (${appId}, ${enforce})`);
  const hashes = [...documents.keys()];
  const texts = [...documents.values()];
  if (hashes.length > 0) {
    await tx.query(sql`INSERT INTO tessera.trusted_documents (app_id, sha256, document) SELECT ${appId}, h, d FROM unnest(${hashes}::text[], ${texts}::text[]) AS t(h, d)`);
  }
}

/** The app's list, or null when it has none. */
export async function trustedDocuments(q: Queryable, appId: string): Promise<TrustedDocumentSet | null> {
  const { rows } = await q.query<{ enforce: boolean; sha256: string | null; document: string | null }>(sql`
    SELECT s.enforce, d.sha256, d.document FROM tessera.trusted_document_sets s
      LEFT JOIN tessera.trusted_documents d ON d.app_id = s.app_id
     WHERE s.app_id = ${appId}`);
  if (rows.length === 0) return null;
  const documents = new Map<string, string>();
  for (const row of rows) if (row.sha256 !== null && row.document !== null) documents.set(row.sha256, row.document);
  return { enforce: rows[0]?.enforce === true, documents };
}
