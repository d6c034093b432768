// An app's functions in the management API: created with a generated signing secret answered
// once (stored sealed, as are header values, which are never answered back), changed, deleted;
// their event deliveries listed and redelivered. Every change is notified on the catalog
// channel, so every instance reloads the app's functions.

import { TesseraError, badInput, notFound } from '../errors/index.js';
import {
  DEFAULT_TIMEOUT_MS,
  FUNCTION_KINDS,
  FUNCTION_NAME,
  FUNCTIONS_CHANNEL,
  FunctionSecrets,
  HEADER_NAME,
  MAX_HEADERS,
  MAX_HEADER_VALUE,
  MAX_OPERATIONS,
  MAX_TIMEOUT_MS,
  MIN_TIMEOUT_MS,
  RESERVED_HEADERS,
  eventOperations,
  functionUrlProblem,
  generateFunctionSecret,
} from '../functions/index.js';
import type { FunctionHeader, FunctionKind, FunctionsSetup } from '../functions/index.js';
import { appSchema } from '../graphql/index.js';
import {
  CATALOG_CHANNEL,
  deleteFunctionRow,
  findApp,
  findDelivery,
  findFunction,
  insertFunction,
  listDeliveries,
  listFunctions,
  liveSchema,
  lockApp,
  redeliverDelivery,
  updateFunctionRow,
} from '../store/index.js';
import type { DeliveryRow, FunctionRow, Store } from '../store/index.js';
import type { AdminService, DeliveryStatusView, DeliveryView, FunctionHeaderInput, FunctionView } from './types.js';

/** The most deliveries one listing answers. */
export const MAX_DELIVERIES_LISTED = 100;
const MIN_ORDER = -10_000;
const MAX_ORDER = 10_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Header values: visible ASCII and beyond, spaces and tabs; no CR, LF, NUL or other control. */
const HEADER_VALUE_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function view(row: FunctionRow): FunctionView {
  return {
    appId: row.appId,
    name: row.name,
    kind: row.kind,
    url: row.url,
    operations: row.operations,
    headers: row.headers.map((h) => ({ name: h.name })),
    timeoutMs: row.timeoutMs,
    enabled: row.enabled,
    order: row.order,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    functionName: row.functionName,
    operation: row.operation,
    status: row.status.toUpperCase() as DeliveryStatusView,
    attempts: row.attempts,
    lastStatusCode: row.lastStatus,
    lastError: row.lastError,
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  };
}

function checkedKind(kind: string): FunctionKind {
  if (!(FUNCTION_KINDS as readonly string[]).includes(kind)) throw badInput(`kind must be one of ${FUNCTION_KINDS.join(', ')}`, { field: 'kind' });
  return kind as FunctionKind;
}

function checkedUrl(url: string, allowPrivate: boolean): string {
  const problem = functionUrlProblem(url, allowPrivate);
  if (problem) throw badInput(`url: ${problem}`, { field: 'url' });
  return url;
}

function checkedTimeout(timeoutMs: number): number {
  if (!Number.isInteger(timeoutMs) || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
    throw badInput(`timeoutMs must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`, { field: 'timeoutMs' });
  }
  return timeoutMs;
}

function checkedOrder(order: number): number {
  if (!Number.isInteger(order) || order < MIN_ORDER || order > MAX_ORDER) throw badInput(`order must be an integer from ${MIN_ORDER} to ${MAX_ORDER}`, { field: 'order' });
  return order;
}

