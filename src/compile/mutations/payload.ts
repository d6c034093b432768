// Mutation payloads: the changed object (read back inside the transaction, or before the
// delete as its last copy), its edge, the viewer and clientMutationId, each as SQL JSON,
// assembled into the payload object in selection order.

import type { FieldNode } from 'graphql';
import type { Relation } from '../../model/index.js';
import { ident, join, literal, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { Transaction } from '../../store/index.js';
import { cursorSql } from '../cursor.js';
import { roleOf } from '../../graphql/index.js';
import type { FieldRole } from '../../graphql/index.js';
import { fieldOf, joinObject, modelFields, modelObject } from '../object.js';
import { cursorKeys, signatureParam, sortKeys } from '../order.js';
import { bind } from '../params.js';
import { rowById, viewer } from '../read.js';
import { collectFields, subSelections } from '../selection.js';
import type { CompileState } from '../state.js';

/** When a payload part is read: before the write (a deleted object's last copy) or after it. */
export type Phase = 'before' | 'after';

/** One key of the payload: JSON text known already, or SQL read in a phase. */
export type PayloadPart = { key: string; text: string } | { key: string; phase: Phase; json: SqlFragment };

/** One response key of a payload, with what its field does (`__typename` has no role). */
export interface PayloadSelection {
  key: string;
  group: readonly FieldNode[];
  role: FieldRole | undefined;
}

export function payloadFields(s: CompileState, payloadType: string, nodes: readonly FieldNode[]): PayloadSelection[] {
  return [...collectFields(s, subSelections(nodes), new Set([payloadType]))].map(([key, group]) => {
    const name = (group[0] as FieldNode).name.value;
    return { key, group, role: name === '__typename' ? undefined : roleOf(fieldOf(s, payloadType, name)) };
  });
}

/** The parts shared by every payload: `__typename`, `viewer`, `clientMutationId`; undefined for the rest. */
export function commonPart(s: CompileState, payloadType: string, selection: PayloadSelection, clientMutationId: unknown): PayloadPart | undefined {
  const { key, group, role } = selection;
  if (role === undefined) return { key, text: JSON.stringify(payloadType) };
  if (role.kind === 'clientMutationId') return { key, text: JSON.stringify(typeof clientMutationId === 'string' ? clientMutationId : null) };
  if (role.kind === 'payloadViewer') return { key, phase: 'after', json: viewer(s, group) };
  return undefined;
}

/** A payload field the mutation does not answer: a builder and the compiler disagree. */
export function unknownPayloadField(payloadType: string, selection: PayloadSelection): Error {
  return new Error(`unknown payload field ${payloadType}.${(selection.group[0] as FieldNode).name.value} (${selection.role?.kind ?? '__typename'})`);
}

/** `changedX` of a type's row, read from its table or from `from` (the rows a statement writes). */
export function rowPart(s: CompileState, typeName: string, id: string, group: readonly FieldNode[], from?: SqlFragment): SqlFragment {
  return rowById(s, typeName, sql`${id}`, group, from);
}

/** `changedEdge`: the row of uuid `id` (a parameter) as an edge of the type's default connection (ordered by id). */
export function edgePart(s: CompileState, typeName: string, id: SqlFragment, group: readonly FieldNode[], from?: SqlFragment): SqlFragment {
  const type = s.app.type(typeName);
  const keys = sortKeys(s, type, undefined);
  const sig = signatureParam(s, type.name, keys);
  const z = s.alias();
  const edgeName = s.app.names.edge(type.name);
  const fields = collectFields(s, subSelections(group), new Set([edgeName]));
  const pairs: SqlFragment[] = [];
  for (const [key, nodes] of fields) {
    const name = (nodes[0] as FieldNode).name.value;
    const v =
      name === '__typename' ? sql`${literal(edgeName)}::text`
      : name === 'cursor' ? cursorSql(sig, cursorKeys(z, keys))
      : modelObject(s, type, z, modelFields(s, type.name, nodes));
    pairs.push(sql`${literal(key)}::text, ${v}`);
  }
  return sql`(SELECT json_build_object(${join(pairs)}) FROM ${from ?? s.app.table(type.table)} ${z} WHERE ${z}.id = ${id}::uuid)`;
}

/** `changedR` of a many-to-many edge: the join object of join row `joinId`. */
export function joinPart(s: CompileState, relation: Relation, joinId: string, group: readonly FieldNode[]): SqlFragment {
  const storage = relation.storage;
  if (storage.kind !== 'joinTable') throw new Error(`${relation.name} has no join table`);
  const j = s.alias('j');
  const fields = collectFields(s, subSelections(group), new Set([relation.name]));
  return sql`(SELECT ${joinObject(s, relation, j, fields)} FROM ${s.app.table(storage.table)} ${j} WHERE ${j}.id = ${joinId}::uuid)`;
}

/** Reads the parts of one phase in one statement; returns their JSON texts by key. */
export async function readPhase(s: CompileState, tx: Transaction, parts: readonly PayloadPart[], phase: Phase, into: Map<string, string>): Promise<void> {
  const mine = parts.filter((p): p is Extract<PayloadPart, { phase: Phase }> => 'phase' in p && p.phase === phase);
  if (mine.length === 0) return;
  const columns = mine.map((p, i) => sql`(${p.json})::text AS ${ident(`c${i}`)}`);
  const result = await tx.query<Record<string, string | null>>(bind(sql`SELECT ${join(columns)}`, s.binder.request));
  const row = result.rows[0] ?? {};
  mine.forEach((p, i) => into.set(p.key, row[`c${i}`] ?? 'null'));
}

/** The payload's JSON text, keys in selection order. */
export function assemble(parts: readonly PayloadPart[], read: ReadonlyMap<string, string>): string {
  return `{${parts.map((p) => `${JSON.stringify(p.key)}:${'text' in p ? p.text : (read.get(p.key) ?? 'null')}`).join(',')}}`;
}
