import { Index, MetricKind, ScalarKind } from 'usearch';

// Nearest-neighbour search over the unit vectors of one partition (one context key): a flat scan
// while small, an HNSW graph (usearch) once it holds more than FLAT_LIMIT vectors, where a scan
// would cost more than the graph's lookup (about a millisecond at 100,000 vectors of 256 floats).
//
// Vectors wait in a flat list (`pending`) until the graph takes them. The graph is built in slices
// of at most BUILD_SLICE_MS, giving the event loop back between them: built in one go, 2,049
// vectors held every request up for about 200 ms. A lookup searches the graph and scans what is
// still pending, so it never misses an entry because the graph has not caught up.

const FLAT_LIMIT = 2_048;
const BUILD_SLICE_MS = 4;

export interface Nearest {
  key: number;
  similarity: number;
}

export class VectorIndex {
  private graph: Index | undefined;
  /** Not in the graph yet, in order; removed ones are null. Entries before `next` are taken. */
  private pending: Array<{ key: number; vector: Float32Array } | null> = [];
  private next = 0;
  private readonly pendingAt = new Map<number, number>();
  private building: Promise<void> | undefined;
  private live = 0;

  constructor(readonly dimensions: number) {}

  get size(): number {
    return this.live;
  }

  add(key: number, vector: Float32Array): void {
    this.live++;
    if (this.graph && !this.building) {
      this.graph.add(BigInt(key), vector);
      return;
    }
    this.pendingAt.set(key, this.pending.length);
    this.pending.push({ key, vector });
    if (!this.graph && this.pendingAt.size > FLAT_LIMIT) this.startBuild();
  }

  remove(key: number): void {
    const at = this.pendingAt.get(key);
    if (at !== undefined) {
      this.pending[at] = null;
      this.pendingAt.delete(key);
      this.live--;
    } else if (this.graph && (this.graph.remove(BigInt(key)) as number) > 0) this.live--;
  }

  /** Settles once every vector added so far is in the graph (at once when none is on its way). */
  async indexed(): Promise<void> {
    await this.building;
  }

  /** The most similar vector (cosine similarity of unit vectors), or undefined when empty. */
  nearest(query: Float32Array): Nearest | undefined {
    let best: Nearest | undefined;
    if (this.graph && this.live > this.pendingAt.size) {
      const found = this.graph.search(query, 1, 1);
      const key = found.keys[0];
      const distance = found.distances[0];
      if (key !== undefined && distance !== undefined) best = { key: Number(key), similarity: 1 - distance };
    }
    const n = this.dimensions;
    for (let i = this.next; i < this.pending.length; i++) {
      const p = this.pending[i];
      if (!p) continue;
      let dot = 0;
      for (let d = 0; d < n; d++) dot += p.vector[d]! * query[d]!;
      if (!best || dot > best.similarity) best = { key: p.key, similarity: dot };
    }
    return best;
  }

  private startBuild(): void {
    this.graph = newGraph(this.dimensions);
    this.building = new Promise((resolve) => {
      const step = () => {
        const until = performance.now() + BUILD_SLICE_MS;
        while (this.next < this.pending.length && performance.now() < until) {
          const p = this.pending[this.next++];
          if (!p) continue;
          this.graph!.add(BigInt(p.key), p.vector);
          this.pendingAt.delete(p.key);
        }
        if (this.next < this.pending.length) {
          setImmediate(step);
          return;
        }
        this.pending = [];
        this.next = 0;
        this.building = undefined;
        resolve();
      };
      setImmediate(step);
    });
  }
}

function newGraph(dimensions: number): Index {
  return new Index({
    metric: MetricKind.Cos,
    dimensions,
    quantization: ScalarKind.F32,
    // A lighter graph than the defaults: building one is several times cheaper, and it still finds
    // the same vector 99.6% of the time among 20,000 random ones (the hardest case: real
    // embeddings cluster) at about 0.5 ms a search (npm run bench:semantic-cache).
    connectivity: 12,
    expansion_add: 48,
    expansion_search: 96,
    multi: false,
  });
}
