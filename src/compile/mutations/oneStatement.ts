// The common create, update and delete as one statement, `INSERT | UPDATE | DELETE … RETURNING
// <payload>`, committed on its own (or in one batch with other requests': store/lanes.ts), where
// the general path runs BEGIN, its checks, the write, the payload's SELECT and COMMIT. Taken only
// when that path would run no other statement (no rule that depends on the row or on linked
// objects, no nested create, no link moved, no EVENT function, no built-in type) and the payload
// reads the written table only through the written row: a statement's reads do not see its own
// writes, so any other read of that table would answer from before it. Anything else runs as
// before (run.ts).
//
// The statement is compiled once per root field of a document, kind of caller and shape of the
// input (which fields it gives, and for links whether to something or to nothing), and kept
// with the document's plans as queries are (../plans.ts); each request converts and checks its
// own values and binds them, the row's uuid first (RequestValues.written). Whether a shape can
// take this path at all is kept the same way.

import { randomUUID } from 'node:crypto';
import type { FieldNode } from 'graphql';
import { notFound } from '../../errors/index.js';
import { idColumn } from '../../model/index.js';
import type { ModelType } from '../../model/index.js';
import { ident, identCount, join, sql, value } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { decodeId } from '../ids.js';
import { Binder, Slot, bindPrepared, prepare } from '../params.js';
import type { PreparedStatement, RequestValues } from '../params.js';
import type { ShapedPlans } from '../plans.js';
import { rowAt } from '../read.js';
import { CompileState } from '../state.js';
import { castOf } from '../values.js';
import { createHoldsAlways, existingHoldsAlways, linkHoldsAlways } from './checks.js';
import type { MutationContext } from './context.js';
import { COMMIT_STAMP, RowEvents, rowJson } from './events.js';
import { Outbox } from './outbox.js';
import { commonPart, edgePart, payloadFields } from './payload.js';
import { columnInput, relationTarget } from './rows.js';
import { eventsWanted } from './writer.js';
import type { Writer } from './writer.js';
import type { AppContext } from '../context.js';

type Input = Record<string, unknown>;
type Kind = 'create' | 'update' | 'delete';

/** The written row, as the statement's RETURNING names it. */
const WRITTEN = ident('tessera$row');

/** The written row as a relation of one row, for the payload reads that alias it again (an edge's). */
const CHANGED = sql`(SELECT ${WRITTEN}.*)`;

/** One value the statement writes, from the request's input (checked and converted; may throw a coded error). */
type ColumnInput = (w: Pick<Writer, 'app' | 'accounts'>, input: Input) => unknown;

/** One key of the payload: its `"key":` prefix, and JSON known already, a column of the statement's answer, or the input's clientMutationId. */
type PlanPart = { prefix: string; text: string } | { prefix: string; column: string } | { prefix: string; clientMutationId: true };

/** A root field's one-statement write for one kind of caller and input shape. */
interface OneStatementPlan {
  statement: PreparedStatement;
  /** The values bound after the row's uuid, in order. */
  columns: readonly ColumnInput[];
  parts: readonly PlanPart[];
  /** Whether the answer holds the row for subscribers (column `event`) and the commit stamp (`own`, `snapshot`). */
  event: boolean;
}

/** A write plan, or null: writes of that shape take the general path. */
export type WritePlan = OneStatementPlan | null;

/** Where a root field's plans are kept (the document's write plans) and under which key. */
export interface WritePlans {
  plans: ShapedPlans<WritePlan>;
  /** The root field's response key. */
  key: string;
}

/**
 * The mutation `kind` of `type` with `input` as one statement, and its payload's JSON text;
 * undefined when it needs the general path (then nothing has been written).
 */
