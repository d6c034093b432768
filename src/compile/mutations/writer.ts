// The writer a mutation's writes go through: its transaction, whose rules they are checked
// against, the accounts stage's ports, and the row events it records; and the transaction that
// publishes those events once it has committed.

import type { AccountPorts } from '../../accounts/index.js';
import type { QueryResult, StatementOptions, Store, Transaction } from '../../store/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { AppContext } from '../context.js';
import type { CompileState } from '../state.js';
import { ROLE } from '../../model/index.js';
import { RowEvents } from './events.js';
import type { BeforeHooks } from './hooks.js';
import type { ResolverCalls } from '../resolvers/ports.js';
import { Outbox } from './outbox.js';
import type { FunctionPorts, OutboxCaller } from './outbox.js';

/** Who hears a mutation's row events. */
export interface EventPorts {
  /** Row events of a committed mutation could not be published (subscribers miss them). */
  lost?(err: unknown): void;
  /** Whether anyone may hear the app's row events; when false a mutation publishes none. A
   * boolean when it is known at once (the usual case), a promise when it must be read. */
  wanted?: (() => boolean | Promise<boolean>) | undefined;
}

/** Whether anyone may hear the app's row events (true when the ports cannot tell). */
export function eventsWanted(events: EventPorts): boolean | Promise<boolean> {
  return events.wanted ? events.wanted() : true;
}

/** What mutations need from the rest of the server, bound to one app and caller. */
export interface MutationPorts {
  accounts: AccountPorts;
  events: EventPorts;
  /** The app's BEFORE functions (absent: none is attached to any of its mutations). */
  hooks?: BeforeHooks | undefined;
  /** The app's EVENT functions (absent: the app's mutations write no outbox rows). */
  functions?: FunctionPorts | undefined;
  /** The app's RESOLVER functions, which its custom Query and Mutation fields call (absent: the
   * server calls no functions, and such a field fails with FUNCTION_FAILED). */
  resolvers?: ResolverCalls | undefined;
  /** Told when a committed mutation queued file bytes for removal (to remove them soon). */
  blobsRemoved?: (() => void) | undefined;
}

export interface Writer {
  app: AppContext;
  tx: Transaction;
  accounts: AccountPorts;
  /** The caller's compilation state: whose rules the writes are checked against. */
  s: CompileState;
  /** What the transaction changed, for subscribers (published as it commits). */
  events: RowEvents;
  /** Events for the app's EVENT functions, written to the outbox before it commits. */
  outbox: Outbox;
  /** Set when the transaction queued file bytes for removal. */
  blobsRemoved?: boolean;
}

/**
 * The transaction with every statement marked recurring: a mutation's statements are built from
 * its document and the shape of its input, every value bound, so each shape is one text that
 * PostgreSQL may keep prepared.
 */
function recurring(tx: Transaction): Transaction {
  return {
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: Pick<StatementOptions, 'recurring'>): Promise<QueryResult<R>> => tx.query<R>(statement, { recurring: true, ...options }),
    advisoryLock: (key) => tx.advisoryLock(key),
    notify: (channel, payload) => tx.notify(channel, payload),
  };
}

/**
 * Runs one mutation's writes in a transaction and, once it has committed, publishes its row
 * events — unless `ports.events.wanted` says nobody subscribes to the app. `s` is whose rules
 * the writes are checked against. A failure to publish does not fail the mutation, whose
 * writes are committed: it goes to `ports.events.lost`. The outbox rows of the app's EVENT
 * functions are written in the transaction itself (`caller` is who they say made the change).
 */
export async function writeTransaction<T>(store: Store, s: CompileState, ports: MutationPorts, fn: (w: Writer) => Promise<T>, caller?: OutboxCaller): Promise<T> {
  const events = new RowEvents();
  const outbox = new Outbox(ports.functions, caller);
  // Asked before the transaction (the embedded store runs one statement at a time, and the
  // answer is usually cached): a subscription that opens while the mutation runs may miss it.
  const asked = eventsWanted(ports.events);
  const wanted = typeof asked === 'boolean' ? asked : await asked;
  let blobsRemoved = false;
  let rolesTouched = false;
  const result = await store.transaction(async (opened) => {
    const tx = recurring(opened);
    const writer: Writer = { app: s.app, tx, accounts: ports.accounts, s, events, outbox };
    const answer = await fn(writer);
    // Roles created, renamed or deleted, members enrolled or removed: who is an app admin may have changed.
    rolesTouched = events.events.some((e) => e.type === ROLE);
    if (rolesTouched) await ports.accounts.rolesChanging?.(tx);
    if (wanted) await events.capture(tx, s.app);
    await outbox.write(tx, s.app);
    blobsRemoved = writer.blobsRemoved === true;
    return answer;
  });
  outbox.committed();
  if (rolesTouched) ports.accounts.rolesChanged?.();
  if (blobsRemoved) ports.blobsRemoved?.();
  if (wanted) await events.publish(store, s.app.app.id).catch((err: unknown) => ports.events.lost?.(err));
  return result;
}
