// The data browser's requests to an app's generated API: a page of a connection (all objects
// of a type, or a list relation of one object), and the create/update/delete mutations.

import { requestGraphQL, uploadGraphQL } from '../api/graphql';
import type { UploadPart } from '../api/graphql';
import type { InputFieldInfo, ModelInfo } from './model';

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

/** One object to choose as a relation's target: its id and the text of its label field. */
export interface Choice {
  id: string;
  label: string;
}

export interface ChoicePage {
  choices: Choice[];
  hasNextPage: boolean;
  endCursor: string | null;
  /** How many objects match the search (over all pages). */
  count: number | null;
}

/**
 * A page of the objects of a type to choose a relation's target from, searched on the server
 * (`where`, see search.ts) and ordered by their label, so any object can be found.
 */
export async function searchChoices(
  endpoint: string,
  token: string | null,
  model: ModelInfo,
  request: { where?: Record<string, unknown> | undefined; first: number; after?: string | null | undefined },
): Promise<ChoicePage> {
  const label = model.labelField;
  const orderBy = label && model.orderFields.includes(label) ? [{ field: label, direction: 'ASC' }] : null;
  const args = 'first: $first, after: $after, where: $where, orderBy: $orderBy';
  const vars = `$first: Int, $after: String, $where: ${model.argTypes.where}, $orderBy: ${model.argTypes.orderBy}`;
  const query = `query Choices(${vars}) { viewer { list: ${model.connection}(${args}) { edges { node { id ${label ?? ''} } } pageInfo { hasNextPage endCursor } aggregations { count } } } }`;
  const variables = { first: request.first, after: request.after ?? null, where: request.where ?? null, orderBy };
  const data = await requestGraphQL<{ viewer: { list: Connection } }>(endpoint, query, variables, token);
  const list = data.viewer.list;
  return {
    choices: list.edges.flatMap((e) => (e.node ? [{ id: e.node.id, label: label ? String(e.node[label] ?? '') : '' }] : [])),
    hasNextPage: list.pageInfo.hasNextPage,
    endCursor: list.pageInfo.endCursor,
    count: list.aggregations?.count ?? null,
  };
}

/** One object by id with every column the table shows, or null when there is none. */
export async function loadRow(endpoint: string, token: string | null, model: ModelInfo, id: string): Promise<Row | null> {
  const columns = model.columns.filter((c) => c.name !== 'id').map((c) => c.selection);
  const query = `query Row($id: ID!) { node(id: $id) { ... on ${model.name} { id ${columns.join(' ')} } } }`;
  const data = await requestGraphQL<{ node: Row | null }>(endpoint, query, { id }, token);
  return data.node && data.node.id ? data.node : null;
}

/** The first objects of one object's list relation, with their label and the edge's own fields (a join type's). */
export async function loadRelated(
  endpoint: string,
  token: string | null,
  parent: { type: string; id: string },
  field: { name: string; edgeFields: readonly string[] },
  target: ModelInfo,
  first: number,
): Promise<{ items: { node: Choice; edge: Record<string, unknown> }[]; count: number }> {
  const label = target.labelField ?? '';
  const query = `query Related($id: ID!, $first: Int) { node(id: $id) { ... on ${parent.type} { list: ${field.name}(first: $first) { edges { ${field.edgeFields.join(' ')} node { id ${label} } } aggregations { count } } } } }`;
  type Edge = Record<string, unknown> & { node: Row | null };
  const data = await requestGraphQL<{ node: { list?: { edges: Edge[]; aggregations: { count: number } | null } } | null }>(endpoint, query, { id: parent.id, first }, token);
  const list = data.node?.list;
  return {
    items: (list?.edges ?? []).flatMap(({ node, ...edge }) => (node ? [{ node: { id: node.id, label: label ? String(node[label] ?? '') : '' }, edge }] : [])),
    count: list?.aggregations?.count ?? 0,
  };
}

/** Where an upload's files go, for one field of an input: null placeholders in its value, and the parts that fill them. */
export function uploadValue(field: InputFieldInfo, files: readonly File[]): { value: unknown; parts: UploadPart[] } | undefined {
  if (files.length === 0 || !field.upload) return undefined;
  const { list, nested } = field.upload;
  const chosen = list ? files : files.slice(0, 1);
  const placeholder = () => (nested ? { [nested]: null } : null);
  const value = list ? chosen.map(placeholder) : placeholder();
  const parts = chosen.map((file, i) => ({ file, path: ['input', field.name, ...(list ? [String(i)] : []), ...(nested ? [nested] : [])].join('.') }));
  return { value, parts };
}

/**
 * Creates or updates one object, answering its id. With `parts` (files placed by uploadValue)
 * it is sent as a multipart upload, reporting the bytes sent to `onProgress`.
 */
export async function saveRow(
  endpoint: string,
  token: string | null,
  model: ModelInfo,
  mode: 'create' | 'update',
  input: Record<string, unknown>,
  parts: readonly UploadPart[] = [],
  onProgress?: (sent: number, total: number) => void,
): Promise<string> {
  const m = mode === 'create' ? model.create : model.update;
  if (!m) throw new Error(`${model.name} has no ${mode} mutation`);
  const query = `mutation Save($input: ${m.input}!) { result: ${m.mutation}(input: $input) { ${m.payload} { id } } }`;
  type Data = { result: Record<string, { id: string } | null> | null };
  const data = parts.length > 0 ? await uploadGraphQL<Data>(endpoint, query, { input }, parts, token, onProgress) : await requestGraphQL<Data>(endpoint, query, { input }, token);
  return data.result?.[m.payload]?.id ?? '';
}

export async function deleteRow(endpoint: string, token: string | null, model: ModelInfo, id: string): Promise<void> {
  const m = model.remove;
  if (!m) throw new Error(`${model.name} has no delete mutation`);
  const query = `mutation Delete($input: ${m.input}!) { result: ${m.mutation}(input: $input) { ${m.payload} { id } } }`;
  await requestGraphQL(endpoint, query, { input: { id } }, token);
}
