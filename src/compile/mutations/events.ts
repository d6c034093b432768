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
}

/**
 * One notification: the app and its events, or the id of a stored body when the events did
 * not fit in a notification (`tessera.realtime_events`).
 */
export interface EventNotice {
  a: string;
  e?: [string, RowEventKind, string, string?][];
  r?: string;
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
   * every event tells its own mutation's result whenever it is delivered.
   */
  async capture(tx: Transaction, app: AppContext): Promise<void> {
    const byType = new Map<string, RowEvent[]>();
    for (const event of this.#events.values()) {
      if (event.kind === 'delete') continue;
      const list = byType.get(event.type);
      if (list) list.push(event);
      else byType.set(event.type, [event]);
    }
    for (const [typeName, events] of byType) {
      const z = ident('r');
      const { rows } = await tx.query<{ id: string; row: string }>(
        sql`SELECT ${z}.id::text AS id, ${rowJson(app, typeName, z)} AS row FROM ${app.table(typeName)} ${z} WHERE ${z}.id = ANY(${events.map((e) => e.id)}::uuid[])`,
      );
      const found = new Map(rows.map((r) => [r.id, r.row]));
      for (const event of events) {
        const row = found.get(event.id);
        if (row !== undefined) event.row = row;
      }
    }
  }

  /** Sends the notifications (call once the writes have committed). */
  async publish(store: Store, appId: string): Promise<void> {
    const events = this.events;
    if (events.length === 0) return;
    for (const body of noticeBodies(appId, events)) {
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
function noticeBodies(appId: string, events: readonly RowEvent[]): string[] {
  const bodies: string[] = [];
  let batch: NonNullable<EventNotice['e']> = [];
  let size = 0;
  const flush = () => {
    if (batch.length > 0) bodies.push(JSON.stringify({ a: appId, e: batch } satisfies EventNotice));
    batch = [];
    size = 0;
  };
  for (const event of events) {
    const item: [string, RowEventKind, string, string?] = event.row === undefined ? [event.type, event.kind, event.id] : [event.type, event.kind, event.id, event.row];
    const itemSize = Buffer.byteLength(JSON.stringify(item), 'utf8') + 1;
    if (size + itemSize > MAX_NOTICE_BYTES - 100) flush();
    batch.push(item);
    size += itemSize;
  }
  flush();
  return bodies;
}
