// Write rules, checked inside the mutation's transaction for every caller but an admin token:
// `create` on each row as written (nested ones included), `update` on the row before and after
// the write, `delete` before it, and the rules of each field given that has rules of its own.
// A row the caller may not even read answers as if it did not exist.

import { TesseraError, badInput, notFound } from '../../errors/index.js';
import { builtinTraits, idColumn, isMembership, membershipOf } from '../../model/index.js';
import { fieldGrants, typeGrants } from '../../permissions/index.js';
import type { ModelType, PermissionOperation, Relation } from '../../model/index.js';
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

/**
 * A relation id must name an object the caller may read: one it may not is answered exactly
 * like an id of nothing, so a link can neither reveal that a hidden object exists nor attach
 * the caller to it (joining a team whose rule reads `RELATION members` by setting `teamId`).
 */
export async function requireLinkable(s: CompileState, tx: Transaction, type: ModelType, id: string, what: string, field: string): Promise<void> {
  const t = ident('lnk');
  const condition = s.allowed(type, 'read', t);
  const where = condition === TRUE ? sql`` : sql` AND ${condition}`;
  const { rowCount } = await tx.query(bind(sql`SELECT 1 FROM ${s.app.table(type.table)} ${t} WHERE ${t}.id = ${id}::uuid${where}`, s.binder.request));
  if (rowCount === 0) throw badInput(`${what}: no ${type.name} has that id`, { field });
}

/** The fields given in an input that have rules of their own for `op`. */
function guardedFields(type: ModelType, input: Readonly<Record<string, unknown>>, op: PermissionOperation): string[] {
  return type.fields
    .filter((f) => input[f.name] !== undefined || (f.kind === 'relation' && input[idColumn(f.name)] !== undefined))
    .map((f) => f.name)
    .filter((name) => fieldGrants(type, name, op) !== undefined);
}

/**
 * Whether `requireWrite` of a create with `input` would hold whatever row is written, without
 * a statement: an admin token, or a create rule that grants everyone the caller is and no field
 * given with rules of its own.
 */
export function createHoldsAlways(s: CompileState, type: ModelType, input: Readonly<Record<string, unknown>>): boolean {
  if (s.access === 'admin') return true;
  return grantsAnyRow(s, type, 'create') && guardedFields(type, input, 'create').length === 0;
}

/**
 * Whether `requireExisting` of an update with `input` (or of a delete) would hold for every row
 * without a statement: an admin token, or rules that grant the caller reading and `op` on any
 * row, and no field given with rules of its own.
 */
export function existingHoldsAlways(s: CompileState, type: ModelType, input: Readonly<Record<string, unknown>>, op: 'update' | 'delete'): boolean {
  if (s.access === 'admin') return true;
  return grantsAnyRow(s, type, 'read') && grantsAnyRow(s, type, op) && guardedFields(type, op === 'delete' ? {} : input, 'update').length === 0;
}

/**
 * Whether the caller may link to any existing object of `type` (`requireLinkable` checks only
 * that it exists, which the foreign key checks as well, with the same answer).
 */
export function linkHoldsAlways(s: CompileState, type: ModelType): boolean {
  return s.access === 'admin' || grantsAnyRow(s, type, 'read');
}

/**
 * Whether a rule of `type` grants the caller `op` on every row whatever it holds: EVERYONE, or
 * AUTHENTICATED for a logged-in user. (A built-in type's reserved rows are only reserved from
 * updates and deletes.)
 */
function grantsAnyRow(s: CompileState, type: ModelType, op: PermissionOperation): boolean {
  const loggedIn = s.binder.request.userId !== undefined;
  return typeGrants(type, op).some((g) => g.scope === 'EVERYONE' || (g.scope === 'AUTHENTICATED' && loggedIn));
}

/** `op` on the row and on each guarded field given; FORBIDDEN naming what failed. */
export async function requireWrite(s: CompileState, tx: Transaction, type: ModelType, id: string, op: PermissionOperation, input: Readonly<Record<string, unknown>>): Promise<void> {
  if (s.access === 'admin') return;
  if (!(await holds(s, tx, type, id, (row) => s.allowed(type, op, row)))) throw forbidden(`Not allowed to ${op} this ${type.name}`, type.name);
  for (const field of guardedFields(type, input, op === 'delete' ? 'update' : op)) {
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
    if (op === 'update') throw notFound(`No ${type.name} has the id given to ${s.app.names.mutation('update', type.name)}`);
    return false;
  }
  await requireWrite(s, tx, type, id, op, input);
  return true;
}

/**
 * Edge mutations: managing an edge needs `update` on both end objects — except the built-in
 * membership relation (`UserRoles`), whose members are managed per role (app admins; for any
 * role but the built-in `admin` role, its admin members and whoever the app's Role `update`
 * rules name), and anyone may remove themselves.
 */
export async function requireEdgeWrite(
  s: CompileState,
  tx: Transaction,
  relation: Relation,
  ends: { targets: readonly [string, string]; ids: readonly [string, string] },
  kind: 'addEdge' | 'updateEdge' | 'removeEdge',
): Promise<void> {
  if (s.access === 'admin') return;
  if (isMembership(relation)) {
    const membership = membershipOf(s.app.app.model);
    const roleEnd = ends.targets[0] === membership.roleType ? 0 : 1;
    const roleId = ends.ids[roleEnd];
    const userId = ends.ids[roleEnd === 0 ? 1 : 0];
    if (kind === 'removeEdge' && userId === s.binder.request.userId) return;
    if (!(await holds(s, tx, s.app.type(membership.roleType), roleId, (row) => s.managesMembers(row)))) {
      throw forbidden(`Only the app's admins and the admin members of a role manage its members`, relation.name);
    }
    return;
  }
  for (const [i, target] of ends.targets.entries()) {
    const type = s.app.type(target);
    const id = ends.ids[i] as string;
    if (!(await holds(s, tx, type, id, (row) => s.allowed(type, 'read', row)))) throw badInput(`No ${target} has the id given`);
    await requireWrite(s, tx, type, id, 'update', {});
  }
}

/**
 * The creator of a row whose built-in type says so joins it (a role's creator becomes its
 * admin member, when the app lets others than app admins create roles).
 */
export async function enrolCreator(s: CompileState, tx: Transaction, type: ModelType, id: string): Promise<void> {
  const joins = builtinTraits(type)?.creatorJoins;
  const userId = s.binder.request.userId;
  if (!joins || s.access === 'admin' || userId === undefined) return;
  const storage = s.app.relation(joins.relation).storage;
  if (storage.kind !== 'joinTable') return;
  const ownEnd = storage.targets[0] === type.name ? 0 : 1;
  const [ownColumn, userColumn] = [storage.columns[ownEnd], storage.columns[ownEnd === 0 ? 1 : 0]];
  await tx.query(sql`INSERT INTO ${s.app.table(storage.table)} (${ident(userColumn)}, ${ident(ownColumn)}, "accessLevel") VALUES (${userId}::uuid, ${id}::uuid, ${joins.accessLevel}) ON CONFLICT DO NOTHING`);
}
