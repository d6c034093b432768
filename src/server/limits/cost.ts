// The cost of an operation, estimated before it runs: every field costs 1, and what a
// connection (a field taking `first`/`last`) holds per item of its page — its list fields,
// `edges` — counts once per item, so nested page sizes multiply. Page sizes given as variables
// are read from the request, which is why cost is checked per request rather than cached with
// the validated document.

import { Kind, getNamedType, getNullableType, isInterfaceType, isListType, isObjectType, valueFromASTUntyped } from 'graphql';
import type {
  ArgumentNode,
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLField,
  GraphQLNamedType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';

export interface CostRequest {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Readonly<Record<string, unknown>> | undefined;
  /** The page size of a connection given neither `first` nor `last`. */
  defaultPageSize: number;
}

function fieldOf(parent: GraphQLNamedType | undefined | null, name: string): GraphQLField<unknown, unknown> | undefined {
  return parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
}

function isConnection(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((arg) => arg.name === 'first' || arg.name === 'last');
}

/** The operation's estimated cost (may be Infinity for absurd page sizes). */
export function operationCost(request: CostRequest): number {
  const { schema, document, operation, variables = {} } = request;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const defaults = new Map<string, ValueNode>();
  for (const v of operation.variableDefinitions ?? []) if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
  // A fragment costs the same wherever it is spread with the same page size around it:
  // computing it once keeps the walk linear in the document, however often fragments spread
  // each other.
  const fragmentCosts = new Map<string, number>();

  function argument(args: readonly ArgumentNode[] | undefined, name: string): unknown {
    const node = args?.find((a) => a.name.value === name)?.value;
    if (node === undefined) return undefined;
    if (node.kind === Kind.VARIABLE) {
      const given = variables[node.name.value];
      if (given !== undefined) return given;
      const fallback = defaults.get(node.name.value);
      return fallback ? valueFromASTUntyped(fallback) : undefined;
    }
    return valueFromASTUntyped(node, variables);
  }

  /** Items a connection's page holds; a page of 0 still costs what one item does (pageInfo, aggregations). */
  function pageSize(node: FieldNode): number {
    const sizes = ['first', 'last']
      .map((name) => argument(node.arguments, name))
      .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return Math.max(1, sizes.length > 0 ? Math.max(...sizes) : request.defaultPageSize);
  }

  /**
   * The cost of a selection set on `parent`. `items` is the page size when `parent` is a
   * connection: its list fields (`edges`) hold one entry per item, the rest (`pageInfo`,
   * `aggregations`) are answered once.
   */
  function selectionsCost(parent: GraphQLNamedType | undefined | null, set: SelectionSetNode, items: number | undefined): number {
    let total = 0;
    for (const selection of set.selections) {
      switch (selection.kind) {
        case Kind.FIELD:
          total += fieldCost(parent, selection, items);
          break;
        case Kind.INLINE_FRAGMENT: {
          const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
          total += selectionsCost(on, selection.selectionSet, items);
          break;
        }
        case Kind.FRAGMENT_SPREAD:
          total += fragmentCost(selection.name.value, items);
          break;
        default: {
          const never: never = selection;
          throw new Error(`unknown selection ${JSON.stringify(never)}`);
        }
      }
    }
    return total;
  }

  function fieldCost(parent: GraphQLNamedType | undefined | null, node: FieldNode, items: number | undefined): number {
    if (!node.selectionSet) return 1;
    // Introspection fields are not among a type's own fields; nothing below them pages.
    const field = fieldOf(parent, node.name.value);
    if (!field) return 1 + selectionsCost(undefined, node.selectionSet, undefined);
    const perItem = items !== undefined && isListType(getNullableType(field.type)) ? items : 1;
    const pageItems = isConnection(field) ? pageSize(node) : undefined;
    return 1 + perItem * selectionsCost(getNamedType(field.type), node.selectionSet, pageItems);
  }

  function fragmentCost(name: string, items: number | undefined): number {
    const key = `${name}\u0000${items ?? ''}`;
    const known = fragmentCosts.get(key);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    // Validation has refused unknown and cyclic fragments; the guard only keeps this total.
    fragmentCosts.set(key, 0);
    const cost = fragment ? selectionsCost(schema.getType(fragment.typeCondition.name.value), fragment.selectionSet, items) : 0;
    fragmentCosts.set(key, cost);
    return cost;
  }

  return selectionsCost(schema.getRootType(operation.operation), operation.selectionSet, undefined);
}
