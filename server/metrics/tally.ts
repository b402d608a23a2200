import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

// Per-request metric updates that allocate nothing: increments are summed per label set, and
// handed to prom-client only when it is scraped (or, for a histogram, when a label set has a full
// buffer of observations). prom-client builds a label object and a hash string on every inc() or
// observe(); calling it per request cost the request path about 4 KB of garbage.

interface Leaf {
  /** The label object prom-client is given, built once per label set. */
  readonly labels: Record<string, string>;
}

/**
 * One leaf per label set, found through a tree of maps keyed by the label values in the metric's
 * label order. Callers pass exactly as many values as the metric has labels.
 */
class LabelSets<L extends Leaf> {
  private readonly root = new Map<string, unknown>();
  readonly leaves: L[] = [];

  constructor(
    private readonly labelNames: readonly string[],
    private readonly newLeaf: (labels: Record<string, string>) => L,
  ) {}

  /** The leaf of these label values; looking up an existing one allocates nothing. */
  get(a: string, b?: string, c?: string, d?: string, e?: string): L {
    let node: unknown = this.root.get(a);
    if (b !== undefined) node = (node as Map<string, unknown> | undefined)?.get(b);
    if (c !== undefined) node = (node as Map<string, unknown> | undefined)?.get(c);
    if (d !== undefined) node = (node as Map<string, unknown> | undefined)?.get(d);
    if (e !== undefined) node = (node as Map<string, unknown> | undefined)?.get(e);
    return (node as L | undefined) ?? this.add([a, b, c, d, e].slice(0, this.labelNames.length) as string[]);
  }

  private add(values: string[]): L {
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
    const leaf = this.newLeaf(labels);
    let node = this.root;
    for (const value of values.slice(0, -1)) {
      let next = node.get(value) as Map<string, unknown> | undefined;
      if (!next) node.set(value, (next = new Map()));
      node = next;
    }
    node.set(values[values.length - 1]!, leaf);
    this.leaves.push(leaf);
    return leaf;
  }
}

interface CounterLeaf extends Leaf {
  pending: number;
}

/** A labelled prom-client counter (made from `config`) whose increments are applied when scraped. */
export class CounterTally {
  private readonly counter: Counter<string>;
  private readonly sets: LabelSets<CounterLeaf>;

  constructor(config: CounterConfiguration<string> & { labelNames: readonly string[] }) {
    this.counter = new Counter(config);
    this.sets = new LabelSets(config.labelNames, (labels) => ({ labels, pending: 0 }));
  }

  /** Adds `by` to the label set given by its values, in the counter's label order. */
  add(by: number, a: string, b?: string, c?: string, d?: string, e?: string): void {
    this.sets.get(a, b, c, d, e).pending += by;
  }

  /** Hands every pending increment to prom-client. */
  apply(): void {
    for (const leaf of this.sets.leaves) {
      if (leaf.pending === 0) continue;
      this.counter.inc(leaf.labels, leaf.pending);
      leaf.pending = 0;
    }
  }
}

/** Observations a label set holds before they are handed to prom-client. */
const HISTOGRAM_BUFFER = 256;

interface HistogramLeaf extends Leaf {
  readonly values: Float64Array;
  count: number;
}

/** A labelled prom-client histogram (made from `config`) whose observations are handed over in batches and when scraped. */
export class HistogramTally {
  private readonly histogram: Histogram<string>;
  private readonly sets: LabelSets<HistogramLeaf>;

  constructor(config: HistogramConfiguration<string> & { labelNames: readonly string[] }) {
    this.histogram = new Histogram(config);
    this.sets = new LabelSets(config.labelNames, (labels) => ({
      labels,
      values: new Float64Array(HISTOGRAM_BUFFER),
      count: 0,
    }));
  }

  observe(value: number, a: string, b?: string, c?: string, d?: string, e?: string): void {
    const leaf = this.sets.get(a, b, c, d, e);
    leaf.values[leaf.count++] = value;
    if (leaf.count === HISTOGRAM_BUFFER) this.applyLeaf(leaf);
  }

  apply(): void {
    for (const leaf of this.sets.leaves) this.applyLeaf(leaf);
  }

  private applyLeaf(leaf: HistogramLeaf): void {
    for (let i = 0; i < leaf.count; i++) this.histogram.observe(leaf.labels, leaf.values[i]!);
    leaf.count = 0;
  }
}
