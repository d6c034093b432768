// A custom field of Query or Mutation, answered by the app's RESOLVER function. Compiled once
// per operation (who may call it, the selection of an embedded result, the one statement that
// reads a @model result under the caller's rules) and run per request: the caller is checked
// before anything is called, the arguments go to the function, its answer is judged against
// the declared type and shaped to the selection. No transaction is held during the call.

import { getArgumentValues, getNullableType, isInputObjectType, isListType, isScalarType } from 'graphql';
import type { FieldNode, GraphQLField, GraphQLInputType } from 'graphql';
import { TesseraError } from '../../errors/index.js';
import type { CustomField, CustomRoot } from '../../model/index.js';
import { customFieldGrants } from '../../permissions/index.js';
import { sql } from '../../sql/index.js';
import type { Store } from '../../store/index.js';
import type { AppContext } from '../context.js';
import type { HookCaller } from '../mutations/hooks.js';
import { embeddedSelection, fieldOf } from '../object.js';
import { bindPrepared, prepare } from '../params.js';
import type { PreparedStatement, RequestValues } from '../params.js';
import { rowById, statementOf } from '../read.js';
import type { CompileState } from '../state.js';
import { MAX_STRING_LENGTH, checkText } from '../values.js';
import type { EmbeddedSelection } from '../values.js';
import { judgeAnswer } from './answer.js';
import type { ResolverCalls } from './ports.js';

/** Who may call a custom field, for a caller bound by the app's rules. */
interface CallAccess {
  everyone: boolean;
  /** Any logged-in user. */
  authenticated: boolean;
  /** `SELECT <bool>`: the caller holds one of the rule's roles, or is an app admin. */
  check: PreparedStatement;
}

export interface CustomPlan {
  field: CustomField;
  def: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** Absent for an admin token, which may call every custom field. */
  access?: CallAccess;
  /** An embedded result: the selection asked of it. */
  selection?: EmbeddedSelection[];
  /** A @model result: the statement reading the rows the function named (RequestValues.answered). */
  read?: PreparedStatement;
}

/** What one run needs: the store, the app's RESOLVER functions, the request and its caller. */
export interface CustomRun {
  store: Store;
  resolvers: ResolverCalls | undefined;
  request: RequestValues;
  caller: HookCaller;
}

/** A run's JSON text; `rows` when it came from reading @model rows (which may carry refusals). */
export interface CustomResult {
  text: string;
  rows: boolean;
}

export function planCustomField(s: CompileState, root: CustomRoot, nodes: readonly FieldNode[]): CustomPlan {
  const node = nodes[0] as FieldNode;
  const field = s.app.customField(root, node.name.value);
  const plan: CustomPlan = { field, def: fieldOf(s, root, field.name), node };
  if (s.access === 'rules') {
    const grants = customFieldGrants(field);
    plan.access = {
      everyone: grants.some((g) => g.scope === 'EVERYONE'),
      authenticated: grants.some((g) => g.scope === 'AUTHENTICATED'),
      check: prepare(sql`SELECT (${s.callerAllowed(grants)}) AS v`),
    };
  }
  const type = field.type;
  if (type.kind === 'embedded') plan.selection = embeddedSelection(s, type.name, nodes);
  if (type.kind === 'model') plan.read = prepare(type.list ? rowsStatement(s, type.name, nodes) : statementOf(rowById(s, type.name, s.binder.fromRequest((r) => r.answered?.[0] ?? null), nodes)));
  return plan;
}

/** The rows the function named, in its order: null where one is missing or hidden from the caller. */
function rowsStatement(s: CompileState, typeName: string, nodes: readonly FieldNode[]) {
  const u = s.alias('u');
  const ids = s.binder.fromRequest((r) => [...(r.answered ?? [])]);
  const row = rowById(s, typeName, sql`${u}.id`, nodes);
  return sql`SELECT (COALESCE((SELECT json_agg(${row} ORDER BY ${u}.n) FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS ${u}(id, n)), '[]'::json))::text AS v`;
}

function label(field: CustomField): string {
  return `${field.root}.${field.name}`;
}

