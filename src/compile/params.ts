// How request values reach a compiled statement. A statement is compiled once per operation
// and shape of its variables, with a placeholder (Slot) wherever a variable's value is bound;
// each request binds the placeholders again from its own variables and context.

import type { AppSettings } from '../model/index.js';
import { compile, mapValues, precompiled, value } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { SHARED_QUALIFIER, statementForApp } from './context.js';
import { cursorShape } from './cursor.js';
import { decodeAnyId } from './ids.js';

/** What a request brings besides the operation: its variables and who is asking. */
export interface RequestValues {
  /** The app the request is for: statements compiled once for every app of a model read it here. */
  appId: string;
  variables: Readonly<Record<string, unknown>>;
  settings: AppSettings;
  /** The logged-in user's row uuid, when there is one. */
  userId?: string | undefined;
  /** For a subscription's statements: the row event being delivered. */
  event?: EventValues | undefined;
  /** For the statement reading a custom field's @model result: the row uuids its function
   * answered, in order (null where it answered null). */
  answered?: readonly (string | null)[] | undefined;
  /** For a one-statement write: the values it writes, its row's uuid first
   * (mutations/oneStatement.ts). */
  written?: readonly unknown[] | undefined;
}

/** What a subscription statement reads of one event: the row, and the mutation's name. */
export interface EventValues {
  id: string;
  /** A deleted row's last state (`row_to_json` text). */
  row?: string | undefined;
  mutation: string;
  /** The subscribers the statement answers for: their user ids, null for anonymous callers. */
  callers: readonly (string | null)[];
  /**
   * Where the event's transaction stands, as 32-bit transaction ids (what a row's `xmin`
   * holds): its own, its snapshot's `xmax` and the ids running at it; and as it was stamped
   * (`own8`, a 64-bit id; `snapshot`, its snapshot's text), for the link times of rows. Absent
   * from an older server's notifications (the rules are then read as they are at delivery).
   */
  committed?: { own: string; xmax: string; running: string[]; own8: string; snapshot: string } | undefined;
}

/** A variable in an argument tree: a leaf or a list of leaves, bound per request. */
export class VarRef {
  constructor(readonly name: string) {}
}

/** A placeholder among a statement's values, computed from each request. */
export class Slot {
  constructor(readonly read: (request: RequestValues) => unknown) {}
}

/** How a variable decides the shape of a statement: its whole value, whether it is given,
 * for cursors which of its positions are null, for ids which type they name. */
export type ShapeKind = 'value' | 'present' | 'cursor' | 'idType';

/**
 * What a statement's text depends on besides its document: a variable, in one of the ways
 * above, or a setting of the request's app (statements are shared by the apps of a model, so
 * apps that differ in it get statements of their own).
 */
export type ShapeRef = { name: string; kind: ShapeKind } | { name: keyof AppSettings; kind: 'setting' };

/** What a request's shape is read from. */
export type ShapeSource = Pick<RequestValues, 'variables' | 'settings'>;

/** An argument value with its variables replaced by their values for this request. */
export function resolve(v: unknown, request: RequestValues): unknown {
  if (v instanceof VarRef) return request.variables[v.name];
  if (Array.isArray(v)) return v.map((item) => resolve(item, request));
  return v;
}

/** An argument tree (objects included) with every variable replaced by its value; absent keys dropped. */
export function resolveDeep(v: unknown, request: RequestValues): unknown {
  if (v instanceof VarRef) return request.variables[v.name];
  if (Array.isArray(v)) return v.map((item) => resolveDeep(item, request));
  // Plain objects are argument trees; any other object is a value as it is (an Upload's file).
  if (v !== null && typeof v === 'object' && isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      const resolved = resolveDeep(item, request);
      if (resolved !== undefined) out[k] = resolved;
    }
    return out;
  }
  return v;
}

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function holdsVariable(v: unknown): boolean {
  return v instanceof VarRef || (Array.isArray(v) && v.some(holdsVariable));
}

function shapeOf(kind: ShapeKind, v: unknown): string {
  switch (kind) {
    case 'value':
      return JSON.stringify(v ?? null);
    case 'present':
      return v === undefined || v === null ? '0' : '1';
    case 'cursor':
      return cursorShape(v);
    case 'idType':
      return typeof v === 'string' ? (decodeAnyId(v)?.type ?? 'x') : '-';
    default: {
      const never: never = kind;
      throw new Error(`unknown shape ${String(never)}`);
    }
  }
}

