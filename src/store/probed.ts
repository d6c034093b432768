// A store that tells probes of each statement and transaction it runs: when one starts (with
// its SQL text, compiled only if a probe asks for it) and when it ends, failed or not. The
// server's statement-time metrics and its tracing are probes. Statements inside a transaction
// are reported one by one, and the transaction as a whole once more (kind `transaction`).

import { compile } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import type { QueryResult, StatementOptions, Store, Transaction } from './types.js';

export type StatementKind = 'statement' | 'transaction';

/** What a probe does with one statement or transaction, once it has started. */
export interface ProbeRun {
  end(failed: boolean): void;
  /** Runs the transaction's body (and so its statements) in the probe's scope, e.g. a trace span's. */
  within?<T>(fn: () => Promise<T>): Promise<T>;
}

export interface StatementProbe {
  /** A statement or transaction starts; `text()` is its SQL (undefined for a transaction). */
  start(kind: StatementKind, text: () => string | undefined): ProbeRun;
}

async function probed<T>(probes: readonly StatementProbe[], kind: StatementKind, text: () => string | undefined, run: (within: <U>(fn: () => Promise<U>) => Promise<U>) => Promise<T>): Promise<T> {
  const runs = probes.map((p) => p.start(kind, text));
  const within = <U>(fn: () => Promise<U>): Promise<U> => runs.reduceRight<() => Promise<U>>((inner, r) => (r.within ? () => r.within!(inner) : inner), fn)();
  let failed = true;
  try {
    const result = await run(within);
    failed = false;
    return result;
  } finally {
    for (const r of runs) r.end(failed);
  }
}

export function withProbes(store: Store, probes: readonly StatementProbe[]): Store {
  if (probes.length === 0) return store;
  const textOf = (statement: SqlFragment) => () => compile(statement).text;
  const noText = () => undefined;
  const probedTransaction = (tx: Transaction): Transaction => ({
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: Pick<StatementOptions, 'recurring'>) => probed(probes, 'statement', textOf(statement), () => tx.query<R>(statement, options)),
    advisoryLock: (key) => tx.advisoryLock(key),
    notify: (channel, payload) => tx.notify(channel, payload),
  });
  return {
    kind: store.kind,
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: StatementOptions): Promise<QueryResult<R>> =>
      probed(probes, 'statement', textOf(statement), () => store.query<R>(statement, options)),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>, options?: StatementOptions): Promise<T> =>
      probed(probes, 'transaction', noText, (within) => within(() => store.transaction((tx) => fn(probedTransaction(tx)), options))),
    listen: (channel, handler, options) => store.listen(channel, handler, options),
    notify: (channel, payload) => store.notify(channel, payload),
    ping: () => store.ping(),
    connections: () => store.connections(),
    close: () => store.close(),
  };
}
