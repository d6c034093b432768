// What the data browser knows of an app: read from the introspection of its generated API, so
// it follows whatever the schema declares — model types and their connection, columns, orderable
// fields, filter operators, and the inputs of their mutations. Fields are recognised by their
// shape (a connection's edges, a payload holding the changed object), never by a name the
// server makes up: those can take a number when names clash (docs/api.md).

import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import type { GraphQLField, GraphQLInputField, GraphQLInputObjectType, GraphQLNamedType, GraphQLObjectType, GraphQLSchema, IntrospectionQuery } from 'graphql';
import { requestGraphQL } from '../api/graphql';

export type Column =
  | { kind: 'value'; name: string; type: string; selection: string }
  | { kind: 'single'; name: string; target: string; selection: string }
  | { kind: 'list'; name: string; target: string; selection: string; edgeFields: string[] };

export interface InputFieldInfo {
  name: string;
  /** The named type: String, Int, an enum, JSON, an embedded input… */
  type: string;
  required: boolean;
  widget: 'text' | 'textarea' | 'password' | 'number' | 'integer' | 'boolean' | 'enum' | 'json' | 'relation' | 'upload';
  enumValues?: string[];
  /** For `<relation>Id` fields: the related type. */
  target?: string;
  /**
   * For `upload` fields: one file or a list, and for a nested create of a File under a relation
   * (`cover: CreateFileInput`) the field of that input the file goes in (`blob`).
   */
  upload?: { list: boolean; nested?: string };
  description?: string | undefined;
}

export interface ModelInfo {
  name: string;
  /** `allPosts` on Viewer. */
  connection: string;
  columns: Column[];
  orderFields: string[];
  /** Fields that can be filtered, with their operators (`eq`, `like`, …). */
  filters: { name: string; operators: string[]; valueType: string }[];
  labelField?: string;
  /** The create input's field that takes the file, for a type whose objects are uploads (File). */
  upload?: string;
  argTypes: { where: string; orderBy: string };
  create?: { mutation: string; input: string; payload: string; fields: InputFieldInfo[] };
  update?: { mutation: string; input: string; payload: string; fields: InputFieldInfo[] };
  remove?: { mutation: string; input: string; payload: string };
}

export interface AppModel {
  schema: GraphQLSchema;
  models: ModelInfo[];
  byName: Map<string, ModelInfo>;
}

/** The built-in type of an app's users (DESIGN.md section 3), which the Users page manages. */
export const USER_TYPE = 'User';

const LABEL_FIELDS = ['name', 'title', 'username', 'displayName', 'label', 'slug'];
const JSON_TYPES = new Set(['JSON']);
/** The scalar of the GraphQL multipart request specification: a file sent with the request. */
const UPLOAD_SCALAR = 'Upload';

function isNodeType(type: GraphQLNamedType): type is GraphQLObjectType {
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}

function isConnection(type: GraphQLNamedType): type is GraphQLObjectType {
  return isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();
}

/** The scalar fields a connection's edges carry beside cursor and node: a join type's fields (`accessLevel`). */
function edgeFieldsOf(type: GraphQLObjectType): string[] {
  const edges = type.getFields().edges;
  const edge = edges ? getNamedType(edges.type) : undefined;
  if (!edge || !isObjectType(edge)) return [];
  return Object.values(edge.getFields())
    .filter((f) => f.name !== 'cursor' && f.name !== 'node' && !isObjectType(getNamedType(f.type)))
    .map((f) => f.name);
}

function connectionTarget(type: GraphQLObjectType): GraphQLObjectType | undefined {
  const edges = type.getFields().edges;
  if (!edges) return undefined;
  const edge = getNamedType(edges.type);
  if (!isObjectType(edge)) return undefined;
  const node = edge.getFields().node;
  const target = node ? getNamedType(node.type) : undefined;
  return target && isObjectType(target) ? target : undefined;
}

/** Every leaf of an embedded value, nested embedded values included (a few levels deep). */
function embeddedSelection(type: GraphQLObjectType, depth = 0): string {
  if (depth > 4) return '__typename';
  const parts = Object.values(type.getFields()).map((f) => {
    const named = getNamedType(f.type);
    return isObjectType(named) ? `${f.name} { ${embeddedSelection(named, depth + 1)} }` : f.name;
  });
  return parts.join(' ');
}

