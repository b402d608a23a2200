// Classifier benchmark: `npx tsx test/bench/classifier.bench.ts`. Prints microseconds per
// classification for a short prompt, a ~2,000-token prompt (~8,000 characters), a ~20,000-token
// prompt, a long multi-turn chat, and the whole labelled corpus. It asserts nothing; the budget
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

interface Row { messages: ChatMessage[] }
const corpus: Row[] = readFileSync(path.join(here, '../fixtures/classifier/corpus.jsonl'), 'utf8')
  .trim().split('\n').map((l) => JSON.parse(l) as Row);

function textOf(m: ChatMessage): string {
  return typeof m.content === 'string' ? m.content : '';
}

/** Real prompt text from the corpus, concatenated until it is `chars` long: prose, code and traces mixed. */
function pasted(chars: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i = (i + 7) % corpus.length) {
    const t = corpus[i]!.messages.map(textOf).join('\n\n');
    if (t.length === 0) continue;
    parts.push(t);
    n += t.length + 2;
  }
  return parts.join('\n\n').slice(0, chars);
}

const cases: Array<{ name: string; messages: ChatMessage[] }> = [
  { name: 'short (65 chars)', messages: [{ role: 'user', content: 'write a python function that checks if a string is a palindrome' }] },
  {
    name: '2k tokens (~8,000 chars)',
    messages: [{ role: 'user', content: `Summarize the following for the team and list open questions:\n\n${pasted(8_000)}` }],
  },
  {
    name: '20k tokens (~80,000 chars)',
    messages: [{ role: 'user', content: `${pasted(80_000)}\n\nWhat does this error mean and how do I fix it?` }],
  },
  {
    name: 'chat: system + 12 turns (~8,000 chars)',
    messages: [
      { role: 'system', content: pasted(1_500) },
      ...Array.from({ length: 12 }, (_, i): ChatMessage => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: pasted(500 + 50 * i) })),
      { role: 'user', content: 'make it faster' },
    ],
  },
];

function time(messages: ChatMessage[], iterations: number): number {
  let sink = 0;
  for (let i = 0; i < Math.min(2_000, iterations); i++) sink += classify(messages).taskConfidence; // warm up
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) sink += classify(messages).taskConfidence;
  const us = ((performance.now() - t0) * 1000) / iterations;
  if (sink < 0) console.log(sink); // keep the work observable
  return us;
}

console.log(`classifier: ${ITERATIONS} iterations per case (Node ${process.version})\n`);
const rows: Array<[string, string, string]> = [];
for (const c of cases) {
  const chars = c.messages.reduce((n, m) => n + textOf(m).length, 0);
  const us = time(c.messages, ITERATIONS);
  const result = classify(c.messages);
  rows.push([`${c.name}`, `${us.toFixed(2)} us`, `${chars} chars -> ${result.taskType}/${result.complexity}`]);
}
{
  let sink = 0;
  const rounds = Math.max(1, Math.round(ITERATIONS / corpus.length));
  for (const r of corpus) sink += classify(r.messages).taskConfidence;
  const t0 = performance.now();
  for (let k = 0; k < rounds; k++) for (const r of corpus) sink += classify(r.messages).taskConfidence;
  const us = ((performance.now() - t0) * 1000) / (rounds * corpus.length);
  if (sink < 0) console.log(sink);
  rows.push([`corpus mean (${corpus.length} prompts)`, `${us.toFixed(2)} us`, 'mixed']);
}
const w0 = Math.max(...rows.map((r) => r[0].length));
const w1 = Math.max(...rows.map((r) => r[1].length));
for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`);
console.log(`\nbudget: well under ${BUDGET_US} us for a 2,000-token prompt`);
