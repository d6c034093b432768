// An app's functions through the management API (DESIGN.md section 9): listed with their
// settings (never their secrets nor header values), created and rotated with a signing secret
// the server answers once, enabled, disabled and deleted; an EVENT function's deliveries listed
// by status and redelivered. Also the app's mutations a function can be attached to.

import { adminRequest } from './admin';

export const FUNCTION_KINDS = ['BEFORE', 'EVENT', 'RESOLVER'] as const;
export type FunctionKind = (typeof FUNCTION_KINDS)[number];

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'DEAD'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface AppFunction {
  name: string;
  kind: FunctionKind;
  url: string;
  operations: string[];
  /** The names of the headers sent with every call; their values are never answered back. */
  headers: { name: string }[];
  timeoutMs: number;
  enabled: boolean;
  order: number;
  createdAt: string;
  updatedAt: string;
}

export interface FunctionDelivery {
  id: string;
  operation: string;
  status: DeliveryStatus;
  attempts: number;
  /** The HTTP status of the last attempt's answer; null when there was none (timeout, refused connection). */
  lastStatusCode: number | null;
  /** Why the last attempt failed; null once delivered. */
  lastError: string | null;
  /** When it is tried next; null once delivered or dead. */
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface NewFunction {
  name: string;
  kind: FunctionKind;
  url: string;
  operations: string[];
  headers: { name: string; value: string }[];
  timeoutMs: number;
  enabled: boolean;
  order: number;
}

/** A function with its signing secret, as the server answers it once (on creation or rotation). */
export interface FunctionWithSecret {
  function: AppFunction;
  secret: string;
}

export interface AppFunctions {
  id: string;
  name: string;
  functions: AppFunction[];
}

/** The server's bounds (CreateFunctionInput), repeated for the form's own checks. */
export const TIMEOUT_BOUNDS = { min: 100, max: 30_000, default: 5_000 } as const;
export const ORDER_BOUNDS = { min: -10_000, max: 10_000 } as const;
export const MAX_HEADERS = 20;
/** The most deliveries one listing answers. */
export const MAX_DELIVERIES = 100;

const FUNCTION = 'name kind url operations headers { name } timeoutMs enabled order createdAt updatedAt';
const DELIVERY = 'id operation status attempts lastStatusCode lastError nextAttemptAt createdAt deliveredAt';

/** The app's functions by order then name; null when there is no such app. */
export async function listFunctions(appId: string): Promise<AppFunctions | null> {
  const query = `query AppFunctions($id: ID!) { app(id: $id) { id name functions { ${FUNCTION} } } }`;
  return (await adminRequest<{ app: AppFunctions | null }>(query, { id: appId })).app;
}

/** A function's latest deliveries, newest first, of one status or any; null when the app or the function is gone. */
export async function listDeliveries(appId: string, name: string, status: DeliveryStatus | null, first = MAX_DELIVERIES): Promise<FunctionDelivery[] | null> {
  const query = `query FunctionDeliveries($id: ID!, $name: String!, $first: Int!, $status: FunctionDeliveryStatus) {
  app(id: $id) { function(name: $name) { deliveries(first: $first, status: $status) { ${DELIVERY} } } } }`;
  type Data = { app: { function: { deliveries: FunctionDelivery[] } | null } | null };
  const data = await adminRequest<Data>(query, { id: appId, name, first, status });
  return data.app?.function?.deliveries ?? null;
}

export async function createFunction(appId: string, fn: NewFunction): Promise<FunctionWithSecret> {
  const query = `mutation CreateFunction($i: CreateFunctionInput!) { createFunction(input: $i) { function { ${FUNCTION} } secret } }`;
  return (await adminRequest<{ createFunction: FunctionWithSecret }>(query, { i: { appId, ...fn } })).createFunction;
}

export async function setFunctionEnabled(appId: string, name: string, enabled: boolean): Promise<AppFunction> {
  const query = `mutation EnableFunction($i: UpdateFunctionInput!) { updateFunction(input: $i) { function { ${FUNCTION} } } }`;
  return (await adminRequest<{ updateFunction: { function: AppFunction } }>(query, { i: { appId, name, enabled } })).updateFunction.function;
}

/** Replaces the function's signing secret; calls are signed with the new one from now on. */
export async function rotateFunctionSecret(appId: string, name: string): Promise<FunctionWithSecret> {
  const query = `mutation RotateFunctionSecret($i: UpdateFunctionInput!) { updateFunction(input: $i) { function { ${FUNCTION} } secret } }`;
  const data = await adminRequest<{ updateFunction: { function: AppFunction; secret: string | null } }>(query, { i: { appId, name, rotateSecret: true } });
  const { function: fn, secret } = data.updateFunction;
  if (secret === null) throw new Error('The server answered no new secret');
  return { function: fn, secret };
}

/** Deletes the function and its deliveries; false when the app had no function of that name. */
export async function deleteFunction(appId: string, name: string): Promise<boolean> {
  const query = 'mutation DeleteFunction($i: DeleteFunctionInput!) { deleteFunction(input: $i) { deleted } }';
  return (await adminRequest<{ deleteFunction: { deleted: boolean } }>(query, { i: { appId, name } })).deleteFunction.deleted;
}

/** Sends a delivery again now, with a fresh retry window; its id stays the same. */
export async function redeliver(appId: string, deliveryId: string): Promise<FunctionDelivery> {
  const query = `mutation Redeliver($i: RedeliverInput!) { redeliver(input: $i) { delivery { ${DELIVERY} } } }`;
  return (await adminRequest<{ redeliver: { delivery: FunctionDelivery } }>(query, { i: { appId, deliveryId } })).redeliver.delivery;
}

/** The app's generated API (SDL), which its mutations are read from; null when there is no such app. */
export async function loadApiSchema(appId: string): Promise<string | null> {
  const query = 'query AppApiSchema($id: ID!) { app(id: $id) { apiSchema } }';
  return (await adminRequest<{ app: { apiSchema: string } | null }>(query, { id: appId })).app?.apiSchema ?? null;
}
