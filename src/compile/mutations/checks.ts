// Write rules, checked inside the mutation's transaction for every caller but an admin token:
// `create` on each row as written (nested ones included), `update` on the row before and after
// the write, `delete` before it, and the rules of each field given that has rules of its own.
// A row the caller may not even read answers as if it did not exist.

import { TesseraError, notFound } from '../../errors/index.js';
import type { ModelType, PermissionOperation } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { Transaction } from '../../store/index.js';
import { bind } from '../params.js';
import type { CompileState } from '../state.js';
import { TRUE } from '../state.js';

function forbidden(message: string, type: string): TesseraError {
  return new TesseraError('FORBIDDEN', message, { type });
}

async function holds(s: CompileState, tx: Transaction, type: ModelType, id: string, predicate: (row: SqlFragment) => SqlFragment | undefined): Promise<boolean> {
  const t = ident('chk');
  const condition = predicate(t);
  if (condition === undefined || condition === TRUE) return true;
  const { rowCount } = await tx.query(bind(sql`SELECT 1 FROM ${s.app.table(type.table)} ${t} WHERE ${t}.id = ${id}::uuid AND ${condition}`, s.binder.request));
  return rowCount > 0;
}

/** The fields given in an input that have rules of their own for `op`. */
function guardedFields(s: CompileState, type: ModelType, input: Readonly<Record<string, unknown>>, op: PermissionOperation): string[] {
  return type.fields
    .filter((f) => input[f.name] !== undefined || (f.kind === 'relation' && input[`${f.name}Id`] !== undefined))
    .map((f) => f.name)
    .filter((name) => s.fieldAllowed(type, name, op, TRUE) !== undefined);
}

/** `op` on the row and on each guarded field given; FORBIDDEN naming what failed. */
export async function requireWrite(s: CompileState, tx: Transaction, type: ModelType, id: string, op: PermissionOperation, input: Readonly<Record<string, unknown>>): Promise<void> {
  if (s.access === 'admin') return;
  if (!(await holds(s, tx, type, id, (row) => s.allowed(type, op, row)))) throw forbidden(`Not allowed to ${op} this ${type.name}`, type.name);
  for (const field of guardedFields(s, type, input, op === 'delete' ? 'update' : op)) {
    if (!(await holds(s, tx, type, id, (row) => s.fieldAllowed(type, field, op === 'delete' ? 'update' : op, row)))) {
      throw forbidden(`Not allowed to ${op === 'create' ? 'set' : 'change'} ${type.name}.${field}`, type.name);
    }
  }
}

/**
 * Before an update or delete: a row the caller may not read is NOT_FOUND (as if it did not
 * exist); one it may read but not change is FORBIDDEN. Answers whether the row is there.
 */
export async function requireExisting(s: CompileState, tx: Transaction, type: ModelType, id: string, op: 'update' | 'delete', input: Readonly<Record<string, unknown>>): Promise<boolean> {
  if (s.access === 'admin') return true;
  if (!(await holds(s, tx, type, id, (row) => s.allowed(type, 'read', row)))) {
    if (op === 'update') throw notFound(`No ${type.name} has the id given to update${type.name}`);
    return false;
  }
  await requireWrite(s, tx, type, id, op, input);
  return true;
}