function labelFieldOf(type: GraphQLObjectType): string | undefined {
  const fields = type.getFields();
  const stringField = (name: string) => {
    const f = fields[name];
    return f !== undefined && !isListType(isNonNullType(f.type) ? f.type.ofType : f.type) && getNamedType(f.type).name === 'String';
  };
  return LABEL_FIELDS.find(stringField) ?? Object.keys(fields).find((n) => n !== 'id' && stringField(n));
}

function columnsOf(type: GraphQLObjectType, label: (target: GraphQLObjectType) => string | undefined): Column[] {
  return Object.values(type.getFields()).map((field: GraphQLField<unknown, unknown>): Column => {
    const named = getNamedType(field.type);
    if (isNodeType(named)) {
      const l = label(named);
      return { kind: 'single', name: field.name, target: named.name, selection: `${field.name} { id${l ? ` ${l}` : ''} }` };
    }
    if (isConnection(named)) {
      const target = connectionTarget(named);
      return { kind: 'list', name: field.name, target: target?.name ?? '', selection: `${field.name} { aggregations { count } }`, edgeFields: edgeFieldsOf(named) };
    }
    if (isObjectType(named)) return { kind: 'value', name: field.name, type: named.name, selection: `${field.name} { ${embeddedSelection(named)} }` };
    return { kind: 'value', name: field.name, type: named.name, selection: field.name };
  });
}

function inputFields(input: GraphQLInputObjectType, objectType: GraphQLObjectType): InputFieldInfo[] {
  const objectFields = objectType.getFields();
  return Object.values(input.getFields()).flatMap((field: GraphQLInputField): InputFieldInfo[] => {
    if (field.name === 'clientMutationId' || field.name === 'id') return [];
    const named = getNamedType(field.type);
    const required = isNonNullType(field.type);
    const list = isListType(isNonNullType(field.type) ? field.type.ofType : field.type);
    const base = { name: field.name, type: named.name, required, description: field.description ?? undefined };
    if (named.name === UPLOAD_SCALAR) return [{ ...base, widget: 'upload', upload: { list } }];
    // A nested create under a relation's name (`author: CreateUserInput`): the form offers the id
    // instead, except for new files (`cover: CreateFileInput`), which are uploaded with the object.
    const relation = objectFields[field.name];
    if (isInputObjectType(named) && relation && (isNodeType(getNamedType(relation.type)) || isConnection(getNamedType(relation.type)))) {
      const nested = Object.values(named.getFields()).find((f) => getNamedType(f.type).name === UPLOAD_SCALAR);
      return nested ? [{ ...base, widget: 'upload', upload: { list, nested: nested.name } }] : [];
    }
    if (field.name.endsWith('Id') && named.name === 'ID') {
      const single = objectFields[field.name.slice(0, -2)];
      const target = single ? getNamedType(single.type) : undefined;
      if (target && isNodeType(target)) return [{ ...base, widget: 'relation', target: target.name }];
    }
    if (list || isInputObjectType(named) || JSON_TYPES.has(named.name)) return [{ ...base, widget: 'json' }];
    if (isEnumType(named)) return [{ ...base, widget: 'enum', enumValues: named.getValues().map((v) => v.name) }];
    if (field.name === 'password') return [{ ...base, widget: 'password' }];
    switch (named.name) {
      case 'Int':
        return [{ ...base, widget: 'integer' }];
      case 'Float':
        return [{ ...base, widget: 'number' }];
      case 'Boolean':
        return [{ ...base, widget: 'boolean' }];
      case 'Text':
        return [{ ...base, widget: 'textarea' }];
      default:
        return [{ ...base, widget: 'text' }];
    }
  });
}

type RowMutation = NonNullable<ModelInfo['create']>;

/**
 * The create, update and delete mutations of `objectType`: the mutations whose payload holds the
 * changed object and its `changedEdge`, told apart by their input — no `id` (create), `id` and
 * values (update), `id` alone (delete).
 */
