// The common create, update and delete as one statement, `WITH changed AS (INSERT | UPDATE |
// DELETE … RETURNING *) SELECT <payload>`, committed on its own, where the general path runs
// BEGIN, its checks, the write, the payload's SELECT and COMMIT. Taken only when that path would
// run no other statement (no rule that depends on the row or on linked objects, no nested
// create, no link moved, no EVENT function, no built-in type) and the payload reads the written
// table only through the written row: a statement's reads do not see its own writes, so any
// other read of that table would answer from before it. Anything else runs as before (run.ts).

import { randomUUID } from 'node:crypto';
import type { FieldNode } from 'graphql';
import { notFound } from '../../errors/index.js';
import { idColumn } from '../../model/index.js';
import type { ModelType } from '../../model/index.js';
import { ident, identCount, join, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { decodeId } from '../ids.js';
import { bind } from '../params.js';
import type { CompileState } from '../state.js';
import { createHoldsAlways, existingHoldsAlways, linkHoldsAlways } from './checks.js';
import type { MutationContext } from './context.js';
import { RowEvents, rowJson } from './events.js';
import { Outbox } from './outbox.js';
import { assemble, commonPart, edgePart, payloadFields, rowPart } from './payload.js';
import type { PayloadPart } from './payload.js';
import { columnValue, relationTarget } from './rows.js';

type Input = Record<string, unknown>;
type Kind = 'create' | 'update' | 'delete';

/** The rows the statement writes, as its payload reads them. */
const CHANGED = ident('tessera$changed');

/**
 * The mutation `kind` of `type` with `input` as one statement, and its payload's JSON text;
 * undefined when it needs the general path (then nothing has been written).
 */
export async function writeInOneStatement(s: CompileState, m: MutationContext, kind: Kind, type: ModelType, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string | undefined> {
  // Built-in types (users, roles, files) do more on a write than change a row.
  if (type.builtin) return undefined;
  if (kind === 'create' ? !createHoldsAlways(s, type, input) : !existingHoldsAlways(s, type, input, kind)) return undefined;
  if (new Outbox(m.ports.functions).wants(s.app.names.mutation(kind, type.name))) return undefined;
  const id = kind === 'create' ? randomUUID() : decodeId(String(input.id), type.name, 'input.id');
  const write = await writeOf(s, m, kind, type, input, id);
  if (!write) return undefined;
  const parts = payloadParts(s, type, id, kind, input, payloadType, nodes);
  if (!parts) return undefined;
  const wanted = m.ports.events.wanted ? await m.ports.events.wanted() : true;
  const reads = parts.filter((p): p is Extract<PayloadPart, { json: SqlFragment }> => 'json' in p);
  const e = ident('e');
  const columns = [sql`EXISTS (SELECT 1 FROM ${CHANGED}) AS ${ident('written')}`, ...reads.map((p, i) => sql`(${p.json})::text AS ${ident(`c${i}`)}`)];
  if (wanted) columns.push(sql`(SELECT ${rowJson(s.app, type.name, e)} FROM ${CHANGED} ${e}) AS ${ident('event')}`);
  const statement = sql`WITH ${CHANGED} AS (${write} RETURNING *) SELECT ${join(columns)}`;
  // The write names the table once; any other read of it would not see the write, so such a
  // payload (or a rule it is read under) takes the general path.
  if (identCount(statement, s.app.dbSchema, type.table) !== 1) return undefined;
  const result = await m.store.query<Record<string, string | boolean | null>>(bind(statement, s.binder.request), { recurring: true });
  const answer = result.rows[0] ?? {};
  if (answer.written !== true && kind === 'update') throw notFound(`No ${type.name} has the id given to ${s.app.names.mutation('update', type.name)}`);
  const event = answer.event;
  if (wanted && typeof event === 'string') {
    const events = new RowEvents();
    events.record({ type: type.name, kind, id, row: event });
    await events.publish(m.store, s.app.app.id).catch((err: unknown) => m.ports.events.lost?.(err));
  }
  const read = new Map(reads.map((p, i) => [p.key, typeof answer[`c${i}`] === 'string' ? (answer[`c${i}`] as string) : 'null']));
  return assemble(parts, read);
}

/** The write, without its RETURNING; undefined when the input asks for more than one row's change. */
async function writeOf(s: CompileState, m: MutationContext, kind: Kind, type: ModelType, input: Input, id: string): Promise<SqlFragment | undefined> {
  const table = s.app.table(type.table);
  if (kind === 'delete') return sql`DELETE FROM ${table} WHERE id = ${id}::uuid`;
  const row = await columnsOf(s, m, type, input);
  if (!row) return undefined;
  if (kind === 'update') {
    const sets = [sql`"modifiedAt" = now()`, ...row.map(([column, value]) => sql`${column} = ${value}`)];
    return sql`UPDATE ${table} SET ${join(sets)} WHERE id = ${id}::uuid`;
  }
  const columns = [ident('id'), ...row.map(([column]) => column)];
  const values = [sql`${id}::uuid`, ...row.map(([, value]) => value)];
  return sql`INSERT INTO ${table} (${join(columns)}) VALUES (${join(values)})`;
}

/**
 * The columns an input writes and their values: value fields, and ids of objects held by this
 * row (not one-to-one, which moves a link away from another row) that the caller may link to
 * whatever they are. Undefined when the input asks for more (nested creates, links held by
 * others).
 */
async function columnsOf(s: CompileState, m: MutationContext, type: ModelType, input: Input): Promise<[SqlFragment, SqlFragment][] | undefined> {
  const row: [SqlFragment, SqlFragment][] = [];
  const writer = { app: s.app, accounts: m.ports.accounts };
  for (const field of type.fields) {
    if (field.kind === 'value') {
      const v = input[field.name];
      if (v !== undefined) row.push([ident(field.column), await columnValue(writer, type, field, v)]);
      continue;
    }
    const given = input[field.name];
    if (field.list) {
      if (Array.isArray(given) && given.length > 0) return undefined;
      continue;
    }
    const idInput = input[idColumn(field.name)];
    // A nested object without an id is created: more than one row.
    if (given !== undefined && given !== null && (idInput === undefined || idInput === null || idInput === '')) return undefined;
    if (idInput === undefined) continue;
    const link = s.app.link(type, field);
    if (link.kind !== 'holds' || s.app.relation(field.relation).kind === 'oneToOne') return undefined;
    const target = relationTarget(type, field, idInput);
    if (target !== null && !linkHoldsAlways(s, s.app.type(field.target))) return undefined;
    row.push([ident(link.column), sql`${target}::uuid`]);
  }
  return row;
}

/** The payload read from the written row; undefined for a part only the general path answers. */
function payloadParts(s: CompileState, type: ModelType, id: string, kind: Kind, input: Input, payloadType: string, nodes: readonly FieldNode[]): PayloadPart[] | undefined {
  // A delete's payload is the row as it was, which is what its DELETE returns.
  const phase = kind === 'delete' ? 'before' : 'after';
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const { key, group, role } = selection;
    const common = commonPart(s, payloadType, selection, input.clientMutationId);
    if (common) parts.push(common);
    else if (role?.kind === 'changedRow') parts.push({ key, phase, json: rowPart(s, type.name, id, group, CHANGED) });
    else if (role?.kind === 'changedEdge') parts.push({ key, phase, json: edgePart(s, type.name, id, group, CHANGED) });
    else return undefined;
  }
  return parts;
}
