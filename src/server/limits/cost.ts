// The cost of an operation, estimated before it runs: how many objects it can return. Each
// object of a model type (`getPost`, `viewer.user`, a singular relation, a mutation's
// `changedPost`) counts 1, and a connection (a field taking `first`/`last`) counts 1 per item
// of its page — the item's edge and node together — with what each item holds below it counted
// once per item, so nested page sizes multiply. Scalars and the objects that only wrap others
// (`viewer`, a connection itself, `pageInfo`, `aggregations`, payloads, embedded values) are
// free: the token and alias limits bound how many of those a document can ask for. Page sizes
// given as variables are read from the request, which is why cost is checked per request
// rather than cached with the validated document.

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

/** An object of a model type (every one implements `Node`): what a row of the app's data returns as. */
function isModelObject(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}

/**
 * Costs of operations no variable can change, by operation: validated documents are cached, so
 * the same operation comes back request after request. The schema and default page size it was
 * costed under come with it.
 */
const fixedCosts = new WeakMap<OperationDefinitionNode, { schema: GraphQLSchema; defaultPageSize: number; cost: number }>();

/** The operation's estimated cost (may be Infinity for absurd page sizes). */
export function operationCost(request: CostRequest): number {
  const known = fixedCosts.get(request.operation);
  if (known && known.schema === request.schema && known.defaultPageSize === request.defaultPageSize) return known.cost;
  const { cost, readsVariables } = measure(request);
  if (!readsVariables) fixedCosts.set(request.operation, { schema: request.schema, defaultPageSize: request.defaultPageSize, cost });
  return cost;
}

/** The cost, and whether a page size came from (or may hold) a variable. */
function measure(request: CostRequest): { cost: number; readsVariables: boolean } {
  const { schema, document, operation, variables = {} } = request;
  let readsVariables = false;
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
    if (node.kind === Kind.VARIABLE || node.kind === Kind.LIST || node.kind === Kind.OBJECT) readsVariables = true;
    if (node.kind === Kind.VARIABLE) {
      // The request's own variables only: a name like `toString` must not read Object's member.
      const given = Object.hasOwn(variables, node.name.value) ? variables[node.name.value] : undefined;
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
   * connection: its list field (`edges`) holds one entry per item, counted 1 each; the rest
   * (`pageInfo`, `aggregations`) is answered once. `inItem` says `parent` is such an entry,
   * whose object (`node`) its item has counted already.
   */
  function selectionsCost(parent: GraphQLNamedType | undefined | null, set: SelectionSetNode, items: number | undefined, inItem = false): number {
    let total = 0;
    for (const selection of set.selections) {
      switch (selection.kind) {
        case Kind.FIELD:
          total += fieldCost(parent, selection, items, inItem);
          break;
        case Kind.INLINE_FRAGMENT: {
          const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
          total += selectionsCost(on, selection.selectionSet, items, inItem);
          break;
        }
        case Kind.FRAGMENT_SPREAD:
          total += fragmentCost(selection.name.value, items, inItem);
          break;
        default: {
          const never: never = selection;
          throw new Error(`unknown selection ${JSON.stringify(never)}`);
        }
      }
    }
    return total;
  }

  function fieldCost(parent: GraphQLNamedType | undefined | null, node: FieldNode, items: number | undefined, inItem: boolean): number {
    if (!node.selectionSet) return 0;
    // Introspection fields are not among a type's own fields; nothing below them pages.
    const field = fieldOf(parent, node.name.value);
    if (!field) return selectionsCost(undefined, node.selectionSet, undefined);
    const named = getNamedType(field.type);
    // A connection's entries: one item each, the edge and its node together.
    if (items !== undefined && isListType(getNullableType(field.type))) return items * (1 + selectionsCost(named, node.selectionSet, undefined, true));
    if (isConnection(field)) return selectionsCost(named, node.selectionSet, pageSize(node));
    const own = isModelObject(named) && !inItem ? 1 : 0;
    return own + selectionsCost(named, node.selectionSet, undefined);
  }

  function fragmentCost(name: string, items: number | undefined, inItem: boolean): number {
    const key = `${name}\u0000${items ?? ''}\u0000${inItem}`;
    const known = fragmentCosts.get(key);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    // Validation has refused unknown and cyclic fragments; the guard only keeps this total.
    fragmentCosts.set(key, 0);
    const cost = fragment ? selectionsCost(schema.getType(fragment.typeCondition.name.value), fragment.selectionSet, items, inItem) : 0;
    fragmentCosts.set(key, cost);
    return cost;
  }

  const cost = selectionsCost(schema.getRootType(operation.operation), operation.selectionSet, undefined);
  return { cost, readsVariables };
}
