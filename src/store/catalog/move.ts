// What moving an app to another cluster copies of the catalog: every row of the app in the
// catalog tables that belong to it (parents before children), in batches, as JSON records the
// target's own row type reads back; and the source's copy dropped without its file bytes
// (they are kept once, for whichever cluster the app lives on).

import { ident, sql } from '../../sql/index.js';
import type { Transaction } from '../types.js';
import { appSchemaName } from './appIds.js';
import { transactionCursor } from '../portability/files.js';

/**
 * The app's catalog tables, each with the column naming the app, in an order that inserts
 * parents first. Not copied: the login throttle's counts, traffic and the realtime directory
 * (all kept in `main`'s catalog for every app), realtime events (notified already) and file
 * removals (queued where they were made, and done there).
 */
const APP_CATALOG_TABLES: readonly (readonly [table: string, column: string])[] = [
  ['apps', 'id'],
  ['schema_versions', 'app_id'],
  ['admin_tokens', 'app_id'],
  ['signing_keys', 'app_id'],
  ['trusted_document_sets', 'app_id'],
  ['trusted_documents', 'app_id'],
  ['refresh_tokens', 'app_id'],
  ['user_generations', 'app_id'],
  ['mailed_tokens', 'app_id'],
  ['totp_factors', 'app_id'],
  ['totp_recovery_codes', 'app_id'],
  ['oidc_providers', 'app_id'],
  ['oidc_identities', 'app_id'],
  ['functions', 'app_id'],
  ['function_deliveries', 'app_id'],
];

const BATCH = 500;

/** Copies the app's catalog rows from one cluster's transaction to another's; resolves to the rows copied. */
export async function copyCatalogRows(from: Transaction, to: Transaction, appId: string): Promise<number> {
  let copied = 0;
  for (const [table, column] of APP_CATALOG_TABLES) {
    const target = ident('tessera', table);
    const rows = await transactionCursor<{ r: string }>(from, sql`SELECT row_to_json(t)::text AS r FROM ${target} t WHERE ${ident(column)} = ${appId}`);
    for (let batch = await rows.next(BATCH); batch.length > 0; batch = await rows.next(BATCH)) {
      const records = `[${batch.map((row) => row.r).join(',')}]`;
      await to.query(sql`INSERT INTO ${target} SELECT * FROM json_populate_recordset(NULL::${target}, ${records}::json)`);
      copied += batch.length;
    }
    await rows.close();
  }
  return copied;
}

/**
 * Drops an app's schema and catalog rows on a cluster it has left. Unlike deleteApp, its file
 * bytes stay: the app still has them.
 */
export async function dropMovedApp(tx: Transaction, appId: string): Promise<void> {
  await tx.query(sql`DELETE FROM tessera.function_deliveries WHERE app_id = ${appId}`);
  await tx.query(sql`DELETE FROM tessera.apps WHERE id = ${appId}`);
  await tx.query(sql`DROP SCHEMA IF EXISTS ${ident(appSchemaName(appId))} CASCADE`);
}

/** Holds off writes to the app's tables until the transaction ends (reads go on). */
export async function lockAppTablesForCopy(tx: Transaction, appId: string, tables: readonly string[]): Promise<void> {
  for (const table of tables) await tx.query(sql`LOCK TABLE ${ident(appSchemaName(appId), table)} IN EXCLUSIVE MODE`);
}
