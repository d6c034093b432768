// A mutation's events for the app's EVENT functions, written to the outbox inside the
// mutation's own transaction: a committed write always leaves its events, a rolled-back one
// never does. Each write the API names an operation of — the root row or edge, and every row a
// nested create adds (under its type's create mutation) — records the row as it was; the rows
// as they are left are read once the writes are done. Rows travel as the API shows them:
// global ids, field names, ISO 8601 times, no write-only field.

import { randomUUID } from 'node:crypto';
import { accountType, encodeId, idColumn, normalizeDateTime } from '../../model/index.js';
import type { Relation } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { insertDeliveries } from '../../store/index.js';
import type { NewDelivery, Transaction } from '../../store/index.js';
import type { AppContext } from '../context.js';
import { rowJson } from './events.js';

/** Which EVENT functions hear which operation, and how a commit that wrote events is told. */
export interface FunctionPorts {
  /** The enabled EVENT functions (by name) that want `operation`'s events; empty when none. */
  eventFunctions(operation: string): readonly string[];
  /** Called after a commit that wrote outbox rows (it wakes a delivery worker). */
  queued(): void;
}

/** Who made the mutation, as the events tell it. */
export interface OutboxCaller {
  /** The caller's row uuid, when a user. */
  userId?: string | undefined;
  admin: boolean;
}

type Subject = { kind: 'row'; type: string } | { kind: 'edge'; relation: Relation };

interface Recorded {
  operation: string;
  functions: readonly string[];
  subject: Subject;
  /** The row's (or join row's) uuid. */
  id: string;
  /** The row as it was, JSON text of the table row; null for a create. */
  before: string | null;
  /** The row is gone (a delete, a removed edge): there is no state after. */
  gone: boolean;
  /** An edge's end ids, end 1 then end 2. */
  ends?: [string, string];
}

export class Outbox {
  readonly #ports: FunctionPorts | undefined;
  readonly #caller: OutboxCaller;
  readonly #recorded: Recorded[] = [];
  #written = 0;

  constructor(ports: FunctionPorts | undefined, caller: OutboxCaller = { admin: false }) {
    this.#ports = ports;
    this.#caller = caller;
  }

  /** The functions that want `operation`'s events: when none, nothing needs recording (or reading). */
  wants(operation: string): boolean {
    return (this.#ports?.eventFunctions(operation).length ?? 0) > 0;
  }

  /** Records a row write of `operation` (the row's state before it as JSON text, null for a create). */
  row(operation: string, type: string, id: string, before: string | null, gone = false): void {
    const functions = this.#ports?.eventFunctions(operation) ?? [];
    if (functions.length > 0) this.#recorded.push({ operation, functions, subject: { kind: 'row', type }, id, before, gone });
  }

  /** Records an edge write of `operation` (the join row's state before it, null when added). */
  edge(operation: string, relation: Relation, joinId: string, ends: [string, string], before: string | null, gone = false): void {
    const functions = this.#ports?.eventFunctions(operation) ?? [];
    if (functions.length > 0) this.#recorded.push({ operation, functions, subject: { kind: 'edge', relation }, id: joinId, before, gone, ends });
  }

  /** Whether the transaction wrote outbox rows (told to the ports once it has committed). */
  get written(): boolean {
    return this.#written > 0;
  }

  /** After a commit: tells the ports, when there were events. */
  committed(): void {
    if (this.#written > 0) this.#ports?.queued();
  }

  /** Reads each row's state after the writes and writes one outbox row per event and function. */
  async write(tx: Transaction, app: AppContext): Promise<void> {
    if (this.#recorded.length === 0) return;
    const appId = app.app.id;
    const caller = { userId: this.#caller.userId === undefined ? null : encodeId(accountType(app.app.model).name, this.#caller.userId), admin: this.#caller.admin };
    const deliveries: NewDelivery[] = [];
    for (const r of this.#recorded) {
      const after = r.gone ? null : await readRow(tx, app, r.subject, r.id);
      const shown = (json: string | null) => (json === null ? null : apiRow(app, r.subject, JSON.parse(json) as Record<string, unknown>));
      const event = {
        operation: r.operation,
        type: r.subject.kind === 'row' ? r.subject.type : r.subject.relation.name,
        before: shown(r.before),
        after: shown(after),
        edge: r.subject.kind === 'edge' && r.ends ? edgeOf(r.subject.relation, r.ends) : null,
      };
      const payload = JSON.stringify({ caller, event });
      for (const name of r.functions) deliveries.push({ id: randomUUID(), functionName: name, operation: r.operation, payload });
    }
    await insertDeliveries(tx, appId, deliveries);
    this.#written = deliveries.length;
  }
}

/** The table row `id` of a subject as JSON text (write-only columns left out); null when gone. */
export async function readRow(tx: Transaction, app: AppContext, subject: Subject, id: string): Promise<string | null> {
  const z = ident('r');
  const table = subject.kind === 'row' ? app.table(app.type(subject.type).table) : joinTable(app, subject.relation);
  const json = subject.kind === 'row' ? rowJson(app, subject.type, z) : sql`row_to_json(${z})::text`;
  const { rows } = await tx.query<{ row: string }>(sql`SELECT ${json} AS row FROM ${table} ${z} WHERE ${z}.id = ${id}::uuid`);
  return rows[0]?.row ?? null;
}

function joinTable(app: AppContext, relation: Relation): SqlFragment {
  if (relation.storage.kind !== 'joinTable') throw new Error(`${relation.name} has no join table`);
  return app.table(relation.storage.table);
}

function time(value: unknown): unknown {
  return typeof value === 'string' ? (normalizeDateTime(value) ?? value) : value;
}

function uuidAsId(type: string, value: unknown): unknown {
  return typeof value === 'string' ? encodeId(type, value) : value;
}

/** A table row as the API shows it: only the fields of the model, ids global, times ISO 8601. */
function apiRow(app: AppContext, subject: Subject, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (subject.kind === 'edge') {
    const storage = subject.relation.storage;
    if (storage.kind !== 'joinTable') return out;
    storage.columns.forEach((column, i) => (out[idColumn(storage.endNames[i] as string)] = uuidAsId(storage.targets[i] as string, row[column])));
    for (const field of subject.relation.joinFields) if (!field.writeOnly && field.column in row) out[field.name] = value(field.type, row[field.column]);
  } else {
    const type = app.type(subject.type);
    out.id = uuidAsId(type.name, row.id);
    for (const field of type.fields) {
      if (field.kind === 'value') {
        if (!field.writeOnly && field.column in row) out[field.name] = field.list ? row[field.column] : value(field.type, row[field.column]);
        continue;
      }
      const link = app.link(type, field);
      if (link.kind === 'holds' && link.column in row) out[idColumn(field.name)] = uuidAsId(field.target, row[link.column]);
    }
  }
  out.createdAt = time(row.createdAt);
  out.modifiedAt = time(row.modifiedAt);
  return out;
}

function value(type: { kind: string; name: string }, v: unknown): unknown {
  return type.kind === 'scalar' && type.name === 'DateTime' ? time(v) : v;
}

function edgeOf(relation: Relation, ends: [string, string]): Record<string, unknown> {
  const storage = relation.storage;
  const edge: Record<string, unknown> = { relation: relation.name };
  if (storage.kind === 'joinTable') storage.endNames.forEach((end, i) => (edge[idColumn(end)] = encodeId(storage.targets[i] as string, ends[i] as string)));
  return edge;
}