export async function writeInOneStatement(s: CompileState, m: MutationContext, kind: Kind, type: ModelType, input: Input, payloadType: string, nodes: readonly FieldNode[], kept?: WritePlans): Promise<string | undefined> {
  // Built-in types (users, roles, files) do more on a write than change a row.
  if (type.builtin) return undefined;
  const functions = m.ports.functions;
  if (functions && new Outbox(functions).wants(s.app.names.mutation(kind, type.name))) return undefined;
  const asked = eventsWanted(m.ports.events);
  const wanted = typeof asked === 'boolean' ? asked : await asked;
  const request = s.binder.request;
  const prefix = kept ? `${kept.key}\u0001${s.access}${request.userId === undefined ? '-' : 'u'}${wanted ? 'e' : '-'}\u0001${inputShape(type, input)}\u0001` : '';
  let plan = kept?.plans.get(request, prefix);
  if (plan === undefined) {
    const compiled = compilePlan(s, kind, type, input, payloadType, nodes, wanted);
    kept?.plans.set(request, compiled.shapes, compiled.plan, prefix);
    plan = compiled.plan;
  }
  if (plan === null) return undefined;
  const id = kind === 'create' ? randomUUID() : decodeId(String(input.id), type.name, 'input.id');
  const writer = new ColumnWriter(s.app, m.ports);
  const written: unknown[] = [id];
  for (const column of plan.columns) {
    const v = column(writer, input);
    written.push(v instanceof Promise ? await v : v);
  }
  const bound: RequestValues = { appId: request.appId, variables: request.variables, settings: request.settings, userId: request.userId, written };
  const result = await m.store.query<Record<string, string | boolean | null>>(bindPrepared(plan.statement, bound), RECURRING);
  const answer = result.rows[0] ?? {};
  if (answer.written !== true && kind === 'update') throw notFound(`No ${type.name} has the id given to ${s.app.names.mutation('update', type.name)}`);
  const event = answer.event;
  if (plan.event && typeof event === 'string') {
    const events = new RowEvents();
    events.record({ type: type.name, kind, id, row: event });
    events.stamp({ own: String(answer.own), snapshot: String(answer.snapshot) });
    await events.publish(m.store, s.app.app.id).catch((err: unknown) => m.ports.events.lost?.(err));
  }
  return payloadText(plan.parts, answer, input.clientMutationId);
}

/** What the statement runs with: PostgreSQL may keep it prepared, and it commits on its own. */
const RECURRING = { recurring: true, standalone: true } as const;

/** What a column's conversion may use: the app, and the accounts ports, made only when asked for (to hash a password, which built-in types alone have). */
class ColumnWriter implements Pick<Writer, 'app' | 'accounts'> {
  constructor(
    readonly app: AppContext,
    readonly ports: MutationContext['ports'],
  ) {}

  get accounts(): Writer['accounts'] {
    return this.ports.accounts;
  }
}

/** The payload's JSON text from the statement's answer, keys in selection order. */
function payloadText(parts: readonly PlanPart[], answer: Readonly<Record<string, unknown>>, clientMutationId: unknown): string {
  let text = '';
  for (const part of parts) {
    const json =
      'text' in part ? part.text
      : 'column' in part ? ((answer[part.column] as string | null | undefined) ?? 'null')
      : JSON.stringify(typeof clientMutationId === 'string' ? clientMutationId : null);
    text += `${text === '' ? '{' : ','}${part.prefix}${json}`;
  }
  return text === '' ? '{}' : `${text}}`;
}

/**
 * What a write's plan depends on in its input: per field of the type, whether it is given,
 * and for a relation what (nothing, null, objects to create, an id of something or of nothing).
 */
function inputShape(type: ModelType, input: Input): string {
  let shape = '';
  for (const field of type.fields) {
    const given = input[field.name];
    if (field.kind === 'value') {
      shape += given === undefined ? '-' : 'v';
      continue;
    }
    shape += given === undefined ? '-' : given === null ? '0' : Array.isArray(given) ? (given.length > 0 ? 'L' : 'E') : 'o';
    const idInput = input[idColumn(field.name)];
    shape += idInput === undefined ? '-' : idInput === null || idInput === '' ? '0' : 'i';
  }
  return shape;
}

/** A parameter bound to the request's `i`th written value. */
function writtenValue(i: number): SqlFragment {
  return value(new Slot((request) => request.written?.[i]));
}

/** The plan for this input's shape, compiled with a binder of its own: its shapes are the plan's. */
function compilePlan(s0: CompileState, kind: Kind, type: ModelType, input: Input, payloadType: string, nodes: readonly FieldNode[], wanted: boolean): { plan: WritePlan; shapes: Binder['shapes'] } {
  const binder = new Binder(s0.binder.request);
  const s = new CompileState(s0.app, binder, s0.fragments, s0.access);
  const none = { plan: null, shapes: binder.shapes };
  if (kind === 'create' ? !createHoldsAlways(s, type, input) : !existingHoldsAlways(s, type, input, kind)) return none;
  const id = writtenValue(0);
  const columns: ColumnInput[] = [];
  const write = writeOf(s, kind, type, input, id, columns);
  if (!write) return none;
  const parts = payloadParts(s, type, id, payloadType, nodes);
  if (!parts) return none;
  // The payload is read in the write's own RETURNING: a row comes back only when one was written.
  const selected = [sql`TRUE AS ${ident('written')}`, ...parts.reads];
  if (wanted) selected.push(sql`${rowJson(s.app, type.name, WRITTEN)} AS ${ident('event')}`, COMMIT_STAMP);
  const statement = sql`${write} RETURNING ${join(selected)}`;
  // The write names the table once; any other read of it would not see the write, so such a
  // payload (or a rule it is read under) takes the general path.
  if (identCount(statement, s.app.dbSchema, type.table) !== 1) return none;
  return { plan: { statement: prepare(statement), columns, parts: parts.parts, event: wanted }, shapes: binder.shapes };
}

