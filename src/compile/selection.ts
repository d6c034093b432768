// Field collection: the fields a selection set asks of an object of a given type, grouped by
// response key, with fragments spread and @skip/@include applied (GraphQL spec CollectFields).

import { Kind } from 'graphql';
import type { FieldNode, FragmentDefinitionNode, SelectionSetNode } from 'graphql';
import { included } from './args.js';
import type { Binder } from './params.js';

export type Fields = Map<string, FieldNode[]>;

export interface SelectionContext {
  binder: Binder;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
}

/**
 * Collects the fields of `sets` for an object whose type satisfies the names in `types`
 * (its own name and the interfaces it implements).
 */
export function collectFields(c: SelectionContext, sets: readonly (SelectionSetNode | undefined)[], types: ReadonlySet<string>): Fields {
  const fields: Fields = new Map();
  const visited = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (!included(selection.directives, c.binder)) continue;
      switch (selection.kind) {
        case Kind.FIELD: {
          const key = selection.alias?.value ?? selection.name.value;
          const list = fields.get(key);
          if (list) list.push(selection);
          else fields.set(key, [selection]);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (!selection.typeCondition || types.has(selection.typeCondition.name.value)) visit(selection.selectionSet);
          break;
        case Kind.FRAGMENT_SPREAD: {
          const name = selection.name.value;
          const fragment = c.fragments[name];
          if (visited.has(name) || !fragment) break;
          visited.add(name);
          if (types.has(fragment.typeCondition.name.value)) visit(fragment.selectionSet);
          break;
        }
        default: {
          const never: never = selection;
          throw new Error(`unknown selection ${JSON.stringify(never)}`);
        }
      }
    }
  };
  for (const set of sets) if (set) visit(set);
  return fields;
}

/** The sub-selections of every node of one response key, to collect together. */
export function subSelections(nodes: readonly FieldNode[]): (SelectionSetNode | undefined)[] {
  return nodes.map((n) => n.selectionSet);
}
