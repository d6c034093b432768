// One mutation root field, run in its own transaction: read the input, write, read the
// payload back inside the same transaction. Any failure rolls everything back.

import { getNamedType } from 'graphql';
import type { FieldNode, GraphQLField, GraphQLInputType } from 'graphql';
import { roleOf } from '../../graphql/index.js';
import { badInput, notFound } from '../../errors/index.js';
import { builtinTraits, idColumn } from '../../model/index.js';
import type { ModelType, Relation } from '../../model/index.js';
import { ident, join, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { readArguments } from '../args.js';
import { decodeId } from '../ids.js';
import { fieldOf } from '../object.js';
import { resolveDeep } from '../params.js';
import type { CompileState } from '../state.js';
import { castOf, fieldIn } from '../values.js';
import { requireEdgeWrite } from './checks.js';
import { writeError } from './errors.js';
import { assemble, commonPart, edgePart, joinPart, payloadFields, readPhase, rowPart, unknownPayloadField } from './payload.js';
import type { PayloadPart } from './payload.js';
import { writeTransaction } from './writer.js';
import { writeInOneStatement } from './oneStatement.js';
import type { AppContext } from '../context.js';
import { createRow, deleteRow, updateRow } from './rows.js';
import { asUser, runChangePassword, runLogin, runLogout, runRefresh } from './user.js';
import { runRequestEmailVerification, runRequestPasswordReset, runResetPassword, runVerifyEmail } from './accountMail.js';
import { runConfirmTotp, runDisableTotp, runEnrollTotp } from './twoFactor.js';
import { runLinkIdentity, runOidcLogin, runUnlinkIdentity } from './oidc.js';
import type { Writer } from './writer.js';
import type { MutationContext } from './context.js';
import { anonymousRefusal, hookedInput } from './hooks.js';
import type { HookCaller } from './hooks.js';
import { readRow } from './outbox.js';
import type { EdgeVerb } from '../../model/index.js';

type Input = Record<string, unknown>;

/** Runs the mutation field `nodes` and returns its payload as JSON text (or "null"). */
export async function runMutation(s: CompileState, m: MutationContext, nodes: readonly FieldNode[]): Promise<string> {
  const node = nodes[0] as FieldNode;
  const def = fieldOf(s, 'Mutation', node.name.value);
  const role = roleOf(def);
  const args = readArguments(def.args, node.arguments, s.binder);
  const input = (resolveDeep(args.input, s.binder.request) ?? {}) as Input;
  const payloadType = getNamedType(def.type).name;
  switch (role.kind) {
    case 'login':
      return runLogin(s, m, input, payloadType, nodes);
    case 'changePassword':
      return runChangePassword(s, m, input, payloadType, nodes, m.userId, m.admin);
    case 'refresh':
      return runRefresh(s, m, input, payloadType, nodes);
    case 'logout':
      return runLogout(s, m, input, payloadType, nodes);
    case 'requestEmailVerification':
      return runRequestEmailVerification(s, m, input, payloadType, nodes);
    case 'verifyEmail':
      return runVerifyEmail(s, m, input, payloadType, nodes);
    case 'requestPasswordReset':
      return runRequestPasswordReset(s, m, input, payloadType, nodes);
    case 'resetPassword':
      return runResetPassword(s, m, input, payloadType, nodes);
    case 'enrollTotp':
      return runEnrollTotp(s, m, input, payloadType, nodes);
    case 'confirmTotp':
      return runConfirmTotp(s, m, input, payloadType, nodes);
    case 'disableTotp':
      return runDisableTotp(s, m, input, payloadType, nodes);
    case 'oidcLogin':
      return runOidcLogin(s, m, input, payloadType, nodes);
    case 'linkIdentity':
      return runLinkIdentity(s, m, input, payloadType, nodes);
    case 'unlinkIdentity':
      return runUnlinkIdentity(s, m, input, payloadType, nodes);
    case 'create':
    case 'update':
    case 'delete': {
      const type = s.app.type(role.type);
      const kind = role.kind;
      const hooks = m.ports.hooks;
      // Most apps attach no BEFORE function: their writes go on with the input as it came.
      let hooked = input;
      if (hooks) {
        const caller = hookCaller(m);
        const target = { type: kind === 'create' ? type : undefined, inputType: inputTypeOf(def), refusal: anonymousRefusal(caller, kind, [type]) };
        hooked = await hookedInput(s.app, hooks, caller, node.name.value, target, input);
      }
      const kept = m.writePlans && { plans: m.writePlans, key: node.alias?.value ?? node.name.value };
      let answered: string | undefined;
      try {
        answered = await writeInOneStatement(s, m, kind, type, hooked, payloadType, nodes, kept);
      } catch (err) {
        throw writeError(s.app, err);
      }
      if (answered !== undefined) return answered;
      return written(s, m, (w) => rowMutation(s, w, kind, type, hooked, payloadType, nodes));
    }
    case 'addEdge':
    case 'updateEdge':
    case 'removeEdge': {
      const relation = s.app.relation(role.relation);
      const kind = role.kind;
      const caller = hookCaller(m);
      const ends = relation.ends.map((end) => s.app.type(end.type));
      const target = { type: undefined, inputType: inputTypeOf(def), refusal: anonymousRefusal(caller, 'update', ends) };
      const hooked = await hookedInput(s.app, m.ports.hooks, caller, node.name.value, target, input);
      return written(s, m, (w) => edgeMutation(s, w, kind, relation, hooked, payloadType, nodes));
    }
    default:
      throw new Error(`${node.name.value} is not a mutation (${role.kind})`);
  }
}

/** The type of a mutation field's `input` argument. */
function inputTypeOf(def: GraphQLField<unknown, unknown>): GraphQLInputType | undefined {
  return def.args.find((a) => a.name === 'input')?.type;
}

function hookCaller(m: MutationContext): HookCaller {
  return { userId: m.userId, admin: m.admin };
}

/** Runs `write` in the mutation's transaction; constraint violations become coded errors. */
function written(s: CompileState, m: MutationContext, write: (w: Writer) => Promise<string>): Promise<string> {
  return coded(s.app, () => writeTransaction(m.store, s, m.ports, write, { userId: m.userId, admin: m.admin }));
}

/** Runs `write`; the database's constraint violations become coded errors. */
async function coded<T>(app: AppContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw writeError(app, err);
  }
}

