// A subscription (`subscribeToX(mutations, filter) { mutation value edge }`) compiled once, at
// subscribe time, into two statements that each answer the payload of one row event: one reads
// the row from the state the event carries (the row as its mutation left it, or as it was before
// a delete), the other from its table (for an event without a state). Both apply the read rules
// and the filter exactly as a query would, for many subscribers at once: the subscribers' user
// ids come as an array parameter joined to the row, and the rules read the caller from the
// joined element instead of a parameter, so one statement answers an event for every
// subscriber of the same subscription (as Hasura multiplexes live queries). Subscribers whose
// rules do not return the row are not answered, and do not hear of the event. What the rules go
// through counts as it stood when the event committed, from the commit stamp it carries: the
// grants (links, roles) and the relation columns of the rows a path crosses; one made since
// does not count, however late the event is delivered (AT_COMMIT).

import { GraphQLError, Kind, getOperationAST } from 'graphql';
import type { DocumentNode, FieldNode, FragmentDefinitionNode } from 'graphql';
import { TesseraError, badInput, isTesseraError } from '../errors/index.js';
import { roleOf } from '../graphql/index.js';
import { LINK_TIME_COLUMN } from '../model/index.js';
import type { StoodAt } from '../permissions/index.js';
import { ident, identCount, literal, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { Queryable } from '../store/index.js';
import { readArguments } from './args.js';
import type { AppContext } from './context.js';
import { cursorSql } from './cursor.js';
import type { CommitStamp, RowEvent, RowEventKind } from './mutations/events.js';
import { fieldOf, modelFields, modelObject } from './object.js';
import { cursorKeys, signatureParam, sortKeys } from './order.js';
import { Binder, bindPrepared, boundValues, prepare, resolveDeep } from './params.js';
import type { EventValues, PreparedStatement, RequestValues } from './params.js';
import { resolveRefusals } from './refusals.js';
import { collectFields, subSelections } from './selection.js';
import { CompileState } from './state.js';
import { coerceVariables } from './variables.js';
import { jsonObject } from './values.js';
import { checkPattern, whereAll, wherePredicate } from './where.js';

export interface SubscribeArgs {
  app: AppContext;
  document: DocumentNode;
  operationName?: string | undefined;
  variables?: Readonly<Record<string, unknown>> | undefined;
  userId?: string | undefined;
  admin: boolean;
}

export interface SubscriptionPlan {
  app: AppContext;
  /** The subscriber as the statements' caller array holds them: their user id, null when anonymous or an admin token. */
  viewer: string | null;
  /** The model type whose events the subscription hears. */
  type: string;
  kinds: ReadonlySet<RowEventKind>;
  /**
   * Subscriptions with the same key run the same statements with the same values but the
   * caller: one evaluation of an event serves all of them, each caller's rules applied to
   * their own element of the caller array. (Response keys are not in it: see eventResult.)
   */
  key: string;
  admin: boolean;
  /** The root field's response key and node (for error paths). */
  field: { key: string; node: FieldNode };
  fromTable: PreparedStatement;
  fromState: PreparedStatement;
  request: RequestValues;
}

/** One payload of an event and the callers it is for (positions in the array evaluated, from 0). */
export interface EventPayload {
  text: string;
  callers: number[];
}

/** The result of one event for a subscriber: `data` as JSON text. */
export interface EventResult {
  data: string;
  errors: GraphQLError[];
}

/** The kind of event an `XMutationEvent` value names. */
function mutationKind(app: AppContext, typeName: string, name: string): RowEventKind | undefined {
  return app.names.mutationEvents(typeName).find((e) => e.name === name)?.kind;
}

/** The `XMutationEvent` value naming an event of `typeName`. */
function mutationName(app: AppContext, typeName: string, kind: RowEventKind): string {
  const name = app.names.mutationEvents(typeName).find((e) => e.kind === kind)?.name;
  if (name === undefined) throw new Error(`${typeName} has no ${kind} event`);
  return name;
}

/** Every `matches` / `notMatches` operand of a filter tree. */
function patternsOf(filter: unknown, out: string[] = []): string[] {
  if (Array.isArray(filter)) for (const item of filter) patternsOf(item, out);
  else if (filter !== null && typeof filter === 'object') {
    for (const [k, v] of Object.entries(filter)) {
      if ((k === 'matches' || k === 'notMatches') && typeof v === 'string') out.push(v);
      else patternsOf(v, out);
    }
  }
  return out;
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const out: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out[d.name.value] = d;
  return out;
}

/** The payload object for the row aliased `z`. */
function payloadJson(s: CompileState, typeName: string, z: SqlFragment, nodes: readonly FieldNode[]): SqlFragment {
  const type = s.app.type(typeName);
  const payloadName = s.app.names.subscriptionPayload(typeName);
  const edgeName = s.app.names.edge(typeName);
  const pairs: [string, SqlFragment][] = [];
  for (const [key, group] of collectFields(s, subSelections(nodes), new Set([payloadName]))) {
    const name = (group[0] as FieldNode).name.value;
    if (name === '__typename') {
      pairs.push([key, sql`${literal(payloadName)}::text`]);
      continue;
    }
    const role = roleOf(fieldOf(s, payloadName, name));
    if (role.kind === 'eventMutation') pairs.push([key, sql`${s.binder.fromRequest((r) => r.event?.mutation ?? null)}::text`]);
    else if (role.kind === 'eventValue') pairs.push([key, modelObject(s, type, z, modelFields(s, typeName, group))]);
    else if (role.kind === 'eventEdge') {
      const keys = sortKeys(s, type, undefined);
      const edge: [string, SqlFragment][] = [];
      for (const [edgeKey, edgeGroup] of collectFields(s, subSelections(group), new Set([edgeName]))) {
        const edgeField = (edgeGroup[0] as FieldNode).name.value;
        if (edgeField === '__typename') edge.push([edgeKey, sql`${literal(edgeName)}::text`]);
        else if (edgeField === 'cursor') edge.push([edgeKey, cursorSql(signatureParam(s, typeName, keys), cursorKeys(z, keys))]);
        else if (edgeField === 'node') edge.push([edgeKey, modelObject(s, type, z, modelFields(s, typeName, edgeGroup))]);
        else throw new Error(`unknown edge field ${edgeField}`);
      }
      pairs.push([key, jsonObject(edge)]);
    } else throw new Error(`unknown payload field ${payloadName}.${name}`);
  }
  return jsonObject(pairs);
}

/** The joined subscriber: `viewer` (their user id, NULL when anonymous) and `i`, their position in the array. */
const CALLER = ident('caller');
const CALLER_VIEWER = sql`${CALLER}.viewer`;

/**
 * The event's commit, joined to its statements as one row of `xid` values: `own` (its
 * transaction), `xmax` and `running` (its snapshot's); all NULL for an event without a stamp.
 */
const COMMITTED = ident('committed');

function committedRow(s: CompileState): SqlFragment {
  const at = (read: (c: NonNullable<EventValues['committed']>) => unknown) => s.binder.fromRequest((r) => (r.event?.committed ? read(r.event.committed) : null));
  return sql`(SELECT ${at((c) => c.own)}::xid AS own, ${at((c) => c.xmax)}::xid AS xmax, ${at((c) => c.running)}::xid[] AS running, ${at((c) => c.own8)}::xid8 AS own8, ${at((c) => c.snapshot)}::pg_snapshot AS snapshot) ${COMMITTED}`;
}

/**
 * The predicate "the row `row`, a grant a rule joins (a link, a role membership, a role), stood
 * when the event committed": the version read now was made by the event's own transaction, or
 * by one that had committed by the event's snapshot: not one running then, nor one at or past
 * the snapshot's `xmax`. Which side of `xmax` a 32-bit `xmin` lies on is told by the two ages
 * (transactions before now), so it holds across wraparound; a frozen row's age is the largest
 * there is, and an old row's `xmin` wrapped into the last few transactions only withholds the
 * event. Without a stamp, every row counts (the rules as they are at delivery).
 */
function grantStood(row: SqlFragment): SqlFragment {
  return sql`(${COMMITTED}.own IS NULL OR ${row}.xmin = ${COMMITTED}.own OR NOT (age(${row}.xmin) BETWEEN 0 AND age(${COMMITTED}.xmax) OR ${row}.xmin = ANY(${COMMITTED}.running)))`;
}

const LINKED = ident(LINK_TIME_COLUMN);

/**
 * The predicate "the relation columns of the row `row` pointed where they point now when the
 * event committed": the row was last made or linked (its link time, src/store/ddl/linkTimes.ts)
 * by the event's own transaction, or by one its snapshot saw committed; a row without a link
 * time was linked before link times were kept. The row's other columns change freely: they do
 * not withhold the event.
 */
function linksStood(row: SqlFragment): SqlFragment {
  const at = sql`${row}.${LINKED}`;
  return sql`(${COMMITTED}.own8 IS NULL OR ${at} IS NULL OR ${at} = ${COMMITTED}.own8 OR pg_visible_in_snapshot(${at}, ${COMMITTED}.snapshot))`;
}

/** What the rules of an event statement count as of the event's commit. */
const AT_COMMIT: StoodAt = { grant: grantStood, links: linksStood };

/** The 32-bit transaction ids of a commit stamp (a row's `xmin` holds the low 32 bits of a transaction id). */
function committedValues(stamp: CommitStamp): NonNullable<EventValues['committed']> {
  const low = (xid8: string) => String(BigInt(xid8) & 0xffff_ffffn);
  const [, xmax = '0', running = ''] = stamp.snapshot.split(':');
  return { own: low(stamp.own), xmax: low(xmax), running: running === '' ? [] : running.split(',').map(low), own8: stamp.own, snapshot: stamp.snapshot };
}

/** Whether `frag` reads the joined subscriber (its answer may differ from one caller to the next). */
function readsCaller(frag: SqlFragment): boolean {
  return identCount(frag, 'caller') > 0;
}

/**
 * One event's payload for every subscriber of `callers` the rules and the filter let see the
 * row: a row per distinct payload, with the positions (1-based) of the callers it is for.
 * Where the payload reads nothing of the caller (no field has rules of its own) it is built
 * once, and the callers who may read the row are gathered beside it; otherwise it is built for
 * each caller and grouped.
 */
function statement(s: CompileState, typeName: string, nodes: readonly FieldNode[], filter: unknown, from: 'table' | 'event'): PreparedStatement {
  const type = s.app.type(typeName);
  const z = s.alias();
  const table = s.app.table(type.name);
  const source =
    from === 'table'
      ? sql`${table} ${z}`
      : sql`json_populate_record(NULL::${table}, ${s.binder.fromRequest((r) => r.event?.row ?? null)}::json) ${z}`;
  const callers = sql`unnest(${s.binder.fromRequest((r) => r.event?.callers ?? [])}::uuid[]) WITH ORDINALITY AS ${CALLER}(viewer, i)`;
  const committed = committedRow(s);
  const row = from === 'table' ? sql`${z}.id = ${s.binder.fromRequest((r) => r.event?.id ?? null)}::uuid` : sql`TRUE`;
  const allowed = s.allowed(type, 'read', z);
  const matches = wherePredicate(s, type, z, filter);
  const payload = payloadJson(s, typeName, z, nodes);
  if (readsCaller(payload)) {
    return prepare(sql`SELECT (${payload})::text AS v, array_agg(${CALLER}.i::int) AS callers FROM ${source} CROSS JOIN ${committed} CROSS JOIN ${callers} WHERE ${whereAll([row, allowed, matches])} GROUP BY 1`);
  }
  // A filter that reads the caller is tested per caller too.
  const filterPerCaller = readsCaller(matches);
  const perCaller = filterPerCaller ? [allowed, matches] : [allowed];
  const once = filterPerCaller ? [row] : [row, matches];
  const each = s.alias('c');
  return prepare(
    sql`SELECT (${payload})::text AS v, ${each}.callers FROM ${source} CROSS JOIN ${committed} CROSS JOIN LATERAL (SELECT array_agg(${CALLER}.i::int) AS callers FROM ${callers} WHERE ${whereAll(perCaller)}) ${each} WHERE ${whereAll([...once, sql`${each}.callers IS NOT NULL`])}`,
  );
}

/**
 * Compiles a subscription operation for one subscriber, or throws a coded error (bad
 * variables, an empty event list, a pattern the database refuses — checked with `db` now, not
 * at the first event).
 */
export async function planSubscription(args: SubscribeArgs, db: Queryable): Promise<SubscriptionPlan> {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) throw badInput('Unknown operation: give operationName when the document holds several');
  if (operation.operation !== 'subscription') throw badInput(`A ${operation.operation} is not a subscription`);
  const coerced = coerceVariables(args.app.app.schema, operation, args.variables ?? {});
  if (coerced.errors) throw new TesseraError('BAD_USER_INPUT', coerced.errors.map((e) => e.message).join('; '));
  const request: RequestValues = { appId: args.app.app.id, variables: coerced.coerced, settings: args.app.app.settings, userId: args.userId };
  const s = new CompileState(args.app, new Binder(request), fragmentsOf(args.document), args.admin ? 'admin' : 'rules', CALLER_VIEWER, 'checked', AT_COMMIT);
  const fields = [...collectFields(s, [operation.selectionSet], new Set(['Subscription']))].filter(([, nodes]) => (nodes[0] as FieldNode).name.value !== '__typename');
  // Validation (graphql-js's single-root-field rule) has already refused several root fields.
  const [key, nodes] = fields[0] ?? [];
  if (key === undefined || nodes === undefined) throw badInput('A subscription selects one subscribeToX field');
  const node = nodes[0] as FieldNode;
  const def = fieldOf(s, 'Subscription', node.name.value);
  const role = roleOf(def);
  if (role.kind !== 'subscribe') throw new Error(`${node.name.value} is not a subscription field`);
  const typeName = role.type;
  const argValues = readArguments(def.args, node.arguments, s.binder);
  const mutations = resolveDeep(argValues.mutations, request);
  const kinds = new Set<RowEventKind>();
  for (const name of Array.isArray(mutations) ? mutations : [mutations]) {
    const kind = typeof name === 'string' ? mutationKind(args.app, typeName, name) : undefined;
    if (kind) kinds.add(kind);
  }
  if (kinds.size === 0) throw badInput(`${node.name.value}(mutations): name at least one mutation to hear of`, { argument: 'mutations' });
  const filter = resolveDeep(argValues.filter, request);
  for (const pattern of patternsOf(filter)) {
    checkPattern(pattern, `${node.name.value}(filter)`);
    try {
      await db.query(sql`SELECT '' ~ ${pattern}::text`);
    } catch {
      throw badInput(`${node.name.value}(filter): "${pattern}" is not a valid regular expression`, { argument: 'filter' });
    }
  }
  // Variables are resolved into the filter, their values bound as parameters (part of the key).
  const fromTable = statement(s, typeName, nodes, filter, 'table');
  const fromState = statement(s, typeName, nodes, filter, 'event');
  return {
    app: args.app,
    viewer: args.admin ? null : (args.userId ?? null),
    type: typeName,
    kinds,
    // No value of the statements reads the caller (the rules read the joined caller array), so
    // subscribers of one document and variables share a key whoever they are; binding now also
    // refuses a bad value in the filter's variables before any event.
    key: `${s.access}\u0000${fromTable.text}\u0000${JSON.stringify(boundValues(fromTable, request))}\u0000${JSON.stringify(boundValues(fromState, request))}`,
    admin: args.admin,
    field: { key, node },
    fromTable,
    fromState,
    request,
  };
}

