// A recurring statement run under its name on a `pg` connection, without asking PostgreSQL to
// describe its answer every time. The driver's `Query` sends Describe with every Bind and turns
// the RowDescription that comes back into new field objects and parsers for every run; a
// prepared statement's answer keeps its columns for as long as it is prepared (PostgreSQL
// refuses to run it once they would change: "cached plan must not change result type"), so
// the columns are described on the statement's first run on a connection and kept with the
// connection after that. The run is a `pg` submittable (as pg-cursor's are): the client queues
// it and hands it the protocol's messages.

import { createRequire } from 'node:module';
import pg from 'pg';
import type { CustomTypesConfig } from 'pg';

/** How an answer's columns are read: their names, and a parser for each column's text. */
export interface Columns {
  names: readonly string[];
  parsers: readonly ((text: string) => unknown)[];
}

/** What a run uses of `pg`'s connection: the extended protocol's messages, and its record of the names parsed on it. */
interface Connection {
  stream: { cork?: () => void; uncork?: () => void };
  /** Names whose Parse the server confirmed, and names sent for parsing and not yet refused (kept by the client). */
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements?: Record<string, string | undefined>;
  parse(message: { text: string; name: string; types: never[] }): void;
  bind(message: { portal: string; statement: string; values: readonly unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

interface RowDescription {
  fields: readonly { name: string; dataTypeID: number; format?: string }[];
}

interface DataRow {
  fields: readonly (string | null)[];
}

interface CommandComplete {
  text: string;
}

export interface NamedResult {
  rows: Record<string, unknown>[];
  /** The count the command reports (rows inserted, updated, deleted or read), or null. */
  rowCount: number | null;
}

/** The columns of each statement name on each connection, learnt on the name's first run there. */
const described = new WeakMap<object, Map<string, Columns>>();

/**
 * The columns of the statement `name` on the client's connection, when a run there has learnt
 * them and the connection holds the statement parsed; undefined otherwise.
 */
export function preparedColumns(client: pg.ClientBase, name: string): Columns | undefined {
  const connection = (client as unknown as { connection: Connection }).connection;
  if (connection.parsedStatements[name] === undefined) return undefined;
  return described.get(connection)?.get(name);
}

/** A command tag's count: "INSERT 0 3", "UPDATE 2", "SELECT 5" (as `pg` reads it). */
const COMMAND_TAG = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

/** The `pg` value conversion (dates, buffers, arrays, objects as JSON), as `pg`'s own Query binds. */
export const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

/** A data row's fields read by their columns; throws what a column's parser throws. */
export function readRow(columns: Columns, fields: readonly (string | null)[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const text = fields[i];
    const name = columns.names[i] as string;
    const value = text === null || text === undefined ? null : (columns.parsers[i] as (text: string) => unknown)(text);
    // A column named __proto__ is a column like any other, not the row's prototype.
    if (name === '__proto__') Object.defineProperty(row, name, { value, enumerable: true, writable: true, configurable: true });
    else row[name] = value;
  }
  return row;
}

/** The count a command tag reports ("INSERT 0 3", "UPDATE 2", "SELECT 5"), as `pg` reads it; undefined when it has none. */
export function commandCount(tag: string): number | undefined {
  const match = COMMAND_TAG.exec(tag);
  const count = match?.[3] ?? match?.[2];
  return count === undefined ? undefined : Number.parseInt(count, 10);
}

export class NamedRun {
  /** Read by the client when the server confirms a Parse. */
  readonly name: string;
  readonly text: string;
  /** Called once, with the error or with the answer. */
  callback: ((err: Error | undefined, result?: NamedResult) => void) | undefined;
  readonly #values: readonly unknown[];
  readonly #types: CustomTypesConfig;
  #columns: Columns | undefined;
  /** The connection's record of columns, when this run asked PostgreSQL for them. */
  #learning: Map<string, Columns> | undefined;
  #rows: Record<string, unknown>[] = [];
  #rowCount: number | null = null;
  /** A column that could not be read: the run fails with it once the server is done. */
  #unreadable: Error | undefined;

  constructor(text: string, name: string, values: readonly unknown[], types: CustomTypesConfig, callback: (err: Error | undefined, result?: NamedResult) => void) {
    this.text = text;
    this.name = name;
    this.#values = values;
    this.#types = types;
    this.callback = callback;
  }

  /** Sends the run; an error returned (a value that cannot be sent) fails it before anything is sent. */
  submit(connection: Connection): Error | undefined {
    let values: unknown[];
    try {
      values = this.#values.map(prepareValue);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    let known = described.get(connection);
    if (known === undefined) {
      known = new Map();
      described.set(connection, known);
    }
    const parsed = connection.parsedStatements[this.name] !== undefined || connection.submittedNamedStatements?.[this.name] !== undefined;
    // Columns learnt before describe the statement as it is parsed now; a name parsed again
    // (after a failed parse) is described again.
    this.#columns = parsed ? known.get(this.name) : undefined;
    connection.stream.cork?.();
    try {
      if (!parsed) {
        connection.parse({ text: this.text, name: this.name, types: [] });
        if (connection.submittedNamedStatements) connection.submittedNamedStatements[this.name] = this.text;
      }
      connection.bind({ portal: '', statement: this.name, values });
      if (this.#columns === undefined) {
        this.#learning = known;
        connection.describe({ type: 'P', name: '' });
      }
      connection.execute({ portal: '', rows: 0 });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return undefined;
  }

  handleRowDescription(message: RowDescription): void {
    const columns: Columns = {
      names: message.fields.map((f) => f.name),
      parsers: message.fields.map((f) => this.#types.getTypeParser(f.dataTypeID, 'text') as (text: string) => unknown),
    };
    this.#columns = columns;
    this.#learning?.set(this.name, columns);
  }

  handleDataRow(message: DataRow): void {
    const columns = this.#columns;
    if (this.#unreadable) return;
    if (columns === undefined) {
      this.#unreadable = new Error(`${this.name}: a row came before its columns were described`);
      return;
    }
    try {
      this.#rows.push(readRow(columns, message.fields));
    } catch (err) {
      this.#unreadable = err instanceof Error ? err : new Error(String(err));
    }
  }

  handleCommandComplete(message: CommandComplete): void {
    const count = commandCount(message.text);
    if (count !== undefined) this.#rowCount = count;
  }

  handleReadyForQuery(): void {
    if (this.#unreadable) return this.#finish(this.#unreadable);
    this.#finish(undefined, { rows: this.#rows, rowCount: this.#rowCount });
  }

  /**
   * A failed run keeps the columns learnt: a statement whose columns would change fails on
   * every run, and one parsed again after a failed parse is described again (submit).
   */
  handleError(err: Error): void {
    this.#finish(err);
  }

  /** Nothing to do: the Sync sent with the Execute ends the run. */
  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}

  #finish(err: Error | undefined, result?: NamedResult): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(err, result);
  }
}

// A connection in `pg`'s pipeline mode (lanes.ts) takes only the driver's own `Query`, refusing
// other submittables because some (pg-cursor's) keep a portal open across round trips. A run
// binds, executes and syncs in one go, as `Query` does, so it is made to pass as one; every
// method the client calls on it is its own.
Object.setPrototypeOf(NamedRun.prototype, pg.Query.prototype);