export async function runCustomField(app: AppContext, plan: CustomPlan, run: CustomRun): Promise<CustomResult> {
  const { field } = plan;
  await checkCaller(plan, run);
  const args = argumentsOf(plan, run.request);
  if (!run.resolvers) throw new TesseraError('FUNCTION_FAILED', `${label(field)}: this server calls no functions (it has no secret key set up)`, { function: field.function });
  const body = await run.resolvers.call(field.function, field.name, args, run.caller);
  const answered = judgeAnswer(app, field, body);
  if (answered.kind === 'value') return { text: JSON.stringify(shaped(app, plan, answered.value)), rows: false };
  if (answered.ids === null || !plan.read) return { text: 'null', rows: false };
  const result = await run.store.query<{ v: string | null }>(bindPrepared(plan.read, { ...run.request, answered: answered.ids }), { recurring: true });
  return { text: result.rows[0]?.v ?? 'null', rows: true };
}

/** Refuses a caller the field's rules do not let call it (FORBIDDEN): the function is not called. */
async function checkCaller(plan: CustomPlan, run: CustomRun): Promise<void> {
  const access = plan.access;
  if (!access || access.everyone) return;
  const userId = run.request.userId;
  if (userId !== undefined && access.authenticated) return;
  if (userId !== undefined) {
    const result = await run.store.query<{ v: boolean }>(bindPrepared(access.check, run.request), { recurring: true });
    if (result.rows[0]?.v === true) return;
  }
  const who = userId === undefined ? 'an anonymous caller' : 'this user';
  throw new TesseraError('FORBIDDEN', `${label(plan.field)}: ${who} may not call this field`);
}

/** The field's arguments as the client gave them (variables and literals), checked as stored text is. */
function argumentsOf(plan: CustomPlan, request: RequestValues): Record<string, unknown> {
  const args = getArgumentValues(plan.def, plan.node, request.variables);
  for (const def of plan.def.args) if (args[def.name] !== undefined) checkTextIn(def.type, args[def.name], def.name);
  return args;
}

/** Strings at every depth: no NUL, valid Unicode, String and ID within their length (BAD_USER_INPUT). */
function checkTextIn(type: GraphQLInputType, v: unknown, path: string): void {
  if (v === null || v === undefined) return;
  const t = getNullableType(type);
  if (isListType(t)) {
    if (Array.isArray(v)) v.forEach((item: unknown, i) => checkTextIn(t.ofType, item, `${path}[${i}]`));
    return;
  }
  if (isInputObjectType(t)) {
    for (const [name, f] of Object.entries(t.getFields())) checkTextIn(f.type, (v as Record<string, unknown>)[name], `${path}.${name}`);
    return;
  }
  if (!isScalarType(t)) return;
  if (t.name === 'String' || t.name === 'ID') checkText(String(v), path, MAX_STRING_LENGTH);
  else if (t.name === 'Text') checkText(String(v), path, undefined);
  else if (t.name === 'JSON') checkJsonText(v, path);
}

function checkJsonText(v: unknown, path: string): void {
  if (typeof v === 'string') checkText(v, path, undefined);
  else if (Array.isArray(v)) v.forEach((item: unknown) => checkJsonText(item, path));
  else if (v !== null && typeof v === 'object') {
    for (const [key, item] of Object.entries(v)) {
      checkText(key, path, undefined);
      checkJsonText(item, path);
    }
  }
}

/** A judged value cut to the selection asked of it (embedded objects; scalars and enums as they are). */
function shaped(app: AppContext, plan: CustomPlan, value: unknown): unknown {
  const type = plan.field.type;
  if (type.kind !== 'embedded' || !plan.selection) return value;
  return project(app, type.name, value, plan.selection);
}

function project(app: AppContext, typeName: string, v: unknown, selection: readonly EmbeddedSelection[]): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((item: unknown) => project(app, typeName, item, selection));
  const type = app.embedded(typeName);
  const object = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const sel of selection) {
    if (sel.name === '__typename') {
      out[sel.key] = typeName;
      continue;
    }
    const field = type.fields.find((f) => f.name === sel.name);
    const value = object[sel.name] ?? null;
    out[sel.key] = field?.type.kind === 'embedded' && sel.sub ? project(app, field.type.name, value, sel.sub) : value;
  }
  return out;
}
