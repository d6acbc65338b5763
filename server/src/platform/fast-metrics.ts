// Counter and histogram children for the paid call's metrics (issue 58's cost): a prom-client child
// builds its label set's key string and looks it up in a dictionary on every inc or observe (~0.5 µs
// each, about ten per paid call: most of what metrics cost a call in the gateway bench). These add in
// plain numbers instead; the figures reach the registry when it is scraped, in prom-client's own
// text format, so /metrics reads the same series with the same values.
import { Counter, type CounterConfiguration, type Registry } from 'prom-client';

export interface CounterChild {
  inc(value?: number): void;
}

export interface HistogramChild {
  observe(value: number): void;
}

/** A label set's key: its values joined by a character no label value of these families holds. */
const keyOf = (values: readonly string[]) => (values.length === 1 ? values[0]! : values.join('\u0000'));

/** A counter's child that sums in a number; the family's collect (at scrape) hands the sum to prom-client. */
class PendingCount implements CounterChild {
  #pending = 0;
  constructor(private readonly target: CounterChild) {}
  inc(value = 1): void {
    // Never a throw on a paid call's path: a negative or non-finite increment is not counted.
    if (value > 0 && value !== Number.POSITIVE_INFINITY) this.#pending += value;
  }
  flush(): void {
    if (this.#pending === 0) return;
    this.target.inc(this.#pending);
    this.#pending = 0;
  }
}

/** A prom-client Counter whose labelled children count in plain numbers until a scrape. */
export class FastCounter<T extends string> {
  readonly counter: Counter<T>;
  readonly #children = new Map<string, PendingCount>();

  constructor(config: CounterConfiguration<T>) {
    const children = this.#children;
    this.counter = new Counter({
      ...config,
      collect() {
        for (const child of children.values()) child.flush();
      },
    });
  }

  /** The child of these label values (made once; later calls answer the same one). */
  labels(...values: string[]): CounterChild {
    const key = keyOf(values);
    let child = this.#children.get(key);
    if (!child) {
      child = new PendingCount(this.counter.labels(...values));
      this.#children.set(key, child);
    }
    return child;
  }
}

/** One label set's buckets (counts per bucket, not cumulative), sum and count. */
class BucketCounts implements HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

interface HistogramConfig {
  name: string;
  help: string;
  labelNames: readonly string[];
  buckets: readonly number[];
  registers: Registry[];
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * A histogram family registered as a metric of its own: what the registry reads of it is what
 * prom-client's Histogram gives (`<name>_bucket` cumulative with `le` first, then `_sum` and
 * `_count`), so the text on /metrics is the same.
 */
export class FastHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly #labelNames: readonly string[];
  readonly #buckets: readonly number[];
  readonly #children = new Map<string, BucketCounts>();

  constructor({ name, help, labelNames, buckets, registers }: HistogramConfig) {
    this.name = name;
    this.help = help;
    this.#labelNames = labelNames;
    this.#buckets = [...buckets].sort((a, b) => a - b);
    for (const registry of registers) registry.registerMetric(this as never);
  }

  /** The child of these label values, in labelNames' order (made once; later calls answer the same one). */
  labels(...values: string[]): HistogramChild {
    const key = keyOf(values);
    let child = this.#children.get(key);
    if (!child) {
      if (values.length !== this.#labelNames.length) throw new Error(`${this.name} takes ${this.#labelNames.length} label values, got ${values.length}`);
      const labels: Record<string, string> = {};
      this.#labelNames.forEach((labelName, i) => {
        labels[labelName] = values[i]!;
      });
      child = new BucketCounts(labels, this.#buckets);
      this.#children.set(key, child);
    }
    return child;
  }

  async get() {
    const values: MetricValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const child of this.#children.values()) {
      // A label set shows once it has observed something, as with prom-client's children.
      if (child.count === 0) continue;
      let cumulative = 0;
      this.#buckets.forEach((bound, i) => {
        cumulative += child.counts[i]!;
        values.push({ labels: { le: bound, ...child.labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...child.labels }, value: child.count, metricName: bucketName });
      values.push({ labels: { ...child.labels }, value: child.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...child.labels }, value: child.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Every series back to zero (Registry#resetMetrics). */
  reset(): void {
    for (const child of this.#children.values()) {
      child.counts.fill(0);
      child.sum = 0;
      child.count = 0;
    }
  }
}
