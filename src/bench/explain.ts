// EXPLAIN (ANALYZE, BUFFERS) of a benchmark statement, cut down to what shows index use and
// cost: the scan nodes, the top node's buffers, planning and execution time.

import type pg from 'pg';
import type { Statement } from './dataShapes.js';

/** The lines of the plan worth printing, indented as in the full plan. */
export async function explainSummary(pool: pg.Pool, statement: Statement): Promise<string[]> {
  const result = await pool.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, values: statement.values });
  const lines = result.rows.map((r) => r['QUERY PLAN']);
  const topBuffers = lines.find((line) => line.trim().startsWith('Buffers:'));
  const kept = lines.filter((line) => /Scan|Limit|Sort|Planning Time|Execution Time/.test(line) && !/Sort (Key|Method)|Presorted Key/.test(line));
  return [...(topBuffers ? [`whole statement: ${topBuffers.trim()}`] : []), ...kept.map((line) => line.replace(/\s+\(cost=[^)]*\)/, ''))];
}