function checkedHeaders(headers: readonly FunctionHeaderInput[]): FunctionHeader[] {
  if (headers.length > MAX_HEADERS) throw badInput(`At most ${MAX_HEADERS} headers`, { field: 'headers' });
  const seen = new Set<string>();
  return headers.map((h, i) => {
    const field = { field: `headers[${i}]` };
    if (!HEADER_NAME.test(h.name)) throw badInput(`headers[${i}].name is not a header name (1–64 letters, digits and !#$%&'*+.^_\`|~-)`, field);
    const lower = h.name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) throw badInput(`headers[${i}]: ${h.name} is set by Tessera or the connection; a function cannot set it`, field);
    if (seen.has(lower)) throw badInput(`headers[${i}]: ${h.name} is given twice`, field);
    seen.add(lower);
    if (h.value.length > MAX_HEADER_VALUE) throw badInput(`headers[${i}].value is longer than ${MAX_HEADER_VALUE} characters`, field);
    if (HEADER_VALUE_CONTROL.test(h.value)) throw badInput(`headers[${i}].value cannot hold control characters (line breaks, NUL)`, field);
    return { name: h.name, value: h.value };
  });
}

export type FunctionMethods = Pick<AdminService, 'createFunction' | 'updateFunction' | 'deleteFunction' | 'functions' | 'functionDeliveries' | 'redeliver'>;