async function rowMutation(s: CompileState, w: Writer, kind: 'create' | 'update' | 'delete', type: ModelType, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  let id: string;
  if (kind === 'create') id = await createRow(w, type, input);
  else id = decodeId(String(input.id), type.name, 'input.id');
  if (kind === 'update') await updateRow(w, type, id, input);
  const phase = kind === 'delete' ? 'before' : 'after';
  // Someone signing up reads the payload as the user they just became.
  const signUp = kind === 'create' && builtinTraits(type)?.signUp === true;
  const view = signUp && s.access === 'rules' ? asUser(s, id) : s;
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(view, payloadType, nodes)) {
    const { key, group, role } = selection;
    const common = commonPart(view, payloadType, selection, input.clientMutationId);
    if (common) parts.push(common);
    else if (role?.kind === 'changedRow') parts.push({ key, phase, json: rowPart(view, type.name, id, group) });
    else if (role?.kind === 'changedEdge') parts.push({ key, phase, json: edgePart(view, type.name, sql`${id}`, group) });
    else if (role?.kind === 'token' && signUp) parts.push({ key, text: JSON.stringify(await w.accounts.issueToken(w.tx, id, await storedPassword(w, type, id))) });
    else if (role?.kind === 'refreshToken' && signUp) parts.push({ key, text: JSON.stringify(await w.accounts.startSession(w.tx, id, await storedPassword(w, type, id))) });
    else throw unknownPayloadField(payloadType, selection);
  }
  const read = new Map<string, string>();
  await readPhase(view, w.tx, parts, 'before', read);
  if (kind === 'delete' && !(await deleteRow(w, type, id))) {
    // Nothing had that id: the payload says so with a null object, not an error.
    for (const p of parts) if ('phase' in p && p.phase === 'before') read.set(p.key, 'null');
  }
  await readPhase(view, w.tx, parts, 'after', read);
  return assemble(parts, read);
}

/** The stored password hash of a user just created (for createUser's `token` and `refreshToken`). */
async function storedPassword(w: Writer, type: ModelType, id: string): Promise<string> {
  const { rows } = await w.tx.query<{ password: string }>(sql`SELECT password FROM ${w.app.table(type.table)} WHERE id = ${id}::uuid`);
  return (rows[0] as { password: string }).password;
}

/** The names' verb of each edge mutation kind. */
const EDGE_VERBS: Readonly<Record<'addEdge' | 'updateEdge' | 'removeEdge', EdgeVerb>> = { addEdge: 'addTo', updateEdge: 'update', removeEdge: 'removeFrom' };

interface EdgeEnds {
  storage: Extract<Relation['storage'], { kind: 'joinTable' }>;
  ids: [string, string];
}

function edgeEnds(relation: Relation, input: Input): EdgeEnds {
  const storage = relation.storage;
  if (storage.kind !== 'joinTable') throw new Error(`${relation.name} has no join table`);
  const ids = storage.endNames.map((end, i) => decodeId(String(input[idColumn(end)]), storage.targets[i] as string, `input.${idColumn(end)}`)) as [string, string];
  return { storage, ids };
}

