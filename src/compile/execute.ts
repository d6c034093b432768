// Runs one validated operation of an app's API. Queries: one SQL statement per root field,
// compiled once per (app version, document, operation, shape of the variables) and bound per
// request; the response JSON comes out of PostgreSQL as text and is spliced, not re-parsed.
// Mutations: one transaction per root field, in order. The app's custom fields call its
// RESOLVER functions (resolvers/), queries' concurrently with the other root fields, mutations'
// in order with no transaction open. Introspection goes to graphql-js.

import { GraphQLError, Kind, execute, getOperationAST, getVariableValues, isNonNullType } from 'graphql';
import type { DocumentNode, FieldNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import { TesseraError, isTesseraError } from '../errors/index.js';
import { compile } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { withStatementTimeout } from '../store/index.js';
import type { Store } from '../store/index.js';
import { roleOf } from '../graphql/index.js';
import type { AppContext } from './context.js';
import { fieldOf } from './object.js';
import { runMutation } from './mutations/run.js';
import type { MutationPorts } from './mutations/writer.js';
import { Binder, bindPrepared, prepare } from './params.js';
import type { PreparedStatement, RequestValues, ShapeRef } from './params.js';
import { queryField, statementOf } from './read.js';
import { queryPlansOf, writePlansOf } from './statementCache.js';
import type { RootPlan } from './statementCache.js';
import { resolveRefusals } from './refusals.js';
import { collectFields } from './selection.js';
import { CompileState } from './state.js';
import { coerceVariables } from './variables.js';
import type { Access } from './state.js';
import { planCustomField, runCustomField } from './resolvers/customField.js';
import type { CustomPlan, CustomRun } from './resolvers/customField.js';

export interface ExecuteArgs {
  app: AppContext;
  /**
   * The app's model's shared context (AppContext.shared), in which its queries are compiled and
   * cached for every app of the model; absent: the app's own.
   */
  shared?: AppContext | undefined;
  store: Store;
  ports: MutationPorts;
  document: DocumentNode;
  /** The document's text: with the operation name, the key of the statement cache. */
  query: string;
  operationName?: string | undefined;
  variables?: Readonly<Record<string, unknown>> | undefined;
  userId?: string | undefined;
  /** An admin token: full access. Anyone else reads under the app's rules. */
  admin: boolean;
  /**
   * Whether the user is a member of the app's built-in `admin` role, as read lately and with
   * no change to the app's roles heard of since; undefined when not known. A user known not to
   * be one reads through statements without the admin arm; anyone else's check it themselves.
   */
  appAdmin?: boolean | undefined;
  /** Told what a query's statement read about the user being an app admin. */
  appAdminSeen?: ((isAdmin: boolean) => void) | undefined;
}

/** The result with `data` as JSON text; `data` undefined when the operation could not start. */
export interface ExecuteResult {
  data?: string;
  errors: GraphQLError[];
}

/**
 * How a query's statements treat the app's rules: `admin` (an admin token) carries none;
 * `rules` lets members of the app's `admin` role through in the statement itself; `nonAdmin`
 * is compiled for a caller who is not one (anonymous, or a user known not to be one: see
 * ExecuteArgs.appAdmin), with predicates PostgreSQL can answer from an index (`ownerId =
 * viewer` instead of `ownerId = viewer OR viewer is an app admin`). A `rules` statement whose
 * answer depends on it also answers whether the caller is an app admin (column `a`), read in
 * the same snapshot, which the caller's next queries go by. A statement that never asks (a read
 * of a type everyone may read) is the same in both variants.
 */
type Variant = Access | 'nonAdmin';

/** The statements a query of this caller runs. */
function variantOf(args: Pick<ExecuteArgs, 'admin' | 'userId' | 'appAdmin'>): Variant {
  if (args.admin) return 'admin';
  return args.userId === undefined || args.appAdmin === false ? 'nonAdmin' : 'rules';
}

/** A document's fragments by name, found once per document (documents are cached). */
const fragmentsByDocument = new WeakMap<DocumentNode, Record<string, FragmentDefinitionNode>>();

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  let out = fragmentsByDocument.get(document);
  if (!out) {
    out = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out[d.name.value] = d;
    fragmentsByDocument.set(document, out);
  }
  return out;
}

