// Catalog rows of file bytes to remove (tessera.file_removals): queued in the transaction that
// deletes a File or an app, or for an upload until a File claims it; taken by the removal
// worker when due and deleted once the bytes are gone.

import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

/** A due removal the worker has taken (its `due_at` pushed back while it tries). */
export interface FileRemovalRow {
  key: string;
  appId: string;
  /** The key is a prefix: everything under it goes (an app's bytes). */
  prefix: boolean;
  attempts: number;
}

/** The storage key of a File's bytes: `<appId>/<row uuid>`. */
export function fileKey(appId: string, fileId: string): string {
  return `${appId}/${fileId}`;
}

/** The prefix of every storage key of an app. */
export function appFileKeyPrefix(appId: string): string {
  return `${appId}/`;
}

/** Longest wait between two attempts at one removal. */
export const MAX_REMOVAL_BACKOFF_SECONDS = 300;

/** Records an upload under way: its bytes are removed after `graceSeconds` unless a File claims them. */
export async function expectUpload(q: Queryable, appId: string, key: string, graceSeconds: number): Promise<void> {
  await q.query(sql`INSERT INTO tessera.file_removals (key, app_id, pending_upload, due_at)
    VALUES (${key}, ${appId}, true, now() + make_interval(secs => ${graceSeconds}))`);
}

/**
 * Records that bytes are being written under an app's prefix before its app exists (an import
 * or a fork): all of them are removed after `graceSeconds` unless the transaction creating the
 * app takes the entry (claimUpload with the prefix), or at once when released.
 */
export async function expectAppFiles(q: Queryable, appId: string, graceSeconds: number): Promise<void> {
  await q.query(sql`INSERT INTO tessera.file_removals (key, app_id, prefix, pending_upload, due_at)
    VALUES (${appFileKeyPrefix(appId)}, ${appId}, true, true, now() + make_interval(secs => ${graceSeconds}))`);
}

/**
 * Takes an upload's entry for the File being created in the same transaction; false when there
 * is none for this app (claimed already, or taken as an orphan).
 */
export async function claimUpload(q: Queryable, appId: string, key: string): Promise<boolean> {
  const { rowCount } = await q.query(sql`DELETE FROM tessera.file_removals WHERE key = ${key} AND app_id = ${appId} AND pending_upload`);
  return rowCount > 0;
}

/** Queues the bytes under `key` for removal now. */
export async function queueFileRemoval(q: Queryable, appId: string, key: string): Promise<void> {
  await q.query(sql`INSERT INTO tessera.file_removals (key, app_id, due_at) VALUES (${key}, ${appId}, now())
    ON CONFLICT (key) DO UPDATE SET pending_upload = false, due_at = now()`);
}

/** Queues every byte of an app (its key prefix `<appId>/`) for removal now. */
export async function queueAppFileRemoval(q: Queryable, appId: string): Promise<void> {
  await q.query(sql`INSERT INTO tessera.file_removals (key, app_id, prefix, due_at) VALUES (${appFileKeyPrefix(appId)}, ${appId}, true, now())
    ON CONFLICT (key) DO UPDATE SET due_at = now()`);
}

/** An upload no File claimed (its operation failed): its bytes go now. */
export async function releaseUpload(q: Queryable, appId: string, key: string): Promise<void> {
  await q.query(sql`UPDATE tessera.file_removals SET pending_upload = false, due_at = now() WHERE key = ${key} AND app_id = ${appId} AND pending_upload`);
}

/**
 * Takes up to `limit` due removals, pushing each one's next attempt back (2, 4, 8 … seconds,
 * at most MAX_REMOVAL_BACKOFF_SECONDS) so that no other worker takes it meanwhile. An orphaned
 * upload taken here is an ordinary removal from then on: no File can claim it any more.
 */
export async function takeDueFileRemovals(q: Queryable, limit: number): Promise<FileRemovalRow[]> {
  const { rows } = await q.query<{ key: string; app_id: string; prefix: boolean; attempts: number }>(sql`
    UPDATE tessera.file_removals r
       SET attempts = r.attempts + 1,
           pending_upload = false,
           due_at = now() + make_interval(secs => least(power(2, least(r.attempts + 1, 20)), ${MAX_REMOVAL_BACKOFF_SECONDS}))
     WHERE r.key IN (SELECT key FROM tessera.file_removals WHERE due_at <= now() ORDER BY due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING r.key, r.app_id, r.prefix, r.attempts`);
  return rows.map((r) => ({ key: r.key, appId: r.app_id, prefix: r.prefix, attempts: r.attempts }));
}

/** The bytes are gone: the entry goes too (unless it was queued again meanwhile). */
export async function finishFileRemoval(q: Queryable, key: string, attempts: number): Promise<void> {
  await q.query(sql`DELETE FROM tessera.file_removals WHERE key = ${key} AND attempts = ${attempts}`);
}

/** An attempt failed: why, for the operator (the entry stays, due again later). */
export async function noteFileRemovalError(q: Queryable, key: string, error: string): Promise<void> {
  await q.query(sql`UPDATE tessera.file_removals SET last_error = ${error.slice(0, 500)} WHERE key = ${key}`);
}

/** Entries still queued, for tests and the operator: key, whether a pending upload, attempts. */
export async function listFileRemovals(q: Queryable, appId?: string): Promise<{ key: string; pendingUpload: boolean; attempts: number; lastError: string | null }[]> {
  const where = appId === undefined ? sql`` : sql` WHERE app_id = ${appId}`;
  const { rows } = await q.query<{ key: string; pending_upload: boolean; attempts: number; last_error: string | null }>(
    sql`SELECT key, pending_upload, attempts, last_error FROM tessera.file_removals${where} ORDER BY key`,
  );
  return rows.map((r) => ({ key: r.key, pendingUpload: r.pending_upload, attempts: r.attempts, lastError: r.last_error }));
}
