import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from './fast-metrics.ts';

// The fast families must read on /metrics exactly as prom-client's own would for the same calls.
describe('fast metric families', () => {
  const BUCKETS = [0.005, 0.025, 0.1, 0.5, 2.5];
  const LABELS = ['method', 'route', 'status_class'];
  const observations: [string[], number][] = [
    [['POST', '/v1/chat/completions', '2xx'], 0.004],
    [['POST', '/v1/chat/completions', '2xx'], 0.005],
    [['POST', '/v1/chat/completions', '2xx'], 0.3],
    [['POST', '/v1/chat/completions', '2xx'], 7],
    [['GET', '/api/app/{slug}/', '4xx'], 0.0251],
    // A label value the text format must escape.
    [['GET', '/odd "route"\\with\nbreak', '5xx'], 1],
  ];

  it('a histogram: the same buckets, sums and counts, in the same text', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const reference = new Histogram({ name: 'h_seconds', help: 'help "text"\\', labelNames: LABELS, buckets: BUCKETS, registers: [theirs] });
    const fast = new FastHistogram({ name: 'h_seconds', help: 'help "text"\\', labelNames: LABELS, buckets: BUCKETS, registers: [ours] });
    // A child made but never observed shows nothing, as prom-client's.
    reference.labels('PUT', '/never', '2xx');
    fast.labels('PUT', '/never', '2xx');
    for (const [values, seconds] of observations) {
      reference.labels(...values).observe(seconds);
      fast.labels(...values).observe(seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('h_seconds_bucket{le="0.5",method="POST",route="/v1/chat/completions",status_class="2xx"} 3');
    // The same as JSON too, but for the exemplar field prom-client's values carry (null or undefined; these have none).
    const asJson = async (registry: Registry) =>
      JSON.parse(JSON.stringify(await registry.getMetricsAsJSON(), (key, value) => (key === 'exemplar' ? undefined : value))) as unknown;
    expect(await asJson(ours)).toEqual(await asJson(theirs));
    // Not a number: not counted (prom-client throws; a paid call must not).
    fast.labels('POST', '/v1/chat/completions', '2xx').observe(Number.NaN);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    ours.resetMetrics();
    expect(await ours.metrics()).toBe('# HELP h_seconds help "text"\\\\\n# TYPE h_seconds histogram\n');
  });

  it('a counter: children add in numbers and show their sums at each scrape', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    const reference = new Counter({ name: 'c_total', help: 'calls', labelNames: ['kind', 'outcome'], registers: [theirs] });
    const fast = new FastCounter({ name: 'c_total', help: 'calls', labelNames: ['kind', 'outcome'], registers: [ours] });
    const steps: [string, string, number | undefined][] = [
      ['prompt', 'success', undefined],
      ['prompt', 'success', 3],
      ['workflow', 'failed', 0.5],
      ['prompt', 'success', 2 ** 40],
    ];
    for (const [kind, outcome, value] of steps) {
      reference.labels(kind, outcome).inc(value);
      fast.labels(kind, outcome).inc(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // After a scrape, more: the next scrape adds them to what it showed.
    reference.labels('workflow', 'failed').inc(4);
    fast.labels('workflow', 'failed').inc(4);
    fast.labels('workflow', 'failed').inc(-1);
    fast.labels('workflow', 'failed').inc(Number.NaN);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('c_total{kind="workflow",outcome="failed"} 4.5');
    // The same child whichever call asks for it.
    expect(fast.labels('prompt', 'success')).toBe(fast.labels('prompt', 'success'));
  });
});
