// Durations counted on the request path, exported as Prometheus metrics by prom-client's
// registry. prom-client's Counter and Histogram check and hash their label object on every
// update; a request made five such updates (its HTTP answer, its operation, its statement),
// about 10 µs of server CPU per by-id read in place (docs/performance.md). Here each
// combination of labels is one record, found by a key the caller composes from the label
// values, and an update is a lookup and three increments. The registry reads the records when
// scraped, through the interface it reads its own metrics by (`get`, `getForPromString`), so
// the exposition is the one prom-client's histogram and counter write.

/** One combination of labels: its counts per bucket (the last past every bound), sum and count. */
export interface TimingSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** A sample as prom-client's registry formats it: `labels` first, then the `sharedLabels`. */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName?: string;
}

/** What prom-client's registry asks of a metric. */
export interface ExportedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Omit<Sample, 'sharedLabels'>[]; aggregator: 'sum' }>;
  getForPromString(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
  reset(): void;
}

/** Durations in seconds, by label combination, with upper bounds for their buckets. */
export class Timings {
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, TimingSeries>();

  constructor(bounds: readonly number[]) {
    this.#bounds = [...bounds].sort((a, b) => a - b);
  }

  /** The series under `key`, made with `labels()` the first time (the key must stand for those labels alone). */
  series(key: string, labels: () => Record<string, string>): TimingSeries {
    let found = this.#series.get(key);
    if (found === undefined) {
      found = { labels: Object.freeze(labels()), buckets: new Array<number>(this.#bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.#series.set(key, found);
    }
    return found;
  }

  observe(series: TimingSeries, seconds: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && seconds > (bounds[i] as number)) i += 1;
    series.buckets[i] = (series.buckets[i] as number) + 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** A counter of the observations, by every label of the series. */
  counter(name: string, help: string): ExportedMetric {
    return exported(name, help, 'counter', () => [...this.#series.values()].map((s) => ({ labels: {}, sharedLabels: s.labels, value: s.count })), () => this.#series.clear());
  }

  /** A histogram of the observations, by the labels `by` (series that differ only in others are added together). */
  histogram(name: string, help: string, by: readonly string[]): ExportedMetric {
    return exported(name, help, 'histogram', () => this.#histogramSamples(name, by), () => this.#series.clear());
  }

  #histogramSamples(name: string, by: readonly string[]): Sample[] {
    const merged = new Map<string, { labels: Record<string, string>; buckets: number[]; sum: number; count: number }>();
    for (const s of this.#series.values()) {
      const labels = Object.fromEntries(by.map((l) => [l, s.labels[l] ?? '']));
      const key = JSON.stringify(labels);
      let m = merged.get(key);
      if (!m) merged.set(key, (m = { labels, buckets: new Array<number>(s.buckets.length).fill(0), sum: 0, count: 0 }));
      s.buckets.forEach((n, i) => ((m.buckets[i] as number) += n));
      m.sum += s.sum;
      m.count += s.count;
    }
    const samples: Sample[] = [];
    for (const m of merged.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += m.buckets[i] as number;
        samples.push({ labels: { le: bound }, sharedLabels: m.labels, value: cumulative, metricName: `${name}_bucket` });
      });
      samples.push({ labels: { le: '+Inf' }, sharedLabels: m.labels, value: m.count, metricName: `${name}_bucket` });
      samples.push({ labels: {}, sharedLabels: m.labels, value: m.sum, metricName: `${name}_sum` });
      samples.push({ labels: {}, sharedLabels: m.labels, value: m.count, metricName: `${name}_count` });
    }
    return samples;
  }
}

function exported(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[], reset: () => void): ExportedMetric {
  const forPromString = () => ({ name, help, type, values: samples(), aggregator: 'sum' as const });
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    getForPromString: async () => forPromString(),
    // The JSON form has each sample's labels in one object.
    get: async () => {
      const data = forPromString();
      return { ...data, values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })) };
    },
    reset,
  };
}