/**
 * The root fields of operations whose top selections are plain fields (no fragment, no
 * directive, so no variable can change them): collected once per operation. Null: collected
 * for each request.
 */
const plainRootFields = new WeakMap<OperationDefinitionNode, ReadonlyMap<string, FieldNode[]> | null>();

function mutationRootFields(s: CompileState, operation: OperationDefinitionNode): { fields: ReadonlyMap<string, FieldNode[]>; plain: boolean } {
  let roots = plainRootFields.get(operation);
  if (roots === undefined) {
    const plain = operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && (selection.directives?.length ?? 0) === 0);
    roots = plain ? collectFields(s, [operation.selectionSet], MUTATION) : null;
    plainRootFields.set(operation, roots);
  }
  return roots ? { fields: roots, plain: true } : { fields: collectFields(s, [operation.selectionSet], MUTATION), plain: false };
}

const MUTATION: ReadonlySet<string> = new Set(['Mutation']);

function fieldError(err: unknown, node: FieldNode, key: string): GraphQLError {
  const original = err instanceof Error ? err : new Error(String(err));
  return new GraphQLError(original.message, {
    nodes: [node],
    path: [key],
    originalError: original,
    ...(isTesseraError(original) ? { extensions: { ...original.extensions } } : {}),
  });
}

function compileQuery(app: AppContext, operation: OperationDefinitionNode, fragments: Record<string, FragmentDefinitionNode>, request: RequestValues, variant: Variant): { plans: RootPlan[]; shapes: ShapeRef[] } {
  const binder = new Binder(request);
  const s = new CompileState(app, binder, fragments, variant === 'admin' ? 'admin' : 'rules');
  // The root fields' statements; custom fields keep the admin arm in their own checks.
  const reads = variant === 'nonAdmin' ? new CompileState(app, binder, fragments, 'rules', undefined, 'excluded') : s;
  const plans: RootPlan[] = [];
  for (const [key, nodes] of collectFields(s, [operation.selectionSet], new Set(['Query']))) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    if (name === '__typename') plans.push({ key, kind: 'json', text: '"Query"' });
    else if (name === '__schema' || name === '__type') plans.push({ key, kind: 'introspection', nodes });
    else {
      try {
        const role = roleOf(fieldOf(s, 'Query', name));
        if (role.kind === 'custom') plans.push({ key, kind: 'custom', plan: planCustomField(s, role.root, nodes), node });
        else {
          const arms = reads.appAdminArms;
          const json = queryField(reads, nodes);
          // Only a statement whose answer depends on it says whether the caller is an app admin.
          const asks = variant === 'rules' && reads.appAdminArms > arms;
          plans.push({ key, kind: 'sql', statement: prepare(statementOf(json, asks ? reads.callerIsAppAdmin() : undefined)), node });
        }
      } catch (err) {
        if (!isTesseraError(err)) throw err;
        plans.push({ key, kind: 'error', error: err, node });
      }
    }
  }
  return { plans, shapes: binder.shapes };
}

/** The query's plans for these variables, from the cache or compiled now. */
function queryPlans(args: ExecuteArgs, operation: OperationDefinitionNode, request: RequestValues, variant: Variant): RootPlan[] {
  const home = args.shared ?? args.app;
  // Statements for admin tokens carry no rules; everyone else's do, with or without the admin arm: separate entries.
  const entry = queryPlansOf(home, args.query, args.operationName === undefined ? variant : `${variant}\u0000${args.operationName}`);
  const cached = entry.get(request);
  if (cached) return cached;
  const compiled = compileQuery(home, operation, fragmentsOf(args.document), request, variant);
  entry.set(request, compiled.shapes, compiled.plans);
  return compiled.plans;
}

/** A query's SQL as it would run for these variables: one statement per root field. */
export interface PlannedStatement {
  key: string;
  text?: string;
  values?: unknown[];
  error?: unknown;
}

/**
 * The statements a query compiles to for these variables, bound and rendered, without running
 * them: what golden tests and the benchmark's direct-SQL baseline use.
 */
