import { describe, expect, it } from 'vitest';
import { VectorIndex } from '../../server/gateway/cache/semantic/vector-index.js';
import { unitVector as unitVectorOf } from '../support/unit-vector.js';

// A partition's nearest-neighbour index: a flat scan while small, then a graph built in slices
// while lookups go on. Lookups must find what was added, never what was removed, before, during
// and after the build.

const DIMENSIONS = 32;

const unitVector = (seed: number) => unitVectorOf(seed, DIMENSIONS);

describe('VectorIndex', () => {
  it('finds the stored vector while small, while its graph builds and after', async () => {
    const index = new VectorIndex(DIMENSIONS);
    for (let k = 1; k <= 100; k++) index.add(k, unitVector(k));
    expect(index.nearest(unitVector(42))).toEqual({ key: 42, similarity: expect.closeTo(1, 5) });

    // Past the flat limit the graph starts building in slices: lookups go on meanwhile.
    for (let k = 101; k <= 3_000; k++) index.add(k, unitVector(k));
    expect(index.nearest(unitVector(2_999))?.key).toBe(2_999);
    index.remove(2_999);
    index.remove(50);
    index.add(3_001, unitVector(3_001));
    expect(index.nearest(unitVector(2_999))?.key).not.toBe(2_999);
    expect(index.nearest(unitVector(3_001))?.key).toBe(3_001);
    expect(index.size).toBe(2_999);

    await index.indexed();
    for (const k of [1, 777, 2_048, 2_500, 3_000, 3_001]) expect(index.nearest(unitVector(k))?.key).toBe(k);
    expect(index.nearest(unitVector(2_999))?.key).not.toBe(2_999);
    expect(index.nearest(unitVector(50))?.key).not.toBe(50);

    // Built: adds and removes go to the graph.
    index.add(4_000, unitVector(4_000));
    expect(index.nearest(unitVector(4_000))?.key).toBe(4_000);
    index.remove(4_000);
    expect(index.nearest(unitVector(4_000))?.key).not.toBe(4_000);
    expect(index.size).toBe(2_999);
  });

  it('answers nothing when empty, and indexed() settles at once without a graph coming', async () => {
    const index = new VectorIndex(DIMENSIONS);
    expect(index.nearest(unitVector(1))).toBeUndefined();
    index.add(1, unitVector(1));
    index.remove(1);
    expect(index.nearest(unitVector(1))).toBeUndefined();
    await index.indexed();
  });
});
