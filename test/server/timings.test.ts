// The request path's own durations (timings.ts) must read, when scraped, exactly as
// prom-client's Histogram and Counter would for the same observations: the same buckets,
// sums, counts and label text, series merged where a histogram drops a label.

import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Timings } from '../../src/server/plugins/timings.js';

const BOUNDS = [0.005, 0.01, 0.025, 0.5];

/** Observations: labels and seconds, on and between the bounds, past the last, and a label value to escape. */
const OBSERVED: [Record<string, string>, number][] = [
  [{ type: 'query', outcome: 'ok' }, 0.001],
  [{ type: 'query', outcome: 'ok' }, 0.005],
  [{ type: 'query', outcome: 'ok' }, 0.0051],
  [{ type: 'query', outcome: 'BAD_USER_INPUT' }, 0.02],
  [{ type: 'mutation', outcome: 'ok' }, 3],
  [{ type: 'mut"ation\\', outcome: 'ok' }, 0.5],
];

describe('timings', () => {
  it('are scraped as prom-client writes a histogram and a counter of the same observations', async () => {
    const theirs = new Registry();
    const histogram = new Histogram({ name: 't_seconds', help: 'Time, by type.', labelNames: ['type'], buckets: BOUNDS, registers: [theirs] });
    const counter = new Counter({ name: 't_total', help: 'Count, by type and outcome.', labelNames: ['type', 'outcome'], registers: [theirs] });
    const ours = new Registry();
    const timings = new Timings(BOUNDS);
    ours.registerMetric(timings.histogram('t_seconds', 'Time, by type.', ['type']) as never);
    ours.registerMetric(timings.counter('t_total', 'Count, by type and outcome.') as never);
    for (const [labels, seconds] of OBSERVED) {
      histogram.observe({ type: labels.type as string }, seconds);
      counter.inc(labels);
      timings.observe(
        timings.series(`${labels.type}\u0001${labels.outcome}`, () => ({ ...labels })),
        seconds,
      );
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    // Spelled out for one series: the query's three observations merged with its error's.
    expect(text).toContain('t_seconds_bucket{le="0.005",type="query"} 2');
    expect(text).toContain('t_seconds_bucket{le="0.01",type="query"} 3');
    expect(text).toContain('t_seconds_bucket{le="0.025",type="query"} 4');
    expect(text).toContain('t_seconds_bucket{le="+Inf",type="mutation"} 1');
    expect(text).toContain('t_seconds_count{type="query"} 4');
    expect(text).toContain('t_total{type="query",outcome="BAD_USER_INPUT"} 1');
    // Reset with the registry, as prom-client's own metrics are.
    ours.resetMetrics();
    expect(await ours.metrics()).not.toContain('t_total{');
  });

  it('keep one series per key, made once', () => {
    const timings = new Timings([1]);
    let made = 0;
    const labels = () => {
      made += 1;
      return { route: '/a' };
    };
    const a = timings.series('a', labels);
    expect(timings.series('a', labels)).toBe(a);
    expect(made).toBe(1);
    timings.observe(a, 2);
    expect(a).toMatchObject({ buckets: [0, 1], sum: 2, count: 1 });
  });
});
