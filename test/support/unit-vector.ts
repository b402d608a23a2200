/** A pseudo-random unit vector, the same for the same seed (an LCG, so runs compare). */
export function unitVector(seed: number, dimensions: number): Float32Array {
  let s = seed >>> 0 || 1;
  const v = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v[i] = s / 2 ** 32 - 0.5;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) v[i]! /= norm;
  return v;
}
