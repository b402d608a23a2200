// Latency samples (milliseconds) and their summary.

export class Samples {
  private data = new Float64Array(1024);
  private n = 0;

  add(v: number): void {
    if (this.n === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.n++] = v;
  }

  get count(): number {
    return this.n;
  }

  /** Adds every sample of `other` (merging the blocks of an interleaved run). */
  addAll(other: Samples): void {
    for (let i = 0; i < other.n; i++) this.add(other.data[i]!);
  }

  summary(): Summary {
    return summarize(this.data.subarray(0, this.n));
  }
}

export interface Summary {
  count: number;
  mean: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, mean: NaN, min: NaN, p50: NaN, p90: NaN, p99: NaN, max: NaN };
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: n,
    mean: sum / n,
    min: sorted[0]!,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[n - 1]!,
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Rounds for JSON output: 3 decimals (microsecond resolution for milliseconds). */
export function round(v: number, digits = 3): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
