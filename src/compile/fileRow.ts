// What a download needs of a File row: its name, media type, size, digest and storage key,
// read by id without the app's rules (the URL's signature already says the holder may read it:
// it is only ever issued in a statement that applied them).

import { builtinTraits, decodeAnyId } from '../model/index.js';
import type { ModelType } from '../model/index.js';
import { ident, sql } from '../sql/index.js';
import type { Queryable } from '../store/index.js';
import { fileKey } from '../store/index.js';
import type { AppContext } from './context.js';

export interface FileRow {
  id: string;
  key: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  modifiedAt: Date;
}

/** The app's file type (the built-in File), if its model has it. */
export function fileType(app: AppContext): ModelType | undefined {
  return app.app.model.types.find((t) => builtinTraits(t)?.blob !== undefined);
}

/** The File with this global id, or null when the id names none (or not a File). */
export async function findFileRow(app: AppContext, db: Queryable, globalId: string): Promise<FileRow | null> {
  const type = fileType(app);
  const blob = type && builtinTraits(type)?.blob;
  const decoded = decodeAnyId(globalId);
  if (!type || !blob || !decoded || decoded.type !== type.name) return null;
  const { rows } = await db.query<{ name: string; content_type: string; size: number; sha256: string; modified_at: Date }>(sql`
    SELECT ${ident(blob.name)} AS name, ${ident(blob.contentType)} AS content_type, ${ident(blob.size)} AS size,
           ${ident(blob.sha256)} AS sha256, "modifiedAt" AS modified_at
      FROM ${app.table(type.table)} WHERE id = ${decoded.uuid}::uuid`);
  const row = rows[0];
  if (!row) return null;
  return {
    id: decoded.uuid,
    key: fileKey(app.app.id, decoded.uuid),
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    modifiedAt: new Date(row.modified_at),
  };
}
