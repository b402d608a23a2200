// The learned task-type model: a linear model over the hashed features of features.ts, its
// weights trained by `npm run train:classifier` on labelled prompts (data/classifier) and kept in
// model-weights.ts. Vision is not here: it is decided by image parts.

import { extract, G_CHARS, G_SHAPE, G_WORDS, GROUPS } from './features.js';
import { MODEL } from './model-weights.js';

export const MODEL_CLASSES = MODEL.classes;
export type TextTask = (typeof MODEL.classes)[number];
const K = MODEL.classes.length;
const DIM = MODEL.dim;
const W = new Int8Array(Buffer.from(MODEL.weights, 'base64').buffer.slice(0));
if (W.length !== DIM * K) throw new Error(`classifier weights: expected ${DIM * K} values, got ${W.length}`);
const SCALE = Float64Array.from(MODEL.scale);
export const MODEL_TEMPERATURE = MODEL.temperature;

// Per-call accumulators, reused (the hot path allocates nothing per feature).
const sums = new Float64Array(GROUPS * K);
const counts = new Int32Array(GROUPS);
const emit = (g: number, bucket: number): void => {
  counts[g]!++;
  const o = bucket * K;
  const s = g * K;
  for (let k = 0; k < K; k++) sums[s + k]! += W[o + k]!;
};

/** The model's bias, to start a score vector with. */
export function biasInto(out: Float64Array): void {
  for (let k = 0; k < K; k++) out[k] = MODEL.bias[k]!;
}

/** Adds `weight` times the text's linear scores (without bias) to `out`. */
export function addScores(text: string, weight: number, out: Float64Array): void {
  sums.fill(0);
  counts.fill(0);
  extract(text, DIM, emit);
  for (const g of [G_WORDS, G_CHARS, G_SHAPE]) {
    const n = counts[g]!;
    if (n === 0) continue;
    const f = weight / Math.sqrt(n);
    for (let k = 0; k < K; k++) out[k]! += f * SCALE[k]! * sums[g * K + k]!;
  }
}

/** Softmax at the model's temperature, in place; returns the index of the top class. */
export function softmaxInPlace(z: Float64Array): number {
  let best = 0;
  for (let k = 1; k < K; k++) if (z[k]! > z[best]!) best = k;
  const m = z[best]!;
  let s = 0;
  for (let k = 0; k < K; k++) s += z[k] = Math.exp((z[k]! - m) / MODEL_TEMPERATURE);
  for (let k = 0; k < K; k++) z[k]! /= s;
  return best;
}