export function planQuery(args: Pick<ExecuteArgs, 'app' | 'shared' | 'document' | 'query' | 'operationName' | 'variables' | 'userId'> & { admin?: boolean; variant?: 'rules' | 'nonAdmin' }): PlannedStatement[] {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation || operation.operation !== 'query') throw new Error('planQuery takes a query operation');
  const coerced = getVariableValues(args.app.app.schema, operation.variableDefinitions ?? [], args.variables ?? {});
  if (coerced.errors) throw coerced.errors[0];
  const request: RequestValues = { appId: args.app.app.id, variables: coerced.coerced, settings: args.app.app.settings, userId: args.userId };
  const admin = args.admin ?? true;
  return queryPlans({ ...args, store: undefined as never, ports: undefined as never, admin }, operation, request, admin ? 'admin' : (args.variant ?? 'rules')).map((plan) => {
    if (plan.kind === 'error') return { key: plan.key, error: plan.error };
    if (plan.kind !== 'sql') return { key: plan.key };
    try {
      return { key: plan.key, ...compile(bindPrepared(plan.statement, request)) };
    } catch (error) {
      return { key: plan.key, error };
    }
  });
}

async function introspect(args: ExecuteArgs, operation: OperationDefinitionNode, nodes: FieldNode[], key: string): Promise<{ text: string; errors: readonly GraphQLError[] }> {
  const only: OperationDefinitionNode = { ...operation, selectionSet: { kind: Kind.SELECTION_SET, selections: nodes } };
  const definitions = [only, ...args.document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)];
  const result = await execute({
    schema: args.app.app.schema,
    document: { kind: Kind.DOCUMENT, definitions },
    variableValues: args.variables ?? {},
  });
  const data = result.data as Record<string, unknown> | null | undefined;
  return { text: JSON.stringify(data?.[key] ?? null), errors: result.errors ?? [] };
}

/** Runs a custom field; a @model result's text is cleared of refusal markers like any read. */
async function customText(args: ExecuteArgs, plan: CustomPlan, request: RequestValues, key: string, node: FieldNode, errors: GraphQLError[]): Promise<string> {
  const run: CustomRun = { store: args.store, resolvers: args.ports.resolvers, request, caller: { userId: args.userId, admin: args.admin } };
  const result = await runCustomField(args.app, plan, run);
  if (!result.rows || args.admin) return result.text;
  const resolved = resolveRefusals(result.text, key, node);
  errors.push(...resolved.errors);
  return resolved.text;
}

/** A mutation an anonymous caller may not even start (changing a password). */
function forbidden(key: string): TesseraError {
  return new TesseraError('FORBIDDEN', `${key}: this mutation needs a logged-in user or an admin token of the app`);
}

/**
 * What every read statement of the data API runs with: PostgreSQL may keep it prepared, and as
 * it only reads, the store may pipeline it with other reads.
 */
const RECURRING = { recurring: true, readOnly: true } as const;

/** One root field of a query, answered as JSON text; its errors go to `errors`. */
async function rootText(args: ExecuteArgs, operation: OperationDefinitionNode, plan: RootPlan, request: RequestValues, errors: GraphQLError[]): Promise<string> {
  switch (plan.kind) {
    case 'json':
      return plan.text;
    case 'error':
      errors.push(fieldError(plan.error, plan.node, plan.key));
      return 'null';
    case 'custom':
      try {
        return await customText(args, plan.plan, request, plan.key, plan.node, errors);
      } catch (err) {
        errors.push(fieldError(err, plan.node, plan.key));
        return 'null';
      }
    case 'introspection': {
      const r = await introspect(args, operation, plan.nodes, plan.key);
      errors.push(...r.errors);
      return r.text;
    }
    case 'sql':
      try {
        const result = await args.store.query<{ v: string | null; a?: boolean }>(bindPrepared(plan.statement, request), RECURRING);
        const row = result.rows[0];
        const asked = row?.a;
        if (asked !== undefined && args.userId !== undefined) args.appAdminSeen?.(asked === true);
        const text = row?.v ?? 'null';
        if (args.admin) return text;
        const resolved = resolveRefusals(text, plan.key, plan.node);
        if (resolved.errors.length > 0) errors.push(...resolved.errors);
        return resolved.text;
      } catch (err) {
        errors.push(fieldError(err, plan.node, plan.key));
        return 'null';
      }
    default: {
      const never: never = plan;
      throw new Error(`unknown plan ${JSON.stringify(never)}`);
    }
  }
}

