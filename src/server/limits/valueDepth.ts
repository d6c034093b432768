// How deeply input values may nest: lists and input objects, in variables and in literals
// alike. Deep values would otherwise reach recursive code (coercion, the JSON scalar) and
// exhaust the stack; the bound is fixed (DESIGN.md section 6), not a per-app setting.

import type { ListValueNode, ObjectValueNode, ValidationRule } from 'graphql';
import { limitError } from './limitError.js';

export const MAX_VALUE_DEPTH = 32;

/** Whether `value` nests more than `max` lists or objects deep; a scalar has depth 0. Stops at max + 1. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  const items = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  return items.some((item) => nestsDeeperThan(item, max - 1));
}

function tooDeep(where: string, nodes?: readonly (ListValueNode | ObjectValueNode)[]) {
  return limitError('valueDepth', MAX_VALUE_DEPTH, `${where} nests lists and objects more than ${MAX_VALUE_DEPTH} levels deep`, nodes);
}

/** The variables nesting too deeply, each as an error (checked per request, before coercion). */
export function checkVariableDepth(variables: Readonly<Record<string, unknown>> | undefined): ReturnType<typeof limitError>[] {
  return Object.entries(variables ?? {})
    .filter(([, value]) => nestsDeeperThan(value, MAX_VALUE_DEPTH))
    .map(([name]) => tooDeep(`Variable "$${name}"`));
}

/** Literal values in the document (arguments, variable defaults) under the same bound. */
export const literalDepthRule: ValidationRule = (context) => {
  let depth = 0;
  let reported = false;
  const enter = (node: ListValueNode | ObjectValueNode) => {
    depth += 1;
    if (depth > MAX_VALUE_DEPTH && !reported) {
      reported = true;
      context.reportError(tooDeep('A value in the document', [node]));
    }
  };
  const leave = () => {
    depth -= 1;
  };
  return { ListValue: { enter, leave }, ObjectValue: { enter, leave } };
};
