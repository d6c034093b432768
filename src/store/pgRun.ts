// Running one statement on a `pg` client: under its name when PostgreSQL keeps it prepared, or
// unnamed; and the answer as the store's result. Used by the pool's statements, transactions and
// the read lanes' callers alike.

import pg from 'pg';
import { NamedRun } from './pgNamed.js';
import { pgTypes } from './pgTypes.js';
import type { QueryResult } from './types.js';

/** An answer's rows and count (the command's, or the rows' when it reports none). */
export function toResult<R>(result: { rows: unknown[]; rowCount: number | null }): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
}

/**
 * Runs one statement: under its name when PostgreSQL keeps it prepared (pgNamed.ts: its answer's
 * columns described once per connection), otherwise unnamed through the driver's submittable
 * `Query` made from the text, not `client.query({ text, values })`: the driver copies a config
 * object property by property, descriptors included, on every call (1.6 µs here, as much as the
 * rest of sending a statement), and wraps its answer in two more promises.
 */
export function run<R>(client: pg.ClientBase, text: string, values: readonly unknown[], name: string | undefined): Promise<QueryResult<R>> {
  return new Promise((resolve, reject) => {
    if (name !== undefined) {
      client.query(
        new NamedRun(text, name, values, pgTypes, (err, result) => (err || !result ? reject(err) : resolve(toResult<R>(result)))) as unknown as pg.Submittable,
      );
      return;
    }
    client.query(new pg.Query(text, values as unknown[], (err: Error | undefined, result: pg.ResultBuilder) => (err ? reject(err) : resolve(toResult<R>(result)))));
  });
}
