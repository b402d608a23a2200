// Trains the task-type model: multinomial logistic regression over the hashed features of
// server/gateway/classifier/features.ts, on the train split of data/classifier/corpus.jsonl
// (plus the single-turn prompts of test/fixtures/classifier/corpus.jsonl, the project's own
// labelled examples of emails, small talk and code pastes). The test split is not read here.
//
//   npm run train:classifier        (trains, writes the weights, then runs evaluate.ts)
//
// Writes server/gateway/classifier/model-weights.ts: int8 weights (one scale per class), biases
// and a softmax temperature fitted on a slice of the training data held out from fitting.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extract, GROUPS } from '../../server/gateway/classifier/features.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '../..');
export const CLASSES = ['coding', 'creative', 'summarization', 'qa', 'general'] as const;
const K = CLASSES.length;
const DIM = Number(process.env.CLASSIFIER_DIM ?? 1 << 17);
const EPOCHS = Number(process.env.CLASSIFIER_EPOCHS ?? 12);
const LR = 0.4;
const L2 = 2e-6;
const SEED = 32;

interface Doc {
  idx: Int32Array;
  val: Float32Array;
  y: number;
  w: number;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function featurize(text: string, dim = DIM): { idx: Int32Array; val: Float32Array } {
  const per: number[][] = Array.from({ length: GROUPS }, () => []);
  extract(text, dim, (g, b) => per[g]!.push(b));
  const acc = new Map<number, number>();
  for (let g = 0; g < GROUPS; g++) {
    const list = per[g]!;
    if (list.length === 0) continue;
    const s = 1 / Math.sqrt(list.length);
    for (const b of list) acc.set(b, (acc.get(b) ?? 0) + s);
  }
  const idx = new Int32Array(acc.size);
  const val = new Float32Array(acc.size);
  let i = 0;
  for (const [b, v] of acc) {
    idx[i] = b;
    val[i++] = v;
  }
  return { idx, val };
}

/** How much a project fixture counts next to a corpus prompt: they are the gateway's own kind of traffic. */
const FIXTURE_WEIGHT = 3;

function loadTraining(): Array<{ text: string; y: number; w: number }> {
  const out: Array<{ text: string; y: number; w: number }> = [];
  const corpus = readFileSync(path.join(root, 'data/classifier/corpus.jsonl'), 'utf8').trim().split('\n');
  for (const l of corpus) {
    const r = JSON.parse(l) as { split: string; taskType: string; text: string };
    if (r.split !== 'train') continue;
    out.push({ text: r.text, y: CLASSES.indexOf(r.taskType as (typeof CLASSES)[number]), w: 1 });
  }
  const fixtures = readFileSync(path.join(root, 'test/fixtures/classifier/corpus.jsonl'), 'utf8').trim().split('\n');
  for (const l of fixtures) {
    const r = JSON.parse(l) as { messages: Array<{ role: string; content: unknown }>; taskType: string };
    if (r.messages.length !== 1 || r.messages[0]!.role !== 'user' || typeof r.messages[0]!.content !== 'string')
      continue;
    const y = CLASSES.indexOf(r.taskType as (typeof CLASSES)[number]);
    if (y < 0) continue;
    out.push({ text: r.messages[0]!.content, y, w: FIXTURE_WEIGHT });
  }
  return out;
}

function softmax(z: Float64Array, t = 1): Float64Array {
  let m = -Infinity;
  for (const v of z) if (v > m) m = v;
  let s = 0;
  const p = new Float64Array(z.length);
  for (let k = 0; k < z.length; k++) s += p[k] = Math.exp((z[k]! - m) / t);
  for (let k = 0; k < z.length; k++) p[k]! /= s;
  return p;
}

function logits(W: Float32Array, b: Float64Array, d: { idx: Int32Array; val: Float32Array }): Float64Array {
  const z = Float64Array.from(b);
  for (let i = 0; i < d.idx.length; i++) {
    const o = d.idx[i]! * K;
    const v = d.val[i]!;
    for (let k = 0; k < K; k++) z[k]! += W[o + k]! * v;
  }
  return z;
}

function trainModel(docs: Doc[]): { W: Float32Array; b: Float64Array } {
  const W = new Float32Array(DIM * K);
  const G = new Float32Array(DIM * K).fill(1e-8);
  const b = new Float64Array(K);
  const Gb = new Float64Array(K).fill(1e-8);
  const rand = mulberry32(SEED);
  const order = docs.map((_, i) => i);
  for (let e = 0; e < EPOCHS; e++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const di of order) {
      const d = docs[di]!;
      const p = softmax(logits(W, b, d));
      for (let k = 0; k < K; k++) {
        const g = d.w * (p[k]! - (k === d.y ? 1 : 0));
        Gb[k]! += g * g;
        b[k]! -= (LR * g) / Math.sqrt(Gb[k]!);
        for (let i = 0; i < d.idx.length; i++) {
          const o = d.idx[i]! * K + k;
          const gw = g * d.val[i]! + L2 * W[o]!;
          G[o]! += gw * gw;
          W[o]! -= (LR * gw) / Math.sqrt(G[o]!);
        }
      }
    }
  }
  return { W, b };
}

