// EXPLAIN (ANALYZE, BUFFERS) of a benchmark statement, cut down to what shows index use and
// cost: the scan nodes, the top node's buffers, planning, JIT and execution time; as planned
// for its values, or as the generic plan a prepared statement may settle on.

import type pg from 'pg';
import type { Statement } from './dataShapes.js';

/** The lines of the plan worth printing, indented as in the full plan. */
function summarise(result: pg.QueryResult<{ 'QUERY PLAN': string }>): string[] {
  const lines = result.rows.map((r) => r['QUERY PLAN']);
  const topBuffers = lines.find((line) => line.trim().startsWith('Buffers:'));
  // JIT's timing counts in the execution time, and a plan costed high enough gets it.
  const kept = lines.filter((line) => /Scan|Limit|Sort|Planning Time|Execution Time|^\s*JIT:|^\s*Timing:/.test(line) && !/Sort (Key|Method)|Presorted Key/.test(line));
  return [...(topBuffers ? [`whole statement: ${topBuffers.trim()}`] : []), ...kept.map((line) => line.replace(/\s+\(cost=[^)]*\)/, ''))];
}

export async function explainSummary(pool: pg.Pool, statement: Statement): Promise<string[]> {
  return summarise(await pool.query({ text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, values: statement.values }));
}

/** A bound value as a literal of its parameter's type, for EXECUTE (which takes no parameters). */
function literalOf(client: pg.PoolClient, value: unknown, type: string): string {
  if (value === null || value === undefined) return `NULL::${type}`;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `${client.escapeLiteral(String(value))}::${type}`;
  throw new Error(`no literal for a ${typeof value} parameter`);
}

/** Statements explained under a generic plan so far, which names each one anew. */
let explained = 0;

/**
 * The summary of the statement prepared and run under a forced generic plan: the plan a named
 * prepared statement may settle on, which must keep the indexes its custom plans use.
 */
export async function explainGenericSummary(pool: pg.Pool, statement: Statement): Promise<string[]> {
  const client = await pool.connect();
  // A name once used is never reused: `pg` remembers it for the connection even once deallocated.
  explained += 1;
  const name = `tessera_bench_generic_${explained}`;
  try {
    await client.query({ name, text: statement.text, values: statement.values });
    const types = (await client.query<{ t: string[] }>({ text: 'SELECT parameter_types::text[] AS t FROM pg_prepared_statements WHERE name = $1', values: [name] })).rows[0]?.t ?? [];
    const args = statement.values.map((v, i) => literalOf(client, v, types[i] ?? 'text'));
    await client.query('SET plan_cache_mode = force_generic_plan');
    return summarise(await client.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${name}${args.length > 0 ? `(${args.join(', ')})` : ''}`));
  } finally {
    await client.query(`RESET plan_cache_mode; DEALLOCATE ${name}`).catch(() => undefined);
    client.release();
  }
}