/** The join row of an edge; a self relation's edge is found whichever way round it is named. */
async function findEdge(w: Writer, relation: Relation, ends: EdgeEnds): Promise<string | undefined> {
  const [c1, c2] = ends.storage.columns.map((c) => ident(c)) as [SqlFragment, SqlFragment];
  const [a, b] = ends.ids;
  const straight = sql`(${c1} = ${a}::uuid AND ${c2} = ${b}::uuid)`;
  const match = relation.kind === 'selfManyToMany' ? sql`(${straight} OR (${c1} = ${b}::uuid AND ${c2} = ${a}::uuid))` : straight;
  const found = await w.tx.query<{ id: string }>(sql`SELECT id FROM ${w.app.table(ends.storage.table)} WHERE ${match} FOR UPDATE`);
  return found.rows[0]?.id;
}

async function edgeMutation(s: CompileState, w: Writer, kind: 'addEdge' | 'updateEdge' | 'removeEdge', relation: Relation, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const ends = edgeEnds(relation, input);
  const table = w.app.table(ends.storage.table);
  const fieldValues = relation.joinFields
    .filter((f) => input[f.name] !== undefined)
    .map((f) => {
      if (input[f.name] === null && f.required) throw badInput(`${relation.name}.${f.name} cannot be null`, { field: f.name });
      return { column: ident(f.column), value: sql`${fieldIn(w.app, f, input[f.name], `${relation.name}.${f.name}`)}::${castOf(f)}` };
    });
  await requireEdgeWrite(s, w.tx, relation, { targets: ends.storage.targets, ids: ends.ids }, kind);
  const operation = w.app.names.edgeMutation(EDGE_VERBS[kind], relation.name);
  const subject = { kind: 'edge', relation } as const;
  let joinId: string | undefined;
  if (kind === 'addEdge') {
    const columns = [...ends.storage.columns.map((c) => ident(c)), ...fieldValues.map((f) => f.column)];
    const values = [sql`${ends.ids[0]}::uuid`, sql`${ends.ids[1]}::uuid`, ...fieldValues.map((f) => f.value)];
    const inserted = await w.tx.query<{ id: string }>(sql`INSERT INTO ${table} (${join(columns)}) VALUES (${join(values)}) RETURNING id`);
    joinId = inserted.rows[0]?.id;
    if (joinId) w.outbox.edge(operation, relation, joinId, ends.ids, null);
  } else {
    joinId = await findEdge(w, relation, ends);
    if (kind === 'updateEdge') {
      if (!joinId) throw notFound(`These two objects are not connected through ${relation.name}`);
      const before = w.outbox.wants(operation) ? await readRow(w.tx, w.app, subject, joinId) : null;
      const sets = [sql`"modifiedAt" = now()`, ...fieldValues.map((f) => sql`${f.column} = ${f.value}`)];
      await w.tx.query(sql`UPDATE ${table} SET ${join(sets)} WHERE id = ${joinId}::uuid`);
      w.outbox.edge(operation, relation, joinId, ends.ids, before);
    }
  }
  const phase = kind === 'removeEdge' ? 'before' : 'after';
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const { key, group, role } = selection;
    const common = commonPart(s, payloadType, selection, input.clientMutationId);
    if (common) parts.push(common);
    else if (role?.kind === 'changedJoin') parts.push(joinId ? { key, phase, json: joinPart(s, relation, joinId, group) } : { key, text: 'null' });
    else if (role?.kind === 'edgeEnd') parts.push({ key, phase: 'after', json: rowPart(s, ends.storage.targets[role.end] as string, ends.ids[role.end] as string, group) });
    else throw unknownPayloadField(payloadType, selection);
  }
  const read = new Map<string, string>();
  await readPhase(s, w.tx, parts, 'before', read);
  if (kind === 'removeEdge' && joinId) {
    const before = w.outbox.wants(operation) ? await readRow(w.tx, w.app, subject, joinId) : null;
    await w.tx.query(sql`DELETE FROM ${table} WHERE id = ${joinId}::uuid`);
    w.outbox.edge(operation, relation, joinId, ends.ids, before, true);
  }
  // An edge is part of both ends: each is updated for its subscribers (docs/api.md).
  if (kind !== 'removeEdge' || joinId) {
    ends.storage.targets.forEach((target, i) => w.events.record({ type: target, kind: 'update', id: ends.ids[i] as string }));
  }
  await readPhase(s, w.tx, parts, 'after', read);
  return assemble(parts, read);
}

