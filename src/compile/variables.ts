// A request's variables coerced to their declared types, as graphql-js's `getVariableValues`
// coerces them, with a faster path for the common case: a coercer built once per operation
// (documents are cached, so the same operation node comes back request after request) that
// accepts values graphql-js would accept and answers exactly what it would. Anything it does not
// accept — a missing variable with a default, a value of the wrong type, an unknown input field,
// a OneOf input, an iterable that is not an array — goes to graphql-js itself, so every error,
// message and limit is graphql-js's own. The fast path walks the value once, with no path
// objects and no error callbacks (createPost executed 196,000 → 167,000 instructions with it,
// docs/performance.md).

import { getVariableValues, isInputObjectType, isInputType, isLeafType, isListType, isNonNullType, typeFromAST } from 'graphql';
import type { GraphQLError, GraphQLInputType, GraphQLSchema, OperationDefinitionNode } from 'graphql';

/** What a coercer answers for a value graphql-js may refuse or coerce in a way it does not model. */
const UNSURE: unique symbol = Symbol('unsure');

type Coercer = (value: unknown) => unknown;

/** A request's variables coerced, or graphql-js's errors. */
export type CoercedVariables = { coerced: Record<string, unknown>; errors?: undefined } | { coerced?: undefined; errors: readonly GraphQLError[] };

/** The most errors graphql-js reports for one request's variables. */
const MAX_ERRORS = 25;

interface VariablePlan {
  name: string;
  required: boolean;
  /** A default in the document: a request without the variable goes to graphql-js (it reads the default). */
  defaulted: boolean;
  coerce: Coercer;
}

/** The plan of each operation, for the schema it was made against; null: graphql-js always. */
const plans = new WeakMap<OperationDefinitionNode, { schema: GraphQLSchema; plan: VariablePlan[] | null }>();

/**
 * The operation's variables coerced as graphql-js coerces them, with its errors when it refuses
 * them. The values are those graphql-js answers, in an object without a prototype: a variable
 * left out reads as undefined whatever its name (`$toString`, `$constructor`), and one named
 * `$__proto__` is a value like any other.
 */
export function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Readonly<Record<string, unknown>>): CoercedVariables {
  const coerced = coercedQuickly(schema, operation, inputs);
  if (coerced !== undefined) return { coerced };
  const answered = getVariableValues(schema, operation.variableDefinitions ?? [], inputs, { maxErrors: MAX_ERRORS });
  return answered.coerced ? { coerced: Object.assign(Object.create(null) as Record<string, unknown>, answered.coerced) } : answered;
}

/** The fast path alone: the variables coerced (in an object without a prototype), or undefined when graphql-js must decide. */
export function coercedQuickly(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  let kept = plans.get(operation);
  if (kept === undefined || kept.schema !== schema) {
    kept = { schema, plan: planOf(schema, operation) };
    plans.set(operation, kept);
  }
  if (kept.plan === null) return undefined;
  const coerced = coerceWith(kept.plan, inputs);
  return coerced === UNSURE ? undefined : coerced;
}

/**
 * Lists and input objects the fast path walks into before it leaves a value to graphql-js: far
 * more than any request the server lets through (limits/valueDepth.ts), and far less than
 * would overflow the stack, where graphql-js answers with errors of its own.
 */
const MAX_DEPTH = 64;

/** Lists and input objects open on the way to the value being coerced (reset for each request). */
let depth = 0;

function coerceWith(plan: readonly VariablePlan[], inputs: Readonly<Record<string, unknown>>): Record<string, unknown> | typeof UNSURE {
  depth = 0;
  const out = Object.create(null) as Record<string, unknown>;
  for (const variable of plan) {
    if (!Object.prototype.hasOwnProperty.call(inputs, variable.name)) {
      if (variable.defaulted || variable.required) return UNSURE;
      continue;
    }
    const coerced = variable.coerce(inputs[variable.name]);
    if (coerced === UNSURE) return UNSURE;
    out[variable.name] = coerced;
  }
  return out;
}

function planOf(schema: GraphQLSchema, operation: OperationDefinitionNode): VariablePlan[] | null {
  const coercers = new Map<GraphQLInputType, Coercer>();
  const plan: VariablePlan[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type);
    if (type === undefined || !isInputType(type)) return null;
    const coerce = coercerOf(type, coercers);
    if (coerce === null) return null;
    plan.push({ name: definition.variable.name.value, required: isNonNullType(type), defaulted: definition.defaultValue !== undefined, coerce });
  }
  return plan;
}

