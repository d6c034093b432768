// Catalog rows of an app's functions (their secret and header values only ever sealed) and the
// outbox of their event deliveries: written with a mutation, claimed by a delivery worker,
// settled, listed, redelivered. The rules — validation, sealing, the retry schedule — are the
// admin and functions stages'; this is their SQL.

import { conflict } from '../../errors/index.js';
import { sql } from '../../sql/index.js';
import type { Queryable } from '../types.js';

export type FunctionKindName = 'BEFORE' | 'EVENT' | 'RESOLVER';

export interface FunctionRow {
  appId: string;
  name: string;
  kind: FunctionKindName;
  url: string;
  /** The signing secret, sealed. */
  sealedSecret: string;
  /** Header names with their values sealed. */
  headers: { name: string; value: string }[];
  timeoutMs: number;
  enabled: boolean;
  order: number;
  operations: string[];
  createdAt: Date;
  updatedAt: Date;
}

interface FunctionRecord {
  app_id: string;
  name: string;
  kind: FunctionKindName;
  url: string;
  secret_sealed: string;
  headers: { name: string; value: string }[];
  timeout_ms: number;
  enabled: boolean;
  order: number;
  operations: string[];
  created_at: Date;
  updated_at: Date;
}

function functionOf(r: FunctionRecord): FunctionRow {
  return {
    appId: r.app_id,
    name: r.name,
    kind: r.kind,
    url: r.url,
    sealedSecret: r.secret_sealed,
    headers: r.headers,
    timeoutMs: r.timeout_ms,
    enabled: r.enabled,
    order: r.order,
    operations: r.operations,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const SELECT_FUNCTIONS = sql`
  SELECT app_id, name, kind, url, secret_sealed, headers, timeout_ms, enabled, "order", operations, created_at, updated_at
    FROM tessera.functions`;

/** Stores a function; one of that name in the app already is a CONFLICT. */
export async function insertFunction(q: Queryable, f: Omit<FunctionRow, 'createdAt' | 'updatedAt'>): Promise<void> {
  const inserted = await q.query(sql`
    INSERT INTO tessera.functions (app_id, name, kind, url, secret_sealed, headers, timeout_ms, enabled, "order", operations)
    VALUES (${f.appId}, ${f.name}, ${f.kind}, ${f.url}, ${f.sealedSecret}, ${JSON.stringify(f.headers)}::jsonb, ${f.timeoutMs}, ${f.enabled}, ${f.order}, ${f.operations}::text[])
    ON CONFLICT DO NOTHING RETURNING name`);
  if (inserted.rowCount === 0) throw conflict(`The app already has a function named "${f.name}"`, { field: 'name' });
}

/** Replaces what may change of a function (all but its app, name, kind and creation time); false when there is none. */
export async function updateFunctionRow(q: Queryable, f: Omit<FunctionRow, 'kind' | 'createdAt' | 'updatedAt'>): Promise<boolean> {
  const updated = await q.query(sql`
    UPDATE tessera.functions
       SET url = ${f.url}, secret_sealed = ${f.sealedSecret}, headers = ${JSON.stringify(f.headers)}::jsonb, timeout_ms = ${f.timeoutMs},
           enabled = ${f.enabled}, "order" = ${f.order}, operations = ${f.operations}::text[], updated_at = now()
     WHERE app_id = ${f.appId} AND name = ${f.name}`);
  return updated.rowCount > 0;
}

/** Removes a function and its deliveries; false when the app has none of that name. */
export async function deleteFunctionRow(q: Queryable, appId: string, name: string): Promise<boolean> {
  const deleted = await q.query(sql`DELETE FROM tessera.functions WHERE app_id = ${appId} AND name = ${name} RETURNING name`);
  return deleted.rowCount > 0;
}

/** The app's function of that name. */
export async function findFunction(q: Queryable, appId: string, name: string): Promise<FunctionRow | undefined> {
  const { rows } = await q.query<FunctionRecord>(sql`${SELECT_FUNCTIONS} WHERE app_id = ${appId} AND name = ${name}`);
  return rows[0] && functionOf(rows[0]);
}

/** The app's functions, by order then name. */
export async function listFunctions(q: Queryable, appId: string): Promise<FunctionRow[]> {
  const { rows } = await q.query<FunctionRecord>(sql`${SELECT_FUNCTIONS} WHERE app_id = ${appId} ORDER BY "order", name`);
  return rows.map(functionOf);
}

// ---------------------------------------------------------------------------------------------
// The outbox.

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** One event for one function, as a mutation writes it. */
export interface NewDelivery {
  id: string;
  functionName: string;
  operation: string;
  /** JSON text: the parts of the call's body the event brings (`caller`, `event`). */
  payload: string;
}

/** Writes a mutation's events to the outbox (inside the mutation's transaction). */
export async function insertDeliveries(q: Queryable, appId: string, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await q.query(sql`
    INSERT INTO tessera.function_deliveries (id, app_id, function_name, operation, payload)
    SELECT i, ${appId}, f, o, p::json FROM unnest(${deliveries.map((d) => d.id)}::uuid[], ${deliveries.map((d) => d.functionName)}::text[],
                                                  ${deliveries.map((d) => d.operation)}::text[], ${deliveries.map((d) => d.payload)}::text[]) AS t(i, f, o, p)`);
}

export interface DeliveryRow {
  id: string;
  appId: string;
  functionName: string;
  operation: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

interface DeliveryRecord {
  id: string;
  app_id: string;
  function_name: string;
  operation: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

function deliveryOf(r: DeliveryRecord): DeliveryRow {
  return {
    id: r.id,
    appId: r.app_id,
    functionName: r.function_name,
    operation: r.operation,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  };
}

const SELECT_DELIVERIES = sql`
  SELECT id::text AS id, app_id, function_name, operation, status, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at
    FROM tessera.function_deliveries`;

/** A function's latest deliveries, newest first, of one status or any. */
export async function listDeliveries(q: Queryable, appId: string, functionName: string, first: number, status?: DeliveryStatus): Promise<DeliveryRow[]> {
  const only = status === undefined ? sql`` : sql` AND status = ${status}`;
  const { rows } = await q.query<DeliveryRecord>(sql`
    ${SELECT_DELIVERIES} WHERE app_id = ${appId} AND function_name = ${functionName}${only}
     ORDER BY created_at DESC, id LIMIT ${first}`);
  return rows.map(deliveryOf);
}

/** One delivery of the app; undefined when the app has none with that id. */
export async function findDelivery(q: Queryable, appId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRecord>(sql`${SELECT_DELIVERIES} WHERE app_id = ${appId} AND id = ${id}::uuid`);
  return rows[0] && deliveryOf(rows[0]);
}

/**
 * Makes a delivery due now, whatever its status, with a fresh retry window; its lease is
 * dropped (an instance still calling finds its answer fenced off). False when the app has no
 * delivery with that id.
 */
export async function redeliverDelivery(q: Queryable, appId: string, id: string): Promise<boolean> {
  const updated = await q.query(sql`
    UPDATE tessera.function_deliveries
       SET status = 'pending', next_attempt_at = now(), lease_until = NULL, redelivered_at = now(), delivered_at = NULL
     WHERE app_id = ${appId} AND id = ${id}::uuid`);
  return updated.rowCount > 0;
}

/** A delivery claimed by a worker, with what calling its function needs. */
export interface ClaimedDelivery {
  id: string;
  appId: string;
  functionName: string;
  operation: string;
  /** `{ caller, event }` as written. */
  payload: { caller: unknown; event: unknown };
  /** The attempt this claim is (1 for the first); it fences the settling update. */
  attempts: number;
  createdAt: Date;
  url: string;
  sealedSecret: string;
  headers: { name: string; value: string }[];
  timeoutMs: number;
}

interface ClaimedRecord {
  id: string;
  app_id: string;
  function_name: string;
  operation: string;
  payload: { caller: unknown; event: unknown };
  attempts: number;
  created_at: Date;
  url: string;
  secret_sealed: string;
  headers: { name: string; value: string }[];
  timeout_ms: number;
}

/**
 * Claims up to `limit` due deliveries of enabled functions: one short statement, rows locked
 * with SKIP LOCKED so instances never claim the same one, each leased for its function's
 * timeout plus `leaseMarginMs` (a worker that dies leaves a lease that runs out).
 */
export async function claimDeliveries(q: Queryable, limit: number, leaseMarginMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await q.query<ClaimedRecord>(sql`
    WITH due AS (
      SELECT d.id, f.url, f.secret_sealed, f.headers, f.timeout_ms
        FROM tessera.function_deliveries d
        JOIN tessera.functions f ON f.app_id = d.app_id AND f.name = d.function_name
       WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until <= now()) AND f.enabled
       ORDER BY d.next_attempt_at
       LIMIT ${limit}
         FOR UPDATE OF d SKIP LOCKED)
    UPDATE tessera.function_deliveries d
       SET attempts = d.attempts + 1, lease_until = now() + (due.timeout_ms + ${leaseMarginMs}::int) * interval '1 millisecond'
      FROM due
     WHERE d.id = due.id
    RETURNING d.id::text AS id, d.app_id, d.function_name, d.operation, d.payload, d.attempts, d.created_at,
              due.url, due.secret_sealed, due.headers, due.timeout_ms`);
  return rows.map((r) => ({
    id: r.id,
    appId: r.app_id,
    functionName: r.function_name,
    operation: r.operation,
    payload: r.payload,
    attempts: r.attempts,
    createdAt: r.created_at,
    url: r.url,
    sealedSecret: r.secret_sealed,
    headers: r.headers,
    timeoutMs: r.timeout_ms,
  }));
}

/** The claim a settling update must still hold: the delivery and the attempt it made. */
export interface DeliveryClaim {
  id: string;
  attempts: number;
}

/** Marks a claimed delivery delivered; false when the claim was lost (a redelivery, another instance). */
export async function markDelivered(q: Queryable, claim: DeliveryClaim, status: number): Promise<boolean> {
  const updated = await q.query(sql`
    UPDATE tessera.function_deliveries
       SET status = 'delivered', delivered_at = now(), lease_until = NULL, last_status = ${status}, last_error = NULL
     WHERE id = ${claim.id}::uuid AND attempts = ${claim.attempts} AND status = 'pending'`);
  return updated.rowCount > 0;
}

/**
 * Records a failed attempt: due again after `retryInMs` — never later than the end of the retry
 * window, so an attempt is made when it ends — or dead when the window (`deadAfterMs` from its
 * creation or redelivery) is over. Returns the status it is left in; undefined when the claim
 * was lost.
 */
export async function markFailed(
  q: Queryable,
  claim: DeliveryClaim,
  failure: { status: number | null; error: string },
  retryInMs: number,
  deadAfterMs: number,
): Promise<DeliveryStatus | undefined> {
  const windowEnd = sql`coalesce(redelivered_at, created_at) + ${deadAfterMs}::bigint * interval '1 millisecond'`;
  const { rows } = await q.query<{ status: DeliveryStatus }>(sql`
    UPDATE tessera.function_deliveries
       SET status = CASE WHEN now() >= ${windowEnd} THEN 'dead' ELSE 'pending' END,
           next_attempt_at = least(now() + ${retryInMs}::bigint * interval '1 millisecond', ${windowEnd}),
           lease_until = NULL, last_status = ${failure.status}, last_error = ${failure.error}
     WHERE id = ${claim.id}::uuid AND attempts = ${claim.attempts} AND status = 'pending'
    RETURNING status`);
  return rows[0]?.status;
}

/** Gives a claimed delivery back without counting the attempt (the worker stopped before it ended). */
export async function releaseDelivery(q: Queryable, claim: DeliveryClaim): Promise<void> {
  await q.query(sql`
    UPDATE tessera.function_deliveries SET lease_until = NULL, next_attempt_at = now(), attempts = attempts - 1
     WHERE id = ${claim.id}::uuid AND attempts = ${claim.attempts} AND status = 'pending'`);
}

/**
 * Housekeeping: marks dead the deliveries due but never attempted within their window (their
 * function disabled), and deletes delivered and dead ones older than `retentionMs`. Returns
 * how many it marked dead.
 */
export async function sweepDeliveries(q: Queryable, deadAfterMs: number, retentionMs: number): Promise<number> {
  const dead = await q.query(sql`
    UPDATE tessera.function_deliveries
       SET status = 'dead', lease_until = NULL, last_error = coalesce(last_error, 'not attempted within the retry window (the function was disabled)')
     WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until <= now())
       AND coalesce(redelivered_at, created_at) + ${deadAfterMs}::bigint * interval '1 millisecond' <= now()`);
  await q.query(sql`
    DELETE FROM tessera.function_deliveries
     WHERE status <> 'pending' AND created_at < now() - ${retentionMs}::bigint * interval '1 millisecond'`);
  return dead.rowCount;
}

/** Deliveries waiting (pending), across every app: the outbox's backlog. */
export async function pendingDeliveries(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM tessera.function_deliveries WHERE status = 'pending'`);
  return rows[0]?.n ?? 0;
}