export async function executeOperation(input: ExecuteArgs): Promise<ExecuteResult> {
  // Every statement of the operation, reads and mutation transactions alike, under the app's
  // timeout (a caller that passes the view already is not copied).
  const store = withStatementTimeout(input.store, input.app.app.settings.statementTimeoutMs);
  const args = store === input.store ? input : { ...input, store };
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation) return { errors: [new GraphQLError('Unknown operation: give operationName when the document holds several')] };
  const coerced = coerceVariables(args.app.app.schema, operation, args.variables ?? {});
  if (coerced.errors) return { errors: [...coerced.errors] };
  const request: RequestValues = { appId: args.app.app.id, variables: coerced.coerced, settings: args.app.app.settings, userId: args.userId };
  const errors: GraphQLError[] = [];
  const texts: [string, string][] = [];
  if (operation.operation === 'query') {
    const variant = variantOf(args);
    const plans = queryPlans(args, operation, request, variant);
    // Most queries ask one root field: it runs straight through, without a Promise.all.
    const only = plans.length === 1 ? (plans[0] as RootPlan) : undefined;
    const results = only ? [await rootText(args, operation, only, request, errors)] : await Promise.all(plans.map((plan) => rootText(args, operation, plan, request, errors)));
    plans.forEach((plan, i) => texts.push([plan.key, results[i] as string]));
    // A non-null root field that failed takes the whole data with it, as GraphQL has it.
    if (plans.some((plan, i) => plan.kind === 'custom' && isNonNullType(plan.plan.def.type) && results[i] === 'null')) return { data: 'null', errors };
  } else if (operation.operation === 'mutation') {
    const binder = new Binder(request);
    const s = new CompileState(args.app, binder, fragmentsOf(args.document), args.admin ? 'admin' : 'rules');
    const roots = mutationRootFields(s, operation);
    // A write plan is kept under its root field's response key, and holds the payload that
    // key's selections ask for: only root fields no variable can change (no directive or
    // fragment at the root: an @include may merge another selection into the key) are kept.
    const writePlans = roots.plain ? writePlansOf(args.app, args.query, args.operationName ?? '') : undefined;
    for (const [key, nodes] of roots.fields) {
      const node = nodes[0] as FieldNode;
      if (node.name.value === '__typename') {
        texts.push([key, '"Mutation"']);
        continue;
      }
      let nonNull = false;
      try {
        // Mutations are checked against the rules inside their transaction; only changing a
        // password needs someone logged in (or an admin token) before anything is read.
        const role = roleOf(fieldOf(s, 'Mutation', node.name.value));
        if (role.kind === 'custom') {
          const plan = planCustomField(s, role.root, nodes);
          nonNull = isNonNullType(plan.def.type);
          texts.push([key, await customText(args, plan, request, key, node, errors)]);
          continue;
        }
        if (!args.admin && role.kind === 'changePassword' && args.userId === undefined) throw forbidden(key);
        const text = await runMutation(s, { store: args.store, ports: args.ports, admin: args.admin, userId: args.userId, writePlans }, nodes);
        const resolved = resolveRefusals(text, key, node);
        errors.push(...resolved.errors);
        texts.push([key, resolved.text]);
      } catch (err) {
        errors.push(fieldError(err, node, key));
        // A failed non-null root field nulls the data, and the mutations after it do not run.
        if (nonNull) return { data: 'null', errors };
        texts.push([key, 'null']);
      }
    }
  } else {
    return { errors: [new GraphQLError('Subscriptions are served over WebSocket, not HTTP')] };
  }
  return { data: `{${texts.map(([k, t]) => `${JSON.stringify(k)}:${t}`).join(',')}}`, errors };
}