/** The function methods of the management service; without a setup (no secret key) creating one is refused. */
export function functionMethods(store: Store, setup: FunctionsSetup | undefined): FunctionMethods {
  const secrets = setup && new FunctionSecrets(setup.secrets);
  const allowPrivate = setup?.allowPrivate ?? false;

  async function appIdOf(appId: string): Promise<string> {
    const app = await findApp(store, appId);
    if (!app) throw notFound(`No app with id or name "${appId}"`);
    return app.id;
  }

  /** BEFORE and EVENT: 1 to MAX_OPERATIONS mutations of the app that the kind can attach to; RESOLVER: none. */
  async function checkedOperations(appId: string, kind: FunctionKind, operations: readonly string[]): Promise<string[]> {
    const unique = [...new Set(operations)];
    if (kind === 'RESOLVER') {
      if (unique.length > 0) throw badInput('A RESOLVER function has no operations: the app schema names it with @function(name:)', { field: 'operations' });
      return [];
    }
    if (unique.length === 0) throw badInput(`A ${kind} function needs at least one operation (a mutation of the app)`, { field: 'operations' });
    if (unique.length > MAX_OPERATIONS) throw badInput(`At most ${MAX_OPERATIONS} operations`, { field: 'operations' });
    const live = await liveSchema(store, appId);
    if (!live) throw notFound(`App "${appId}" has no schema`);
    // EVENT: the mutations that write rows or edges; BEFORE: any mutation of the app's API.
    const known: ReadonlySet<string> =
      kind === 'EVENT' ? new Set(eventOperations(live.model).keys()) : new Set(Object.keys(appSchema(appId, live.version, live.model).getMutationType()?.getFields() ?? {}));
    for (const operation of unique) {
      if (!known.has(operation)) {
        const what = kind === 'EVENT' ? 'a mutation of the app that writes objects or edges (createX, updateX, deleteX, addToXConnection, …)' : 'a mutation of the app';
        throw badInput(`operations: "${operation.slice(0, 100)}" is not ${what}`, { field: 'operations' });
      }
    }
    return unique;
  }

  function requireSecrets(): FunctionSecrets {
    if (!secrets) throw new TesseraError('NOT_IMPLEMENTED', 'Functions are not set up on this server (it was started without a secret key)');
    return secrets;
  }

  async function stored(appId: string, name: string): Promise<FunctionRow> {
    const row = await findFunction(store, appId, name);
    if (!row) throw notFound(`The app has no function named "${name.slice(0, 100)}"`);
    return row;
  }

  return {
    async createFunction(input) {
      if (!FUNCTION_NAME.test(input.name)) throw badInput('Function name must be 1–64 letters, digits, "_" or "-", starting with a letter', { field: 'name' });
      const kind = checkedKind(input.kind);
      const url = checkedUrl(input.url, allowPrivate);
      const headers = checkedHeaders(input.headers ?? []);
      const timeoutMs = checkedTimeout(input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const order = checkedOrder(input.order ?? 0);
      const appId = await appIdOf(input.appId);
      const operations = await checkedOperations(appId, kind, input.operations ?? []);
      const box = requireSecrets();
      const secret = generateFunctionSecret();
      await insertFunction(store, {
        appId,
        name: input.name,
        kind,
        url,
        sealedSecret: box.sealSecret(appId, input.name, secret),
        headers: box.sealHeaders(appId, input.name, headers),
        timeoutMs,
        enabled: input.enabled ?? true,
        order,
        operations,
      });
      await store.notify(CATALOG_CHANNEL, appId);
      return { function: view(await stored(appId, input.name)), secret };
    },

    async updateFunction(input) {
      const appId = await appIdOf(input.appId);
      const current = await stored(appId, input.name);
      const box = requireSecrets();
      const url = input.url === undefined || input.url === null ? current.url : checkedUrl(input.url, allowPrivate);
      const headers = input.headers === undefined || input.headers === null ? current.headers : box.sealHeaders(appId, current.name, checkedHeaders(input.headers));
      const timeoutMs = input.timeoutMs === undefined || input.timeoutMs === null ? current.timeoutMs : checkedTimeout(input.timeoutMs);
      const order = input.order === undefined || input.order === null ? current.order : checkedOrder(input.order);
      const operations = input.operations === undefined || input.operations === null ? current.operations : await checkedOperations(appId, current.kind, input.operations);
      const secret = input.rotateSecret ? generateFunctionSecret() : null;
      const updated = await updateFunctionRow(store, {
        appId,
        name: current.name,
        url,
        sealedSecret: secret === null ? current.sealedSecret : box.sealSecret(appId, current.name, secret),
        headers,
        timeoutMs,
        enabled: input.enabled ?? current.enabled,
        order,
        operations,
      });
      if (!updated) throw notFound(`The app has no function named "${input.name.slice(0, 100)}"`);
      await store.notify(CATALOG_CHANNEL, appId);
      return { function: view(await stored(appId, current.name)), secret };
    },

    async deleteFunction({ appId, name }) {
      const id = await appIdOf(appId);
      // Under the app's lock, as a schema push checks its @function names: a field cannot be
      // left answered by a function that is gone.
      const deleted = await store.transaction(async (tx) => {
        await lockApp(tx, id);
        const field = (await liveSchema(tx, id))?.model.customFields?.find((f) => f.function === name);
        if (field) {
          const where = `${field.root}.${field.name}`;
          throw badInput(`The schema's field ${where} is answered by the function "${name}": push a schema without it (or naming another function) first`, { field: 'name' });
        }
        return deleteFunctionRow(tx, id, name);
      });
      if (deleted) await store.notify(CATALOG_CHANNEL, id);
      return deleted;
    },

    async functions(appId) {
      return (await listFunctions(store, await appIdOf(appId))).map(view);
    },

    async functionDeliveries(appId, name, first, status) {
      if (!Number.isInteger(first) || first < 1 || first > MAX_DELIVERIES_LISTED) throw badInput(`first must be from 1 to ${MAX_DELIVERIES_LISTED}, got ${first}`, { field: 'first' });
      const id = await appIdOf(appId);
      const lower = status === undefined || status === null ? undefined : (status.toLowerCase() as DeliveryRow['status']);
      return (await listDeliveries(store, id, name, first, lower)).map(deliveryView);
    },

    async redeliver({ appId, deliveryId }) {
      if (!UUID.test(deliveryId)) throw badInput('deliveryId is not the id of a delivery', { field: 'deliveryId' });
      const id = await appIdOf(appId);
      // Scoped to the app: another app's delivery id is not found here.
      if (!(await redeliverDelivery(store, id, deliveryId.toLowerCase()))) throw notFound(`The app has no delivery with id "${deliveryId}"`);
      await store.notify(FUNCTIONS_CHANNEL, '');
      const row = await findDelivery(store, id, deliveryId.toLowerCase());
      if (!row) throw notFound(`The app has no delivery with id "${deliveryId}"`);
      return deliveryView(row);
    },
  };
}