/** The write, its row aliased WRITTEN, without its RETURNING; undefined when the input asks for more than one row's change. */
function writeOf(s: CompileState, kind: Kind, type: ModelType, input: Input, id: SqlFragment, columns: ColumnInput[]): SqlFragment | undefined {
  const table = s.app.table(type.table);
  if (kind === 'delete') return sql`DELETE FROM ${table} AS ${WRITTEN} WHERE ${WRITTEN}.id = ${id}::uuid`;
  const row = columnsOf(s, type, input, columns);
  if (!row) return undefined;
  if (kind === 'update') {
    const sets = [sql`"modifiedAt" = now()`, ...row.map(([column, v]) => sql`${column} = ${v}`)];
    return sql`UPDATE ${table} AS ${WRITTEN} SET ${join(sets)} WHERE ${WRITTEN}.id = ${id}::uuid`;
  }
  const names = [ident('id'), ...row.map(([column]) => column)];
  const values = [sql`${id}::uuid`, ...row.map(([, v]) => v)];
  return sql`INSERT INTO ${table} AS ${WRITTEN} (${join(names)}) VALUES (${join(values)})`;
}

/**
 * The columns an input writes and their values, each value bound from the request (its
 * conversion added to `columns`): value fields, and ids of objects held by this row (not
 * one-to-one, which moves a link away from another row) that the caller may link to whatever
 * they are. Undefined when the input asks for more (nested creates, links held by others).
 */
function columnsOf(s: CompileState, type: ModelType, input: Input, columns: ColumnInput[]): [SqlFragment, SqlFragment][] | undefined {
  const row: [SqlFragment, SqlFragment][] = [];
  const bound = (convert: ColumnInput): SqlFragment => {
    columns.push(convert);
    return writtenValue(columns.length);
  };
  for (const field of type.fields) {
    if (field.kind === 'value') {
      if (input[field.name] !== undefined) row.push([ident(field.column), sql`${bound((w, given) => columnInput(w, type, field, given[field.name]))}::${castOf(field)}`]);
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
    // An id of nothing clears the link, which needs no right to read anything.
    const linksTo = idInput !== null && idInput !== '';
    if (linksTo && !linkHoldsAlways(s, s.app.type(field.target))) return undefined;
    row.push([ident(link.column), sql`${bound((_w, given) => relationTarget(type, field, given[idColumn(field.name)]))}::uuid`]);
  }
  return row;
}

/** The payload: parts known already, and the statement's columns that read the written row; undefined for a part only the general path answers. */
function payloadParts(s: CompileState, type: ModelType, id: SqlFragment, payloadType: string, nodes: readonly FieldNode[]): { parts: PlanPart[]; reads: SqlFragment[] } | undefined {
  const parts: PlanPart[] = [];
  const reads: SqlFragment[] = [];
  const read = (prefix: string, json: SqlFragment) => {
    const column = `c${reads.length}`;
    reads.push(sql`(${json})::text AS ${ident(column)}`);
    parts.push({ prefix, column });
  };
  // A delete's payload is the row as it was, which is what its DELETE returns: the same read.
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const { key, group, role } = selection;
    const prefix = `${JSON.stringify(key)}:`;
    if (role?.kind === 'clientMutationId') parts.push({ prefix, clientMutationId: true });
    else if (role?.kind === 'changedRow') read(prefix, rowAt(s, type.name, WRITTEN, group));
    else if (role?.kind === 'changedEdge') read(prefix, edgePart(s, type.name, id, group, CHANGED));
    else {
      const common = commonPart(s, payloadType, selection, undefined);
      if (!common) return undefined;
      if ('text' in common) parts.push({ prefix, text: common.text });
      else read(prefix, common.json);
    }
  }
  return { parts, reads };
}
