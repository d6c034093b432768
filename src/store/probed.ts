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

/** A whole transaction, told to the probes, its body run in each probe's scope (a trace span's). */
async function probedTransaction<T>(probes: readonly StatementProbe[], body: () => Promise<T>): Promise<T> {
  const runs = probes.map((p) => p.start('transaction', () => undefined));
  const scoped = runs.reduceRight<() => Promise<T>>((inner, r) => (r.within ? () => r.within!(inner) : inner), body);
  let failed = true;
  try {
    const result = await scoped();
    failed = false;
    return result;
  } finally {
    for (const r of runs) r.end(failed);
  }
}

/**
 * One statement, told to the probes: no `async` frame and no scope, which a statement has no
 * use for (a data API read passes here on every request).
 */
function probedStatement<T>(probes: readonly StatementProbe[], statement: SqlFragment, run: () => Promise<T>): Promise<T> {
  const text = () => compile(statement).text;
  const runs: ProbeRun[] = [];
  for (const probe of probes) runs.push(probe.start('statement', text));
  const end = (failed: boolean) => {
    for (const r of runs) r.end(failed);
  };
  return run().then(
    (result) => {
      end(false);
      return result;
    },
    (err: unknown) => {
      end(true);
      throw err;
    },
  );
}

export function withProbes(store: Store, probes: readonly StatementProbe[]): Store {
  if (probes.length === 0) return store;
  const probedTx = (tx: Transaction): Transaction => ({
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: Pick<StatementOptions, 'recurring'>) => probedStatement(probes, statement, () => tx.query<R>(statement, options)),
    advisoryLock: (key) => tx.advisoryLock(key),
    notify: (channel, payload) => tx.notify(channel, payload),
  });
  return {
    kind: store.kind,
    query: <R = Record<string, unknown>>(statement: SqlFragment, options?: StatementOptions): Promise<QueryResult<R>> =>
      probedStatement(probes, statement, () => store.query<R>(statement, options)),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>, options?: StatementOptions): Promise<T> =>
      probedTransaction(probes, () => store.transaction((tx) => fn(probedTx(tx)), options)),
    listen: (channel, handler, options) => store.listen(channel, handler, options),
    notify: (channel, payload) => store.notify(channel, payload),
    ping: () => store.ping(),
    connections: () => store.connections(),
    close: () => store.close(),
  };
}
