// Classifier benchmark: `npx tsx test/bench/classifier.bench.ts`. Prints microseconds per
// classification for a short prompt, a ~2,000-token prompt (~8,000 characters), a ~20,000-token
// prompt, a long multi-turn chat, the whole fixture corpus and the test split of data/classifier
// (with its accuracy). It asserts nothing; the budget
// (DESIGN.md section 8) is "well under 0.1 ms for a 2,000-token prompt".
//
// CLASSIFIER_BENCH_ITERATIONS=<n> changes the number of timed iterations per case.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { classify } from '../../server/gateway/classifier/index.js';
import type { ChatMessage } from '../../server/providers/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ITERATIONS = Number(process.env.CLASSIFIER_BENCH_ITERATIONS ?? 20_000);
const BUDGET_US = 100;
const ROUNDS = 5;

interface Row {
  messages: ChatMessage[];
  taskType: string;
}
const corpus: Row[] = readFileSync(path.join(here, '../fixtures/classifier/corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Row);

function textOf(m: ChatMessage): string {
  return typeof m.content === 'string' ? m.content : '';
}

/** Real prompt text from the corpus (rows of the given task types), concatenated until it is `chars` long. */
function pasted(chars: number, ...types: string[]): string {
  const rows = corpus.filter((r) => types.length === 0 || types.includes(r.taskType));
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i = (i + 7) % rows.length) {
    const t = rows[i]!.messages.map(textOf).join('\n\n');
    if (t.length === 0) continue;
    parts.push(t);
    n += t.length + 2;
  }
  return parts.join('\n\n').slice(0, chars);
}

const cases: Array<{ name: string; messages: ChatMessage[] }> = [
  {
    name: 'short (65 chars)',
    messages: [{ role: 'user', content: 'write a python function that checks if a string is a palindrome' }],
  },
  {
    name: '2k tokens (~8,000 chars)',
    messages: [
      {
        role: 'user',
        content: `Summarize the following for the team and list open questions:\n\n${pasted(8_000, 'summarization')}`,
      },
    ],
  },
  {
    name: '20k tokens (~80,000 chars)',
    messages: [
      { role: 'user', content: `${pasted(80_000, 'coding')}\n\nWhat does this error mean and how do I fix it?` },
    ],
  },
  {
    name: 'chat: system + 12 turns (~8,000 chars)',
    messages: [
      { role: 'system', content: pasted(1_500) },
      ...Array.from(
        { length: 12 },
        (_, i): ChatMessage => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: pasted(500 + 50 * i) }),
      ),
      { role: 'user', content: 'make it faster' },
    ],
  },
];

/**
 * Microseconds per classification, wall and CPU: the best of ROUNDS rounds, because other work on
 * the machine only ever adds time.
 */
function time(messages: ChatMessage[], iterations: number): { wall: number; cpu: number } {
  let sink = 0;
  for (let i = 0; i < Math.min(2_000, iterations); i++) sink += classify(messages).taskConfidence; // warm up
  let wall = Infinity;
  let cpu = Infinity;
  const per = Math.max(1, Math.round(iterations / ROUNDS));
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < per; i++) sink += classify(messages).taskConfidence;
    const t1 = performance.now();
    const c = process.cpuUsage(c0);
    wall = Math.min(wall, ((t1 - t0) * 1000) / per);
    cpu = Math.min(cpu, (c.user + c.system) / per);
  }
  if (sink < 0) console.log(sink); // keep the work observable
  return { wall, cpu };
}

console.log(`classifier: ${ITERATIONS} iterations per case, best of ${ROUNDS} rounds (Node ${process.version})\n`);
const rows: string[][] = [['case', 'wall', 'cpu', 'input -> result']];
for (const c of cases) {
  const chars = c.messages.reduce((n, m) => n + textOf(m).length, 0);
  const t = time(c.messages, ITERATIONS);
  const result = classify(c.messages);
  rows.push([
    c.name,
    `${t.wall.toFixed(2)} us`,
    `${t.cpu.toFixed(2)} us`,
    `${chars} chars -> ${result.taskType}/${result.complexity}`,
  ]);
}
{
  // The whole corpus as one case: mean time per prompt.
  let sink = 0;
  for (const r of corpus) sink += classify(r.messages).taskConfidence;
  const rounds = Math.max(1, Math.round(ITERATIONS / corpus.length / ROUNDS));
  let wall = Infinity;
  let cpu = Infinity;
  for (let k = 0; k < ROUNDS; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let j = 0; j < rounds; j++) for (const r of corpus) sink += classify(r.messages).taskConfidence;
    const t1 = performance.now();
    const c = process.cpuUsage(c0);
    wall = Math.min(wall, ((t1 - t0) * 1000) / (rounds * corpus.length));
    cpu = Math.min(cpu, (c.user + c.system) / (rounds * corpus.length));
  }
  if (sink < 0) console.log(sink);
  rows.push([`corpus mean (${corpus.length} prompts)`, `${wall.toFixed(2)} us`, `${cpu.toFixed(2)} us`, 'mixed']);
}
{
  // The test split of the labelled corpus (data/classifier): mean time per prompt, and accuracy.
  const split = readFileSync(path.join(here, '../../data/classifier/corpus.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { split: string; taskType: string; text: string })
    .filter((r) => r.split === 'test')
    .map((r) => ({ messages: [{ role: 'user', content: r.text }] as ChatMessage[], taskType: r.taskType }));
  let right = 0;
  for (const r of split) if (classify(r.messages).taskType === r.taskType) right++;
  let wall = Infinity;
  let cpu = Infinity;
  let sink = 0;
  for (let k = 0; k < ROUNDS; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const r of split) sink += classify(r.messages).taskConfidence;
    const t1 = performance.now();
    const c = process.cpuUsage(c0);
    wall = Math.min(wall, ((t1 - t0) * 1000) / split.length);
    cpu = Math.min(cpu, (c.user + c.system) / split.length);
  }
  if (sink < 0) console.log(sink);
  rows.push([
    `data/classifier test split (${split.length})`,
    `${wall.toFixed(2)} us`,
    `${cpu.toFixed(2)} us`,
    `${((100 * right) / split.length).toFixed(1)}% task types right`,
  ]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows)
  console.log(
    r
      .map((v, i) => (i === 1 || i === 2 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
const twoK = Number(rows[2]![2]!.split(' ')[0]);
console.log(
  `\nbudget: under ${BUDGET_US} us for a 2,000-token prompt: ${twoK.toFixed(1)} us of CPU, ${twoK < BUDGET_US ? 'within' : 'OVER'} budget`,
);
