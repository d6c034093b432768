// The app's BEFORE functions around a mutation's input: called before the mutation's
// transaction opens (a remote call never holds a transaction), in their order, for the root
// operation and then for every object a nested create adds (under its type's create
// mutation). An answer may replace the input; the input that results is coerced again
// against the operation's input type, and the write then checks limits and permission rules
// as for any input. A refusal (REJECTED) or a failed call (FUNCTION_FAILED) ends the mutation
// before anything is written.

import { GraphQLInputObjectType, coerceInputValue, getNamedType, isListType, isNonNullType } from 'graphql';
import type { GraphQLInputType } from 'graphql';
import { isUploadedBlob } from '../../graphql/index.js';
import { TesseraError } from '../../errors/index.js';
import { idColumn } from '../../model/index.js';
import type { ModelType } from '../../model/index.js';
import { typeGrants } from '../../permissions/index.js';
import type { AppContext } from '../context.js';

type Input = Record<string, unknown>;

/** Who a BEFORE function is told made the mutation. */
export interface HookCaller {
  /** The caller's row uuid, when a user. */
  userId?: string | undefined;
  admin: boolean;
}

/** The app's enabled BEFORE functions, as a mutation calls them. */
export interface BeforeHooks {
  /** Whether any enabled BEFORE function is attached to `operation`. */
  attached(operation: string): boolean;
  /**
   * Calls the functions attached to `operation` in their order, each with the input the one
   * before left; resolves to the input to write. Throws REJECTED (a function refused) or
   * FUNCTION_FAILED (a call failed, timed out or answered something unreadable).
   */
  run(operation: string, input: Input, caller: HookCaller): Promise<Input>;
}

/**
 * The input of mutation `operation` after the app's BEFORE functions: `type` is the row type
 * it creates (nested creates call their own type's hooks) or undefined for other mutations;
 * `inputType` the operation's input type, against which a replaced input is coerced again.
 */
export async function hookedInput(
  app: AppContext,
  hooks: BeforeHooks | undefined,
  caller: HookCaller,
  operation: string,
  target: { type: ModelType | undefined; inputType: GraphQLInputType | undefined; refusal: TesseraError | undefined },
  input: Input,
): Promise<Input> {
  if (!hooks) return input;
  const { type, inputType, refusal } = target;
  let changed = false;
  const call = async (name: string, value: Input): Promise<Input> => {
    if (!hooks.attached(name)) return value;
    // A caller the rules refuse whatever the row cannot make the app's endpoints be called.
    if (refusal) throw refusal;
    const next = await hooks.run(name, value, caller);
    if (next === value) return value;
    changed = true;
    return withFilesOf(value, next) as Input;
  };
  let result = await call(operation, input);
  if (type) result = await nestedCreates(app, type, result, call);
  if (!changed || !inputType) return result;
  return coerced(operation, inputType, result);
}

/**
 * Why an anonymous caller is refused `op` on every row of these types whatever the rows hold
 * (no rule grants it to everyone), or undefined when the rules may let them through. Users are
 * not judged here: a member of the app's admin role passes every rule, which only the database
 * can tell.
 */
export function anonymousRefusal(caller: HookCaller, op: 'create' | 'update' | 'delete', types: readonly ModelType[]): TesseraError | undefined {
  if (caller.admin || caller.userId !== undefined) return undefined;
  const closed = types.find((type) => !typeGrants(type, op).some((g) => g.scope === 'EVERYONE'));
  return closed ? new TesseraError('FORBIDDEN', `Not allowed to ${op} ${closed.name}: log in first`) : undefined;
}

/** `input` with every object a nested create adds passed through its type's create hooks. */
async function nestedCreates(app: AppContext, type: ModelType, input: Input, call: (operation: string, value: Input) => Promise<Input>): Promise<Input> {
  let out = input;
  for (const field of type.fields) {
    if (field.kind !== 'relation') continue;
    const nested = input[field.name];
    if (nested === undefined || nested === null) continue;
    const target = app.type(field.target);
    const create = async (item: Input) => nestedCreates(app, target, await call(app.names.mutation('create', target.name), item), call);
    if (field.list) {
      if (!Array.isArray(nested)) continue;
      const items: unknown[] = [];
      for (const item of nested) items.push(isObject(item) ? await create(item) : item);
      out = { ...out, [field.name]: items };
      continue;
    }
    // The id wins over a nested object (rows.ts): no object is created, so no hook is called.
    const id = input[idColumn(field.name)];
    if ((id !== undefined && id !== null && id !== '') || !isObject(nested)) continue;
    out = { ...out, [field.name]: await create(nested) };
  }
  return out;
}

/**
 * A hook's answer with the request's files where the input it was sent had them: a hook is told
 * of a file (its name, type, size and hash) but cannot replace it with something of its own.
 */
function withFilesOf(sent: unknown, answered: unknown): unknown {
  if (isUploadedBlob(sent)) return sent;
  if (Array.isArray(sent) && Array.isArray(answered)) return answered.map((item, i) => withFilesOf(sent[i], item));
  if (isObject(sent) && isObject(answered)) return Object.fromEntries(Object.entries(answered).map(([key, item]) => [key, withFilesOf(sent[key], item)]));
  return answered;
}

function isObject(v: unknown): v is Input {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A replaced input coerced against the operation's input type, as a client's would be. */
function coerced(operation: string, inputType: GraphQLInputType, input: Input): Input {
  const problems: string[] = [];
  const value: unknown = coerceInputValue(input, inputType, (path, _invalid, error) => {
    if (problems.length < 5) problems.push(`${['input', ...path].join('.')}: ${error.message}`);
  });
  const named = getNamedType(inputType);
  if (problems.length > 0 || !isObject(value) || !(named instanceof GraphQLInputObjectType) || isListType(isNonNullType(inputType) ? inputType.ofType : inputType)) {
    throw new TesseraError('FUNCTION_FAILED', `A BEFORE function of ${operation} answered an input that does not fit ${named.name}: ${problems.join('; ') || 'not an object'}`, { operation });
  }
  return value;
}
