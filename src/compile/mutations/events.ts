// What a mutation's transaction changed, told to subscribers. Each write records an event
// (type, kind, row id; a deleted row's last state as JSON); once the transaction has committed
// they are published with NOTIFY on one channel, to every instance listening on the database.
//
// After the commit, not inside the transaction: PostgreSQL serialises the commits of
// transactions that NOTIFY (a global lock held through the commit's flush), which cut
// concurrent INSERT throughput from ≈6,500 to ≈1,100–2,800 per second here (pgbench, 16
// clients); a NOTIFY on its own after the commit writes no WAL and holds the lock briefly
// (≈4,300–5,700 per second). The price: a process that dies between the commit and the
// notification loses those events (the writes themselves are committed).
//
// Each notification carries its transaction's commit stamp: its own transaction id and the
// snapshot it read in (see CommitStamp), from which a subscription's rules count the grants
// (links, roles) and the relation columns of the rows they cross as they stood when it
// committed, however late the event is delivered.

import { ident, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { Store, Transaction } from '../../store/index.js';
import type { AppContext } from '../context.js';
import type { CompileState } from '../state.js';

/** The notification channel of row events, shared by every app of a database. */
export const EVENTS_CHANNEL = 'tessera_events';

export type RowEventKind = 'create' | 'update' | 'delete' | 'login';

export interface RowEvent {
  type: string;
  kind: RowEventKind;
  /** The row's uuid. */
  id: string;
  /**
   * The row as the mutation left it (as it was, for a delete): JSON of the table row without
   * its write-only columns (no password hash ever travels in a notification).
   */
  row?: string;
  /** When its transaction committed (absent from an older server's notifications). */
  committed?: CommitStamp | undefined;
}

/**
 * Where a transaction's writes stand among everyone else's: its own transaction id and the
 * snapshot it read in (`pg_current_xact_id()`, `pg_current_snapshot()` as text). A row version
 * made by another transaction that was running at that snapshot or began after it (its `xmin`),
 * or a row linked by one (its link time), is taken as made after the commit: that is how a
 * subscription's rules tell the grants and links that stood when the event committed from those
 * made since (compile/subscription.ts).
 */
export interface CommitStamp {
  own: string;
  snapshot: string;
}

/** The stamp's columns, read inside the transaction (aliased `own` and `snapshot`). */
export const COMMIT_STAMP = sql`pg_current_xact_id()::text AS ${ident('own')}, pg_current_snapshot()::text AS ${ident('snapshot')}`;

/**
 * One notification: the app and its events, or the id of a stored body when the events did
 * not fit in a notification (`tessera.realtime_events`); and the commit stamp of the
 * transaction that made them (`[own, snapshot]`; absent from an older server's).
 */
export interface EventNotice {
  a: string;
  e?: [string, RowEventKind, string, string?][];
  r?: string;
  c?: [string, string];
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; this leaves room to spare. */
export const MAX_NOTICE_BYTES = 7_000;

/** How long a stored event body is kept for listeners to read it. */
const STORED_BODY_TTL = sql`interval '10 minutes'`;

/**
 * The events of one transaction, merged per row in the order rows were first touched: a
 * create then updates is a create; anything then a delete is a delete (a row created and
 * deleted in one transaction is no event at all); repeated updates are one update.
 */
export class RowEvents {
  readonly #events = new Map<string, RowEvent>();
  #stamp: CommitStamp | undefined;

  /** Records where the transaction stands (read inside it, from COMMIT_STAMP's columns). */
  stamp(stamp: CommitStamp): void {
    this.#stamp = stamp;
  }

  record(event: RowEvent): void {
    const key = `${event.type}\u0000${event.id}`;
    const earlier = this.#events.get(key);
    if (!earlier) {
      this.#events.set(key, event);
      return;
    }
    if (event.kind === 'delete') {
      if (earlier.kind === 'create') this.#events.delete(key);
      else this.#events.set(key, event);
    }
    // An update or login after a create, update or login changes nothing to tell.
  }

  get events(): RowEvent[] {
    return [...this.#events.values()];
  }

  /**
   * Reads, inside the transaction, the state each created or updated row is left in, so that
   * every event tells its own mutation's result whenever it is delivered, and the
   * transaction's commit stamp (with the first type's rows, or on its own).
   */
  async capture(tx: Transaction, app: AppContext): Promise<void> {
    if (this.#events.size === 0) return;
    const byType = new Map<string, RowEvent[]>();
    for (const event of this.#events.values()) {
      if (event.kind === 'delete') continue;
      const list = byType.get(event.type);
      if (list) list.push(event);
      else byType.set(event.type, [event]);
    }
    for (const [typeName, events] of byType) {
      const z = ident('r');
      const { rows } = await tx.query<{ id: string; row: string } & CommitStamp>(
        sql`SELECT ${z}.id::text AS id, ${rowJson(app, typeName, z)} AS row, ${COMMIT_STAMP} FROM ${app.table(typeName)} ${z} WHERE ${z}.id = ANY(${events.map((e) => e.id)}::uuid[])`,
      );
      const found = new Map(rows.map((r) => [r.id, r.row]));
      for (const event of events) {
        const row = found.get(event.id);
        if (row !== undefined) event.row = row;
      }
      if (rows[0]) this.#stamp ??= { own: rows[0].own, snapshot: rows[0].snapshot };
    }
    if (!this.#stamp) {
      const { rows } = await tx.query<CommitStamp>(sql`SELECT ${COMMIT_STAMP}`);
      if (rows[0]) this.stamp(rows[0]);
    }
  }

  /** Sends the notifications (call once the writes have committed). */
  async publish(store: Store, appId: string): Promise<void> {
    const events = this.events;
    if (events.length === 0) return;
    for (const body of noticeBodies(appId, events, this.#stamp)) {
      if (Buffer.byteLength(body, 'utf8') <= MAX_NOTICE_BYTES) {
        await store.notify(EVENTS_CHANNEL, body);
        continue;
      }
      // Too large to notify (a big deleted row): stored, and the notice names it.
      await store.transaction(async (tx) => {
        const stored = await tx.query<{ id: string }>(sql`INSERT INTO tessera.realtime_events (payload) VALUES (${body}) RETURNING id::text AS id`);
        await tx.query(sql`DELETE FROM tessera.realtime_events WHERE created_at < now() - ${STORED_BODY_TTL}`);
        const notice: EventNotice = { a: appId, r: (stored.rows[0] as { id: string }).id };
        await tx.notify(EVENTS_CHANNEL, JSON.stringify(notice));
      });
    }
  }
}

/** A row of `typeName` aliased `z` as JSON text, without its write-only columns. */
export function rowJson(app: AppContext, typeName: string, z: SqlFragment): SqlFragment {
  const hidden = app.type(typeName).fields.filter((f) => f.kind === 'value' && f.writeOnly).map((f) => (f as { column: string }).column);
  return hidden.length === 0 ? sql`row_to_json(${z})::text` : sql`(to_jsonb(${z}) - ${hidden}::text[])::text`;
}

/** The events as notification bodies, as many per body as fit (a lone large event may not). */
function noticeBodies(appId: string, events: readonly RowEvent[], stamp: CommitStamp | undefined): string[] {
  const bodies: string[] = [];
  let batch: NonNullable<EventNotice['e']> = [];
  let size = 0;
  const committed = stamp ? { c: [stamp.own, stamp.snapshot] satisfies [string, string] } : {};
  // Room for the app id, the keys and the stamp (whose snapshot lists the transactions then running).
  const room = MAX_NOTICE_BYTES - 100 - Buffer.byteLength(JSON.stringify(committed), 'utf8');
  const flush = () => {
    if (batch.length > 0) bodies.push(JSON.stringify({ a: appId, e: batch, ...committed } satisfies EventNotice));
    batch = [];
    size = 0;
  };
  for (const event of events) {
    const item: [string, RowEventKind, string, string?] = event.row === undefined ? [event.type, event.kind, event.id] : [event.type, event.kind, event.id, event.row];
    const itemSize = Buffer.byteLength(JSON.stringify(item), 'utf8') + 1;
    if (size + itemSize > room) flush();
    batch.push(item);
    size += itemSize;
  }
  flush();
  return bodies;
}