function toDocs(rows: Array<{ text: string; y: number; w: number }>): Doc[] {
  // Classes weigh alike whatever their size.
  const counts = new Array<number>(K).fill(0);
  let total = 0;
  for (const r of rows) {
    counts[r.y]! += r.w;
    total += r.w;
  }
  return rows.map((r) => ({ ...featurize(r.text), y: r.y, w: (r.w * total) / (K * counts[r.y]!) }));
}

function main(): void {
  const rows = loadTraining();
  const rand = mulberry32(SEED + 1);
  const shuffled = [...rows].sort(() => rand() - 0.5);
  // Temperature: fit on 85%, choose the temperature that minimises log loss on the other 15%.
  const cut = Math.floor(shuffled.length * 0.85);
  const calib = toDocs(shuffled.slice(cut));
  const partial = trainModel(toDocs(shuffled.slice(0, cut)));
  let bestT = 1;
  let bestLoss = Infinity;
  for (let t = 0.3; t <= 3.001; t += 0.05) {
    let loss = 0;
    for (const d of calib) loss -= Math.log(Math.max(1e-12, softmax(logits(partial.W, partial.b, d), t)[d.y]!));
    if (loss < bestLoss) {
      bestLoss = loss;
      bestT = t;
    }
  }
  const { W, b } = trainModel(toDocs(rows));
  // Quantise: int8 per weight, one scale per class.
  const scale = new Float64Array(K);
  for (let i = 0; i < W.length; i++) {
    const k = i % K;
    const a = Math.abs(W[i]!);
    if (a > scale[k]!) scale[k] = a;
  }
  for (let k = 0; k < K; k++) scale[k] = scale[k]! / 127 || 1;
  const q = new Int8Array(W.length);
  for (let i = 0; i < W.length; i++) q[i] = Math.round(W[i]! / scale[i % K]!);
  const b64 = Buffer.from(q.buffer).toString('base64');
  const file = path.join(root, 'server/gateway/classifier/model-weights.ts');
  const round = (x: number) => Number(x.toPrecision(6));
  writeFileSync(
    file,
    [
      '// Generated by `npm run train:classifier` (scripts/classifier/train.ts); do not edit by hand.',
      `// ${rows.length} training prompts, ${DIM} hashed buckets x ${K} classes, int8 weights.`,
      '',
      'export const MODEL = {',
      `  classes: ${JSON.stringify(CLASSES)},`,
      `  dim: ${DIM},`,
      `  bias: ${JSON.stringify([...b].map(round))},`,
      `  scale: ${JSON.stringify([...scale].map(round))},`,
      `  temperature: ${round(bestT)},`,
      `  weights:\n    '${b64}',`,
      '} as const;',
      '',
    ].join('\n'),
  );
  console.log(
    `trained on ${rows.length} prompts; temperature ${bestT.toFixed(2)}; ${(b64.length / 1e6).toFixed(2)} MB of weights -> ${path.relative(root, file)}`,
  );
}

main();