/**
 * The payloads of `event` for the plan's subscription, for every one of `callers` (user ids,
 * null for anonymous callers and admin tokens) in one statement: each distinct payload with
 * the callers it is for. A caller in none may not hear of the event. Throws what the statement
 * throws (the caller then answers each subscriber with eventError).
 */
export async function eventPayloads(plan: SubscriptionPlan, db: Queryable, event: RowEvent, callers: readonly (string | null)[]): Promise<EventPayload[]> {
  if (event.type !== plan.type || !plan.kinds.has(event.kind)) return [];
  if (event.kind === 'delete' && event.row === undefined) return [];
  const committed = event.committed ? committedValues(event.committed) : undefined;
  const request: RequestValues = { ...plan.request, event: { id: event.id, row: event.row, mutation: mutationName(plan.app, plan.type, event.kind), callers, committed } };
  // The row's state travels with the event; without one (a row the mutation's own capture did
  // not find), the row is read as it is now.
  const result = await db.query<{ v: string | null; callers: number[] }>(bindPrepared(event.row === undefined ? plan.fromTable : plan.fromState, request), { recurring: true });
  const payloads: EventPayload[] = [];
  for (const row of result.rows) if (row.v !== null) payloads.push({ text: row.v, callers: row.callers.map((i) => i - 1) });
  return payloads;
}

/**
 * A payload as the plan's subscriber receives it: under their own response key (subscriptions
 * sharing a key may alias the root field differently), fields the rules refuse as null with
 * FORBIDDEN at their paths.
 */
export function eventResult(plan: SubscriptionPlan, text: string): EventResult {
  const resolved = plan.admin ? { text, errors: [] } : resolveRefusals(text, plan.field.key, plan.field.node);
  return { data: `{${JSON.stringify(plan.field.key)}:${resolved.text}}`, errors: resolved.errors };
}

/** What the plan's subscriber receives when the event's statement failed for them. */
export function eventError(plan: SubscriptionPlan, err: unknown): EventResult {
  const original = err instanceof Error ? err : new Error(String(err));
  const error = new GraphQLError(original.message, { nodes: [plan.field.node], path: [plan.field.key], originalError: original, ...(isTesseraError(original) ? { extensions: { ...original.extensions } } : {}) });
  return { data: `{${JSON.stringify(plan.field.key)}:null}`, errors: [error] };
}
