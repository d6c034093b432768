// The File rows an export, import or fork moves the bytes of: id, size and digest in ascending
// id order (the order of `file` records in an archive), read through a cursor so that an app
// with many files is read in batches.

import { randomBytes } from 'node:crypto';
import { builtinTraits } from '../../model/index.js';
import type { AppModel } from '../../model/index.js';
import { ident, literal, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { appSchemaName } from '../catalog/appIds.js';
import type { Transaction } from '../types.js';
import type { SnapshotCursor } from './snapshot.js';

export interface FileBytesRow {
  /** The row's uuid (lower case), which the storage key ends with. */
  id: string;
  size: number;
  sha256: string;
}

/** `SELECT id, size, sha256` of the app's File rows by ascending id; undefined when the model has no File type. */
export function fileRowsStatement(appId: string, model: AppModel): SqlFragment | undefined {
  const type = model.types.find((t) => builtinTraits(t)?.blob !== undefined);
  const blob = type && builtinTraits(type)?.blob;
  if (!type || !blob) return undefined;
  return sql`SELECT id::text AS id, ${ident(blob.size)} AS size, ${ident(blob.sha256)} AS sha256
    FROM ${ident(appSchemaName(appId), type.table)} ORDER BY id`;
}

export interface TransactionCursor<R> extends SnapshotCursor<R> {
  /** Closes it: an open cursor on a table stops ALTER TABLE of it in the same transaction. */
  close(): Promise<void>;
}

/** A cursor over a statement's rows, in the transaction (closed with it at the latest). */
export async function transactionCursor<R>(tx: Transaction, statement: SqlFragment): Promise<TransactionCursor<R>> {
  const name = `tessera_rows_${randomBytes(6).toString('hex')}`;
  await tx.query(sql`DECLARE ${ident(name)} NO SCROLL CURSOR FOR ${statement}`);
  return {
    async next(count) {
      return (await tx.query<R>(sql`FETCH FORWARD ${literal(count)} FROM ${ident(name)}`)).rows;
    },
    async close() {
      await tx.query(sql`CLOSE ${ident(name)}`);
    },
  };
}
