// A store that reports how long each statement and each transaction took, and whether it
// failed: what the server's statement-time metrics read. Statements inside a transaction are
// reported one by one, and the transaction as a whole once more (kind `transaction`).

import type { SqlFragment } from '../sql/index.js';
import type { QueryResult, StatementOptions, Store, Transaction } from './types.js';

export type TimedKind = 'statement' | 'transaction';

/** Told of every statement and transaction that ended: its kind, seconds taken, and whether it failed. */
export type TimingObserver = (kind: TimedKind, seconds: number, failed: boolean) => void;

async function timed<T>(kind: TimedKind, observe: TimingObserver, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let failed = true;
  try {
    const result = await run();
    failed = false;
    return result;
  } finally {
    observe(kind, (performance.now() - started) / 1000, failed);
  }
}

export function withTiming(store: Store, observe: TimingObserver): Store {
  const timedTransaction = (tx: Transaction): Transaction => ({
    query: <R = Record<string, unknown>>(statement: SqlFragment) => timed('statement', observe, () => tx.query<R>(statement)),
    advisoryLock: (key) => tx.advisoryLock(key),
    notify: (channel, payload) => tx.notify(channel, payload),
  });
  return {
    kind: store.kind,
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: StatementOptions): Promise<QueryResult<R>> =>
      timed('statement', observe, () => store.query<R>(statement, options)),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>, options?: StatementOptions): Promise<T> =>
      timed('transaction', observe, () => store.transaction((tx) => fn(timedTransaction(tx)), options)),
    listen: (channel, handler) => store.listen(channel, handler),
    notify: (channel, payload) => store.notify(channel, payload),
    ping: () => store.ping(),
    connections: () => store.connections(),
    close: () => store.close(),
  };
}
