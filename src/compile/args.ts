// Argument values read from the operation's AST. Literals become plain values; a variable in
// a leaf position (or a list of leaves) stays a VarRef so the compiled statement binds it per
// request; a variable holding an input object decides the statement's shape.

import { Kind, getNullableType, isInputObjectType, isLeafType, isListType, valueFromAST } from 'graphql';
import type { DirectiveNode, GraphQLArgument, GraphQLInputType, ValueNode } from 'graphql';
import type { Binder } from './params.js';
import { VarRef } from './params.js';

function isLeafList(type: GraphQLInputType): boolean {
  const t = getNullableType(type);
  return isLeafType(t) || (isListType(t) && isLeafType(getNullableType(t.ofType)));
}

function readValue(node: ValueNode, type: GraphQLInputType, binder: Binder): unknown {
  const t = getNullableType(type);
  if (node.kind === Kind.VARIABLE) {
    const name = node.name.value;
    if (isLeafList(t)) return new VarRef(name);
    return binder.shape(new VarRef(name), 'value');
  }
  if (node.kind === Kind.NULL) return null;
  if (isListType(t)) {
    const items = node.kind === Kind.LIST ? node.values : [node];
    return items.map((item) => readValue(item, t.ofType, binder));
  }
  if (isInputObjectType(t)) {
    if (node.kind !== Kind.OBJECT) throw new Error('validated input object is not an object literal');
    const out: Record<string, unknown> = {};
    const fields = t.getFields();
    for (const [name, def] of Object.entries(fields)) {
      const given = node.fields.find((f) => f.name.value === name);
      if (given) {
        out[name] = withDefault(readValue(given.value, def.type, binder), def.defaultValue, binder);
      } else if (def.defaultValue !== undefined) {
        out[name] = def.defaultValue;
      }
    }
    return out;
  }
  // A leaf literal may still hold variables (a JSON value `{ a: [1, $v] }`): its value then
  // depends on them as a whole.
  const variables = Object.create(null) as Record<string, unknown>;
  for (const name of variablesIn(node)) variables[name] = binder.shape(new VarRef(name), 'value');
  return valueFromAST(node, t, variables);
}

function variablesIn(node: ValueNode): string[] {
  switch (node.kind) {
    case Kind.VARIABLE:
      return [node.name.value];
    case Kind.LIST:
      return node.values.flatMap(variablesIn);
    case Kind.OBJECT:
      return node.fields.flatMap((f) => variablesIn(f.value));
    default:
      return [];
  }
}

/**
 * A variable that was not sent leaves an argument or input field with a default at that
 * default (which makes the statement depend on whether it was sent). Without a default the
 * VarRef stays: it reads as undefined, which consumers treat as "not given".
 */
function withDefault(v: unknown, defaultValue: unknown, binder: Binder): unknown {
  if (!(v instanceof VarRef) || defaultValue === undefined) return v;
  const sent = binder.shape(v, 'present');
  return sent === undefined || sent === null ? defaultValue : v;
}

/** The arguments of a field as the compiler reads them (absent ones are left out). */
export function readArguments(
  defs: readonly GraphQLArgument[],
  nodes: readonly { name: { value: string }; value: ValueNode }[] | undefined,
  binder: Binder,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const given = nodes?.find((n) => n.name.value === def.name);
    if (given) {
      out[def.name] = withDefault(readValue(given.value, def.type, binder), def.defaultValue, binder);
    } else if (def.defaultValue !== undefined) {
      out[def.name] = def.defaultValue;
    }
  }
  return out;
}

/** Whether `@skip`/`@include` keep a selection; a variable condition shapes the statement. */
export function included(directives: readonly DirectiveNode[] | undefined, binder: Binder): boolean {
  for (const d of directives ?? []) {
    if (d.name.value !== 'skip' && d.name.value !== 'include') continue;
    const arg = d.arguments?.find((a) => a.name.value === 'if');
    if (!arg) continue;
    const v = arg.value.kind === Kind.VARIABLE ? binder.shape(new VarRef(arg.value.name.value)) : arg.value.kind === Kind.BOOLEAN ? arg.value.value : undefined;
    if (d.name.value === 'skip' && v === true) return false;
    if (d.name.value === 'include' && v !== true) return false;
  }
  return true;
}
