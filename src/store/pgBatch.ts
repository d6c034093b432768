// Several standalone writes sent together on one `pg` connection and committed together: each
// statement, already prepared on the connection with its answer's columns known (pgNamed.ts),
// bound and executed in turn, one Sync after the last, so that PostgreSQL runs them in one
// implicit transaction and commits them once. Any failure fails the whole batch (PostgreSQL
// skips what follows to the Sync and rolls back what came before), and says which statement the
// error came with; the caller then runs each statement again on its own, so that each gets its
// own outcome.

import pg from 'pg';
import { commandCount, prepareValue, readRow } from './pgNamed.js';
import type { Columns, NamedResult } from './pgNamed.js';

interface Connection {
  stream: { cork?: () => void; uncork?: () => void };
  bind(message: { portal: string; statement: string; values: readonly unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/** One statement of a batch: its name on the connection, the columns of its answer, its values. */
export interface BatchItem {
  name: string;
  columns: Columns;
  values: readonly unknown[];
}

export class BatchRun {
  /** No name of its own: nothing is parsed. */
  readonly name = '';
  readonly text = '';
  /** Called once: with the error and the index of the statement it came with, or with each statement's answer. */
  callback: ((err: Error | undefined, results?: NamedResult[], failedAt?: number) => void) | undefined;
  readonly #items: readonly BatchItem[];
  readonly #results: NamedResult[];
  #current = 0;
  #unreadable: Error | undefined;

  constructor(items: readonly BatchItem[], callback: (err: Error | undefined, results?: NamedResult[], failedAt?: number) => void) {
    this.#items = items;
    this.#results = items.map(() => ({ rows: [], rowCount: null }));
    this.callback = callback;
  }

  submit(connection: Connection): Error | undefined {
    let values: unknown[][];
    try {
      values = this.#items.map((item) => item.values.map(prepareValue));
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    connection.stream.cork?.();
    try {
      for (let i = 0; i < this.#items.length; i++) {
        connection.bind({ portal: '', statement: (this.#items[i] as BatchItem).name, values: values[i] as unknown[] });
        connection.execute({ portal: '', rows: 0 });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return undefined;
  }

  handleRowDescription(): void {
    this.#unreadable ??= new Error('a batch statement was described');
  }

  handleDataRow(message: { fields: readonly (string | null)[] }): void {
    if (this.#unreadable) return;
    const item = this.#items[this.#current];
    if (item === undefined) {
      this.#unreadable = new Error('a row came after the last statement of a batch');
      return;
    }
    try {
      (this.#results[this.#current] as NamedResult).rows.push(readRow(item.columns, message.fields));
    } catch (err) {
      this.#unreadable = err instanceof Error ? err : new Error(String(err));
    }
  }

  handleCommandComplete(message: { text: string }): void {
    const count = commandCount(message.text);
    const result = this.#results[this.#current];
    if (result && count !== undefined) result.rowCount = count;
    this.#current += 1;
  }

  handleReadyForQuery(): void {
    if (this.#unreadable) return this.#finish(this.#unreadable);
    this.#finish(undefined, this.#results);
  }

  handleError(err: Error): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(err, undefined, this.#current);
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}

  #finish(err: Error | undefined, results?: NamedResult[]): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(err, results);
  }
}

Object.setPrototypeOf(BatchRun.prototype, pg.Query.prototype);
