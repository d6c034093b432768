// The common create as one statement: `WITH new AS (INSERT … RETURNING *) SELECT <payload>`,
// committed on its own, where the general path runs BEGIN, INSERT, the payload's SELECT and
// COMMIT. Taken only when that path would run no other statement and the payload reads nothing
// the INSERT changes but the new row itself (a statement's reads do not see its own writes);
// anything else runs as before (run.ts). Docs: docs/performance.md.

import { randomUUID } from 'node:crypto';
import type { FieldNode } from 'graphql';
import { idColumn } from '../../model/index.js';
import type { ModelType } from '../../model/index.js';
import { ident, identCount, join, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { bind } from '../params.js';
import type { CompileState } from '../state.js';
import { createHoldsAlways, linkHoldsAlways } from './checks.js';
import type { MutationContext } from './context.js';
import { RowEvents, rowJson } from './events.js';
import { Outbox } from './outbox.js';
import { assemble, commonPart, edgePart, payloadFields, rowPart } from './payload.js';
import type { PayloadPart } from './payload.js';
import { columnValue, relationTarget } from './rows.js';

type Input = Record<string, unknown>;

/** The rows the statement inserts, as its payload reads them. */
const CREATED = ident('tessera$created');

/**
 * The create of `type` from `input` as one statement, and its payload's JSON text; undefined
 * when this create needs the general path (then nothing has been written).
 */
export async function createInOneStatement(s: CompileState, m: MutationContext, type: ModelType, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string | undefined> {
  // Built-in types (users, roles, files) do more on create than insert a row.
  if (type.builtin || !createHoldsAlways(s, type, input)) return undefined;
  if (new Outbox(m.ports.functions).wants(s.app.names.mutation('create', type.name))) return undefined;
  const id = randomUUID();
  const row = await insertedRow(s, m, type, input, id);
  if (!row) return undefined;
  const parts = payloadParts(s, type, id, input, payloadType, nodes);
  if (!parts) return undefined;
  const wanted = m.ports.events.wanted ? await m.ports.events.wanted() : true;
  const reads = parts.filter((p): p is Extract<PayloadPart, { json: SqlFragment }> => 'json' in p);
  const columns = reads.map((p, i) => sql`(${p.json})::text AS ${ident(`c${i}`)}`);
  if (wanted) columns.push(sql`(SELECT ${rowJson(s.app, type.name, ident('e'))} FROM ${CREATED} ${ident('e')}) AS ${ident('event')}`);
  if (columns.length === 0) columns.push(sql`NULL`);
  const statement = sql`WITH ${CREATED} AS (INSERT INTO ${s.app.table(type.table)} (${join(row.columns)}) VALUES (${join(row.values)}) RETURNING *) SELECT ${join(columns)}`;
  // The INSERT names the table once; any other read of it would miss the new row, so such a
  // payload (or a rule it reads under) takes the general path.
  const named = identCount(statement, s.app.dbSchema, type.table) + (type.name === type.table ? 0 : identCount(statement, s.app.dbSchema, type.name));
  if (named !== 1) return undefined;
  const result = await m.store.query<Record<string, string | null>>(bind(statement, s.binder.request));
  const answer = result.rows[0] ?? {};
  const read = new Map(reads.map((p, i) => [p.key, answer[`c${i}`] ?? 'null']));
  const event = answer.event;
  if (wanted && typeof event === 'string') {
    const events = new RowEvents();
    events.record({ type: type.name, kind: 'create', id, row: event });
    await events.publish(m.store, s.app.app.id).catch((err: unknown) => m.ports.events.lost?.(err));
  }
  return assemble(parts, read);
}

/**
 * The INSERT's columns and values: value fields, and ids of objects held by this row (not
 * one-to-one, which moves a link away from another row) that the caller may link to whatever
 * they are. Undefined when the input asks for more (nested creates, links held by others).
 */
async function insertedRow(s: CompileState, m: MutationContext, type: ModelType, input: Input, id: string): Promise<{ columns: SqlFragment[]; values: SqlFragment[] } | undefined> {
  const columns: SqlFragment[] = [ident('id')];
  const values: SqlFragment[] = [sql`${id}::uuid`];
  const writer = { app: s.app, accounts: m.ports.accounts };
  for (const field of type.fields) {
    if (field.kind === 'value') {
      const v = input[field.name];
      if (v === undefined) continue;
      columns.push(ident(field.column));
      values.push(await columnValue(writer, type, field, v));
      continue;
    }
    const given = input[field.name];
    if (field.list) {
      if (Array.isArray(given) && given.length > 0) return undefined;
      continue;
    }
    const idInput = input[idColumn(field.name)];
    if (idInput === undefined || idInput === null || idInput === '') {
      if (given !== undefined && given !== null) return undefined;
      continue;
    }
    const link = s.app.link(type, field);
    if (link.kind !== 'holds' || s.app.relation(field.relation).kind === 'oneToOne') return undefined;
    if (!linkHoldsAlways(s, s.app.type(field.target))) return undefined;
    columns.push(ident(link.column));
    values.push(sql`${relationTarget(type, field, idInput)}::uuid`);
  }
  return { columns, values };
}

/** The payload read from the inserted row; undefined for a part only the general path answers. */
function payloadParts(s: CompileState, type: ModelType, id: string, input: Input, payloadType: string, nodes: readonly FieldNode[]): PayloadPart[] | undefined {
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const { key, group, role } = selection;
    const common = commonPart(s, payloadType, selection, input.clientMutationId);
    if (common) parts.push(common);
    else if (role?.kind === 'changedRow') parts.push({ key, phase: 'after', json: rowPart(s, type.name, id, group, CREATED) });
    else if (role?.kind === 'changedEdge') parts.push({ key, phase: 'after', json: edgePart(s, type.name, id, group, CREATED) });
    else return undefined;
  }
  return parts;
}
