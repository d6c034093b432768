// What the traffic page says about a window of minutes — totals, error rate, the slowest and the
// busiest minute — and how it writes times, durations and shares. No React here, so the charts,
// the summary and the table all read the same figures.

import type { TrafficMinute } from '../api/traffic';

export interface Peak {
  value: number;
  /** The minute's start (ISO 8601). */
  minute: string;
}

export interface TrafficSummary {
  operations: number;
  errors: number;
  failures: number;
  /** errors / operations; null without operations. */
  errorRate: number | null;
  /** The highest p95 of a minute in the window; null without operations. */
  worstP95: Peak | null;
  busiest: Peak | null;
  /** Minutes with at least one operation. */
  activeMinutes: number;
}

export function summarize(minutes: readonly TrafficMinute[]): TrafficSummary {
  let operations = 0;
  let errors = 0;
  let failures = 0;
  let worstP95: Peak | null = null;
  let busiest: Peak | null = null;
  let activeMinutes = 0;
  for (const m of minutes) {
    operations += m.operations;
    errors += m.errors;
    failures += m.failures;
    if (m.operations > 0) activeMinutes += 1;
    if (m.p95Ms !== null && (worstP95 === null || m.p95Ms > worstP95.value)) worstP95 = { value: m.p95Ms, minute: m.minute };
    if (m.operations > 0 && (busiest === null || m.operations > busiest.value)) busiest = { value: m.operations, minute: m.minute };
  }
  return { operations, errors, failures, errorRate: operations > 0 ? errors / operations : null, worstP95, busiest, activeMinutes };
}

/** The time ranges the page offers, in minutes (the server answers up to 1,440). */
export const RANGES = [
  { id: '15m', minutes: 15, label: '15 minutes' },
  { id: '1h', minutes: 60, label: '1 hour' },
  { id: '6h', minutes: 360, label: '6 hours' },
  { id: '24h', minutes: 1440, label: '24 hours' },
] as const;

export type Range = (typeof RANGES)[number];

export const DEFAULT_RANGE: Range = RANGES[1];

export function rangeOf(id: string | null): Range {
  return RANGES.find((r) => r.id === id) ?? DEFAULT_RANGE;
}

/** `14:05`, in the browser's time zone. */
export function clockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

/** `14:05:09`. */
export function clockTimeWithSeconds(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A duration as a person reads it: `0.42 ms`, `12.5 ms`, `250 ms`, `2.5 s`. */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${Number((ms / 1000).toFixed(2))} s`;
  if (ms >= 100) return `${Math.round(ms)} ms`;
  if (ms >= 10) return `${Number(ms.toFixed(1))} ms`;
  return `${Number(ms.toFixed(2))} ms`;
}

/**
 * A latency figure of the per-minute counts: the upper bound of a bucket, so "at most"; the
 * last bucket is open (10 s or more).
 */
export function formatBound(ms: number | null): string {
  if (ms === null) return '—';
  return ms >= 10_000 ? `≥ ${formatMs(ms)}` : `≤ ${formatMs(ms)}`;
}

/** `33.3 %`; `0 %` and `100 %` without decimals. */
export function formatShare(share: number): string {
  const percent = share * 100;
  return `${percent === 0 || percent === 100 ? percent : Number(percent.toFixed(1))} %`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
