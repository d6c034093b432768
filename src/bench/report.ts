// Prints the data API benchmark's tables: throughput and latency side by side (the API, the
// direct-SQL server, the driver alone), then the CPU each part spent per operation, which says
// where an API request's time goes.

import type { CpuSpent } from './cpu.js';
import type { Comparison, Side } from './compare.js';

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

const LABEL = 36;

function cells(widths: readonly number[], values: readonly string[]): string {
  return values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' ');
}

/** A shape's result with the least API ÷ direct-server ratio issue 14 aims at for it. */
export interface Aimed extends Comparison {
  aim: number;
}

export function printThroughput(rows: readonly Aimed[]): void {
  const widths = [LABEL, 9, 7, 7, 10, 7, 7, 10, 6, 5, 10, 8];
  console.log(cells(widths, ['', 'API ops/s', 'p50', 'p95', 'SQL ops/s', 'p50', 'p95', 'API/SQL', 'aim', 'met', 'pg ops/s', 'API/pg']));
  const side = (s: Side) => [fmt(s.opsPerSec), fmt(s.p50, 2), fmt(s.p95, 2)];
  for (const r of rows) {
    const ratio = r.api.opsPerSec / r.direct.opsPerSec;
    console.log(
      cells(widths, [
        r.label,
        ...side(r.api),
        ...side(r.direct),
        fmt(ratio, 2),
        fmt(r.aim, 1),
        ratio >= r.aim ? 'yes' : 'no',
        fmt(r.driver.opsPerSec),
        fmt(r.api.opsPerSec / r.driver.opsPerSec, 2),
      ]),
    );
  }
}

/** Microseconds of CPU per operation. */
const perOp = (cpuSeconds: number, s: Side) => fmt((cpuSeconds / s.n) * 1e6);

/** Cores busy outside this process and the benchmark's backends: other load on the machine. */
const outside = (c: CpuSpent) => (c.machine - c.node - c.postgres) / c.seconds;

/**
 * Server-side cost ratio: what the direct server and PostgreSQL spend per request over what
 * Tessera's server and PostgreSQL spend. Leaving the load generator out, it is the throughput
 * ratio to expect when servers and database have cores of their own.
 */
function costRatio(r: Comparison): number {
  const api = (r.api.cpu.server + r.api.cpu.postgres) / r.api.n;
  const direct = (r.direct.cpu.server + r.direct.cpu.postgres) / r.direct.n;
  return direct / api;
}

export function printCpu(rows: readonly Comparison[]): void {
  const widths = [LABEL, 8, 8, 8, 8, 8, 8, 8, 8, 11, 15];
  console.log(cells(widths, ['CPU µs per operation', 'API:', '', '', 'SQL:', '', '', 'pg:', '', '', '']));
  console.log(cells(widths, ['', 'server', 'load gen', 'postgres', 'server', 'load gen', 'postgres', 'client', 'postgres', 'cost ratio', 'other load']));
  for (const r of rows) {
    const [a, d, p] = [r.api.cpu, r.direct.cpu, r.driver.cpu];
    console.log(
      cells(widths, [
        r.label,
        perOp(a.server, r.api),
        perOp(a.main, r.api),
        perOp(a.postgres, r.api),
        perOp(d.server, r.direct),
        perOp(d.main, r.direct),
        perOp(d.postgres, r.direct),
        perOp(p.main, r.driver),
        perOp(p.postgres, r.driver),
        fmt(costRatio(r), 2),
        [a, d, p].map((c) => fmt(outside(c), 2)).join('/'),
      ]),
    );
  }
}

/** Other load above this many cores disturbs the figures enough to say so. */
const DISTURBED_CORES = 0.25;

export function printDisturbance(rows: readonly Comparison[]): void {
  const worst = Math.max(...rows.flatMap((r) => [r.api.cpu, r.direct.cpu, r.driver.cpu]).map(outside));
  if (worst > DISTURBED_CORES) {
    console.log(`\nNote: up to ${fmt(worst, 2)} cores were busy outside the benchmark during a run; figures from a quiet machine are steadier.`);
  }
}
