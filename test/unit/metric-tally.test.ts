import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterTally, HistogramTally } from '../../server/metrics/tally.js';

/** A metric's series as prom-client reports them (histograms name each series: _bucket, _sum, _count). */
interface Series {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

async function values(registry: Registry, name: string): Promise<Series[]> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []) as Series[];
}

describe('metric tallies', () => {
  it('sums increments per label set and hands them to prom-client only when applied', async () => {
    const registry = new Registry();
    const labelNames = ['provider', 'model', 'status'];
    const tally = new CounterTally({ name: 'calls_total', help: 'h', labelNames, registers: [registry] });
    tally.add(1, 'openai', 'gpt-4o', 'ok');
    tally.add(2, 'openai', 'gpt-4o', 'ok');
    tally.add(1, 'openai', 'gpt-4o', 'error');
    tally.add(5, 'anthropic', 'gpt-4o', 'ok');
    expect(await values(registry, 'calls_total')).toEqual([]);

    tally.apply();
    const byLabels = (await values(registry, 'calls_total')).map((v) => [v.labels, v.value]);
    expect(byLabels).toEqual(
      expect.arrayContaining([
        [{ provider: 'openai', model: 'gpt-4o', status: 'ok' }, 3],
        [{ provider: 'openai', model: 'gpt-4o', status: 'error' }, 1],
        [{ provider: 'anthropic', model: 'gpt-4o', status: 'ok' }, 5],
      ]),
    );
    expect(byLabels).toHaveLength(3);

    // Applied increments are not applied twice; new ones add to the totals.
    tally.add(1, 'openai', 'gpt-4o', 'ok');
    tally.apply();
    tally.apply();
    const ok = (await values(registry, 'calls_total')).find(
      (v) => v.labels['provider'] === 'openai' && v.labels['status'] === 'ok',
    );
    expect(ok?.value).toBe(4);
  });

  it('keeps label sets whose values share a prefix apart', async () => {
    const registry = new Registry();
    const tally = new CounterTally({ name: 'c_total', help: 'h', labelNames: ['a', 'b'], registers: [registry] });
    tally.add(1, 'x', 'y');
    tally.add(1, 'x', '');
    tally.add(1, '', 'x');
    tally.apply();
    expect(
      (await values(registry, 'c_total'))
        .map((v) => v.labels)
        .sort((p, q) => JSON.stringify(p).localeCompare(JSON.stringify(q))),
    ).toEqual([
      { a: '', b: 'x' },
      { a: 'x', b: '' },
      { a: 'x', b: 'y' },
    ]);
  });

  it('buffers histogram observations and hands over full buffers without waiting for a scrape', async () => {
    const registry = new Registry();
    const labelNames = ['provider'];
    const tally = new HistogramTally({
      name: 'd_seconds',
      help: 'h',
      labelNames,
      buckets: [1, 10],
      registers: [registry],
    });
    const countOf = async () =>
      (await values(registry, 'd_seconds')).find((v) => v.metricName === 'd_seconds_count')?.value ?? 0;
    for (let i = 0; i < 255; i++) tally.observe(0.5, 'openai');
    expect(await countOf()).toBe(0);
    tally.observe(5, 'openai');
    expect(await countOf()).toBe(256);
    tally.observe(20, 'openai');
    tally.apply();
    const all = await values(registry, 'd_seconds');
    expect(await countOf()).toBe(257);
    expect(all.find((v) => v.metricName === 'd_seconds_bucket' && v.labels['le'] === 1)?.value).toBe(255);
    expect(all.find((v) => v.metricName === 'd_seconds_bucket' && v.labels['le'] === 10)?.value).toBe(256);
    expect(all.find((v) => v.metricName === 'd_seconds_sum')?.value).toBeCloseTo(255 * 0.5 + 5 + 20);
  });
});
