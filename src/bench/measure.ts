// Timing helpers shared by the benchmark sections: a sequential loop for single operations, a
// fixed-concurrency loop for request traffic, and the percentiles both report.

export interface Measured {
  /** Operations completed in the measured window. */
  n: number;
  opsPerSec: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p95: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] ?? Number.NaN;
}

function summarise(times: number[], totalMs: number): Measured {
  times.sort((a, b) => a - b);
  return { n: times.length, opsPerSec: (times.length / totalMs) * 1000, p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** Runs `fn` repeatedly, one call at a time, for about `ms` or `max` calls. */
export async function measure(fn: () => unknown, { ms = 2000, max = 100_000 } = {}): Promise<Measured> {
  const times: number[] = [];
  const start = performance.now();
  while (performance.now() - start < ms && times.length < max) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return summarise(times, performance.now() - start);
}

export interface LoadOptions {
  /** Operations in flight at any moment. */
  concurrency: number;
  /** Length of the measured window. */
  ms: number;
}

async function workers(concurrency: number, until: number, op: (i: number) => Promise<unknown>, times?: number[]): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const t = performance.now();
      await op(next++);
      times?.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}

/** A window of load, unsummarised: every operation's latency (ms) and the window's length (ms). */
export interface Timed {
  times: number[];
  ms: number;
}

/**
 * Keeps `concurrency` calls of `op(i)` in flight (i counts up) for `ms`, and keeps each call's
 * latency. A failing call fails the run: a benchmark that errors measures nothing.
 */
export async function loadTimes(op: (i: number) => Promise<unknown>, options: LoadOptions): Promise<Timed> {
  const times: number[] = [];
  const start = performance.now();
  await workers(options.concurrency, start + options.ms, op, times);
  return { times, ms: performance.now() - start };
}

/** Several windows of load as one: their operations and their lengths added up. */
export function summariseWindows(windows: readonly Timed[]): Measured {
  return summarise(
    windows.flatMap((w) => w.times),
    windows.reduce((sum, w) => sum + w.ms, 0),
  );
}

/** `loadTimes`, summarised. */
export async function load(op: (i: number) => Promise<unknown>, options: LoadOptions): Promise<Measured> {
  return summariseWindows([await loadTimes(op, options)]);
}

export function row(name: string, r: Measured): void {
  console.log(
    `${name.padEnd(44)} ${r.opsPerSec.toFixed(1).padStart(10)} ops/s   p50 ${r.p50.toFixed(2).padStart(8)} ms   p95 ${r.p95.toFixed(2).padStart(8)} ms   (n=${r.n})`,
  );
}