function rowMutationsOf(schema: GraphQLSchema, objectType: GraphQLObjectType): { create?: RowMutation; update?: RowMutation; remove?: RowMutation } {
  const found: { create?: RowMutation; update?: RowMutation; remove?: RowMutation } = {};
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const payload = getNamedType(field.type);
    if (!isObjectType(payload) || !('changedEdge' in payload.getFields())) continue;
    const changed = Object.values(payload.getFields()).find((f) => getNamedType(f.type) === objectType);
    const arg = field.args.find((a) => a.name === 'input');
    const input = arg ? getNamedType(arg.type) : undefined;
    if (!changed || !input || !isInputObjectType(input)) continue;
    const mutation: RowMutation = { mutation: field.name, input: input.name, payload: changed.name, fields: inputFields(input, objectType) };
    const inputs = Object.keys(input.getFields()).filter((name) => name !== 'clientMutationId');
    if (!inputs.includes('id')) found.create = mutation;
    else if (inputs.length === 1) found.remove = mutation;
    else found.update = mutation;
  }
  return found;
}

function argType(field: GraphQLField<unknown, unknown>, name: string): string {
  const arg = field.args.find((a) => a.name === name);
  return arg ? String(arg.type) : 'String';
}

function filtersOf(schema: GraphQLSchema, whereType: string): ModelInfo['filters'] {
  const where = schema.getType(whereType);
  if (!where || !isInputObjectType(where)) return [];
  return Object.values(where.getFields()).flatMap((field) => {
    const ops = getNamedType(field.type);
    if (!isInputObjectType(ops) || ['AND', 'OR', 'NOT'].includes(field.name)) return [];
    const opFields = ops.getFields();
    // Only operator inputs (`eq`, `like`, …): relation filters take a whole WhereArgs.
    if (!('eq' in opFields) && !('isNull' in opFields)) return [];
    const valueType = opFields.eq ? getNamedType(opFields.eq.type).name : 'Boolean';
    return [{ name: field.name, operators: Object.keys(opFields), valueType }];
  });
}

export async function loadAppModel(endpoint: string, token: string | null): Promise<AppModel> {
  const result = await requestGraphQL<IntrospectionQuery>(endpoint, getIntrospectionQuery(), {}, token);
  const schema = buildClientSchema(result);
  const viewer = schema.getType('Viewer');
  if (!viewer || !isObjectType(viewer)) throw new Error('The app API has no Viewer type');
  const models: ModelInfo[] = [];
  for (const field of Object.values(viewer.getFields())) {
    const connection = getNamedType(field.type);
    if (!isConnection(connection)) continue;
    const type = connectionTarget(connection);
    if (!type) continue;
    // The enum of the orderBy argument's `field`.
    const orderBy = field.args.find((a) => a.name === 'orderBy');
    const orderArgs = orderBy ? getNamedType(orderBy.type) : undefined;
    const orderField = orderArgs && isInputObjectType(orderArgs) ? orderArgs.getFields().field : undefined;
    const orderType = orderField ? getNamedType(orderField.type) : undefined;
    const info: ModelInfo = {
      name: type.name,
      connection: field.name,
      columns: columnsOf(type, labelFieldOf),
      orderFields: orderType && isEnumType(orderType) ? orderType.getValues().map((v) => v.name) : ['id'],
      filters: filtersOf(schema, argType(field, 'where').replace(/[[\]!]/g, '')),
      argTypes: { where: argType(field, 'where'), orderBy: argType(field, 'orderBy') },
    };
    const label = labelFieldOf(type);
    if (label) info.labelField = label;
    const { create, update, remove } = rowMutationsOf(schema, type);
    if (create) info.create = create;
    const upload = create?.fields.find((f) => f.widget === 'upload' && !f.upload?.nested);
    if (upload) info.upload = upload.name;
    if (update) info.update = update;
    if (remove) info.remove = { mutation: remove.mutation, input: remove.input, payload: remove.payload };
    models.push(info);
  }
  return { schema, models, byName: new Map(models.map((m) => [m.name, m])) };
}

/** A filter value typed in a text box, as the filter's operand type wants it. */
export function parseValue(type: string, text: string): unknown {
  switch (type) {
    case 'Int':
      return Number.parseInt(text, 10);
    case 'Float':
      return Number.parseFloat(text);
    case 'Boolean':
      return text === 'true';
    default:
      return text;
  }
}
