// Reads the app's enums: each needs at least one value, values are unique and take no
// directives. The built-in AccessLevel enum is always added.

import type { EnumTypeDefinitionNode } from 'graphql';
import { builtinEnum } from './builtins.js';
import { checkDirectives } from './directives.js';
import type { Report } from './problems.js';
import type { EnumType } from './types.js';

export function readEnums(declared: ReadonlyMap<string, EnumTypeDefinitionNode>, report: Report): EnumType[] {
  const enums: EnumType[] = [builtinEnum()];
  for (const [name, node] of declared) {
    const values: string[] = [];
    for (const value of node.values ?? []) {
      checkDirectives(value.directives, 'enumValue', report);
      if (values.includes(value.name.value)) report(`Enum value ${name}.${value.name.value} is declared more than once`, value.name);
      else values.push(value.name.value);
    }
    if (values.length === 0) report(`Enum ${name} has no values`, node.name);
    enums.push({ name, values, builtin: false });
  }
  return enums;
}
