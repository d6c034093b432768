// The data browser's requests to an app's generated API: a page of a connection (all objects
// of a type, or a list relation of one object), and the create/update/delete mutations.

import { requestGraphQL } from '../api/graphql';
import type { ModelInfo } from './model';

export type Row = Record<string, unknown> & { id: string };

export interface PageRequest {
  first: number;
  after?: string | undefined;
  orderBy?: { field: string; direction: 'ASC' | 'DESC' } | undefined;
  where?: Record<string, unknown> | undefined;
  /** A list relation of one object instead of every object of the type. */
  via?: { parentType: string; parentId: string; field: string } | undefined;
}

export interface Page {
  rows: Row[];
  hasNextPage: boolean;
  endCursor: string | null;
  count: number | null;
  /** False when `via` names an object that does not exist (or was deleted). */
  found: boolean;
}

interface Connection {
  edges: { cursor: string; node: Row | null }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  aggregations: { count: number } | null;
}

export function pageQuery(model: ModelInfo, via: PageRequest['via']): string {
  const columns = model.columns.filter((c) => c.name !== 'id').map((c) => c.selection);
  const selection = `edges { cursor node { id ${columns.join(' ')} } } pageInfo { hasNextPage endCursor } aggregations { count }`;
  const args = 'first: $first, after: $after, orderBy: $orderBy, where: $where';
  const vars = `$first: Int, $after: String, $orderBy: ${model.argTypes.orderBy}, $where: ${model.argTypes.where}`;
  if (!via) return `query DataPage(${vars}) { viewer { list: ${model.connection}(${args}) { ${selection} } } }`;
  return `query RelationPage(${vars}, $parent: ID!) { parent: node(id: $parent) { ... on ${via.parentType} { list: ${via.field}(${args}) { ${selection} } } } }`;
}

export async function loadPage(endpoint: string, token: string | null, model: ModelInfo, request: PageRequest): Promise<Page> {
  const variables: Record<string, unknown> = { first: request.first, after: request.after ?? null, orderBy: request.orderBy ? [request.orderBy] : null, where: request.where ?? null };
  if (request.via) variables.parent = request.via.parentId;
  type Data = { viewer?: { list: Connection }; parent?: { list?: Connection } | null };
  const data = await requestGraphQL<Data>(endpoint, pageQuery(model, request.via), variables, token);
  const list = request.via ? data.parent?.list : data.viewer?.list;
  if (!list) return { rows: [], hasNextPage: false, endCursor: null, count: null, found: false };
  return {
    rows: list.edges.flatMap((e) => (e.node ? [e.node] : [])),
    hasNextPage: list.pageInfo.hasNextPage,
    endCursor: list.pageInfo.endCursor,
    count: list.aggregations?.count ?? null,
    found: true,
  };
}

/** A short list of objects of a type to choose a relation's target from: id and label. */
export async function loadChoices(endpoint: string, token: string | null, model: ModelInfo): Promise<{ id: string; label: string }[]> {
  const label = model.labelField;
  const query = `query Choices { viewer { list: ${model.connection}(first: 100) { edges { node { id ${label ?? ''} } } } } }`;
  const data = await requestGraphQL<{ viewer: { list: { edges: { node: Row | null }[] } } }>(endpoint, query, {}, token);
  return data.viewer.list.edges.flatMap((e) => (e.node ? [{ id: e.node.id, label: label ? String(e.node[label] ?? '') : '' }] : []));
}

export async function saveRow(endpoint: string, token: string | null, model: ModelInfo, mode: 'create' | 'update', input: Record<string, unknown>): Promise<string> {
  const m = mode === 'create' ? model.create : model.update;
  if (!m) throw new Error(`${model.name} has no ${mode} mutation`);
  const query = `mutation Save($input: ${m.input}!) { result: ${m.mutation}(input: $input) { ${m.payload} { id } } }`;
  const data = await requestGraphQL<{ result: Record<string, { id: string } | null> | null }>(endpoint, query, { input }, token);
  return data.result?.[m.payload]?.id ?? '';
}

export async function deleteRow(endpoint: string, token: string | null, model: ModelInfo, id: string): Promise<void> {
  const m = model.remove;
  if (!m) throw new Error(`${model.name} has no delete mutation`);
  const query = `mutation Delete($input: ${m.input}!) { result: ${m.mutation}(input: $input) { ${m.payload} { id } } }`;
  await requestGraphQL(endpoint, query, { input: { id } }, token);
}