/** The cache key part of a request for the shapes a plan depends on. */
export function shapeKey(shapes: readonly ShapeRef[], request: ShapeSource): string {
  return shapes.map((s) => (s.kind === 'setting' ? JSON.stringify(request.settings[s.name]) : shapeOf(s.kind, request.variables[s.name]))).join('\u0001');
}

/** Collects the parameters and shape dependencies of one compilation. */
export class Binder {
  readonly shapes: ShapeRef[] = [];
  constructor(readonly request: RequestValues) {}

  /**
   * A bound parameter for an argument value. `convert` validates and converts it (and may
   * throw a coded error); it runs when the statement is bound for a request, so one cached
   * statement serves every value of a variable. It sees the value alone: a statement is shared
   * by every app of a model, so what depends on the request's app goes through `perRequest`.
   */
  param(v: unknown, convert: (resolved: unknown) => unknown = (x) => x): SqlFragment {
    if (holdsVariable(v)) return value(new Slot((request) => convert(resolve(v, request))));
    // Constants of the document are checked now, so a bad literal fails the compilation itself.
    const converted = convert(v);
    return value(new Slot(() => converted));
  }

  /**
   * A bound parameter for an argument value converted per request even when it is a constant
   * of the document: for a conversion that depends on the request's app (a cursor names it,
   * page sizes are bounded by its settings).
   */
  perRequest(v: unknown, convert: (resolved: unknown, request: RequestValues) => unknown): SqlFragment {
    return value(new Slot((request) => convert(resolve(v, request), request)));
  }

  /** A parameter computed from the request alone (settings, the logged-in user). */
  fromRequest(read: (request: RequestValues) => unknown): SqlFragment {
    return value(new Slot(read));
  }

  /** The request's app's setting `name`, which the statement's text depends on; records the dependency. */
  setting<K extends keyof AppSettings>(name: K): AppSettings[K] {
    if (!this.shapes.some((s) => s.kind === 'setting' && s.name === name)) this.shapes.push({ name, kind: 'setting' });
    return this.request.settings[name];
  }

  /** The value of an argument the statement's text depends on; records the dependency. */
  shape(v: unknown, kind: ShapeKind = 'value'): unknown {
    if (v instanceof VarRef) {
      if (!this.shapes.some((s) => s.name === v.name && s.kind === kind)) this.shapes.push({ name: v.name, kind });
      return this.request.variables[v.name];
    }
    if (Array.isArray(v) && v.some(holdsVariable)) return v.map((item) => this.shape(item, kind));
    return v;
  }
}

/** The statement with its placeholders filled in from one request (may throw a coded error). */
export function bind(statement: SqlFragment, request: RequestValues): SqlFragment {
  return mapValues(statement, (v) => (v instanceof Slot ? v.read(request) : v));
}

/** A statement rendered once, its placeholders still in its values. */
export interface PreparedStatement {
  text: string;
  values: readonly unknown[];
  /** Compiled in a model's shared context: its tables are named for each request's app. */
  shared: boolean;
  /** A shared statement's text as the app it last ran for names its tables: most requests in a
   * row are for one app, and the same string object needs no hashing again where texts are
   * looked up (the store's prepared statement names). */
  lastApp?: { appId: string; text: string } | undefined;
}

export function prepare(statement: SqlFragment): PreparedStatement {
  const { text, values } = compile(statement);
  return { text, values, shared: text.includes(SHARED_QUALIFIER) };
}

/** A prepared statement's values for one request (may throw a coded error). */
export function boundValues(statement: PreparedStatement, request: RequestValues): unknown[] {
  return statement.values.map((v) => (v instanceof Slot ? v.read(request) : v));
}

/** The statement's text for the app `appId`. */
function textFor(statement: PreparedStatement, appId: string): string {
  if (!statement.shared) return statement.text;
  const last = statement.lastApp;
  if (last !== undefined && last.appId === appId) return last.text;
  const text = statementForApp(statement.text, appId);
  statement.lastApp = { appId, text };
  return text;
}

/** A prepared statement bound for one request, ready for a store. */
export function bindPrepared(statement: PreparedStatement, request: RequestValues): SqlFragment {
  return precompiled(textFor(statement, request.appId), boundValues(statement, request));
}