/**
 * A coercer for values of `type`, made once per type (a recursive input type reaches itself
 * through the coercer being made); null when graphql-js must always coerce them (OneOf inputs).
 */
function coercerOf(type: GraphQLInputType, made: Map<GraphQLInputType, Coercer>): Coercer | null {
  const known = made.get(type);
  if (known) return known;
  let built: Coercer | undefined;
  made.set(type, (value) => (built as Coercer)(value));
  const coercer = isNonNullType(type) ? nonNullOf(type.ofType, made) : nullableOf(type, made);
  // Null makes the whole plan null: no placeholder of it is ever called.
  if (coercer === null) return null;
  built = coercer;
  made.set(type, coercer);
  return coercer;
}

/** graphql-js refuses null and undefined for a non-null type; the inner coercer never sees them. */
function nonNullOf(inner: GraphQLInputType, made: Map<GraphQLInputType, Coercer>): Coercer | null {
  const coerce = coercerOf(inner, made);
  if (coerce === null) return null;
  return (value) => (value === null || value === undefined ? UNSURE : coerce(value));
}

/** A nullable type: null stays null, anything else is coerced by the type's kind. */
function nullableOf(type: GraphQLInputType, made: Map<GraphQLInputType, Coercer>): Coercer | null {
  const coerce = valueCoercer(type, made);
  if (coerce === null) return null;
  return (value) => (value === undefined ? UNSURE : value === null ? null : coerce(value));
}

/** A coercer of values (neither null nor undefined) of a list, input object or leaf type. */
function valueCoercer(type: GraphQLInputType, made: Map<GraphQLInputType, Coercer>): Coercer | null {
  if (isListType(type)) {
    const item = coercerOf(type.ofType, made);
    if (item === null) return null;
    const list = (value: unknown): unknown => {
      // A value that is not a list is a list of one; an iterable that is not an array is graphql-js's.
      if (!Array.isArray(value)) return typeof value === 'object' && value !== null && Symbol.iterator in value ? UNSURE : single(item(value));
      const out = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i += 1) {
        const coerced = item(value[i]);
        if (coerced === UNSURE) return UNSURE;
        out[i] = coerced;
      }
      return out;
    };
    return nested(list);
  }
  if (isInputObjectType(type)) {
    if (type.isOneOf) return null;
    const defs = type.getFields();
    const fields: { name: string; defaultValue: unknown; required: boolean; coerce: Coercer }[] = [];
    for (const field of Object.values(defs)) {
      const coerce = coercerOf(field.type, made);
      if (coerce === null) return null;
      fields.push({ name: field.name, defaultValue: field.defaultValue, required: isNonNullType(field.type), coerce });
    }
    return nested((value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return UNSURE;
      const input = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of fields) {
        const given = input[field.name];
        if (given === undefined) {
          if (field.defaultValue !== undefined) out[field.name] = field.defaultValue;
          else if (field.required) return UNSURE;
          continue;
        }
        const coerced = field.coerce(given);
        if (coerced === UNSURE) return UNSURE;
        out[field.name] = coerced;
      }
      // A field the type does not define is refused by graphql-js (with suggestions).
      for (const key of Object.keys(input)) if (defs[key] === undefined) return UNSURE;
      return out;
    });
  }
  if (isLeafType(type)) {
    // Scalars and enums decide by parseValue, which throws or answers undefined for a bad value.
    return (value) => {
      try {
        const parsed: unknown = type.parseValue(value);
        return parsed === undefined ? UNSURE : parsed;
      } catch {
        return UNSURE;
      }
    };
  }
  return null;
}

/** `coerce` one level deeper; past MAX_DEPTH the value is graphql-js's to answer. */
function nested(coerce: Coercer): Coercer {
  return (value) => {
    if (depth >= MAX_DEPTH) return UNSURE;
    depth += 1;
    const coerced = coerce(value);
    depth -= 1;
    return coerced;
  };
}

function single(coerced: unknown): unknown {
  return coerced === UNSURE ? UNSURE : [coerced];
}
