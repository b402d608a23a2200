// Semantic cache benchmark: the in-memory lookup (excluding the embedding call) with 100,000
// entries for one workspace in one partition (one system prompt and model: the worst case, since
// only requests with the same context are compared), and the memory each entry takes. It asserts
// nothing.
//
//   npm run bench:semantic-cache            (BENCH_ENTRIES, BENCH_DIMENSIONS, BENCH_LOOKUPS to change)

import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { SemanticCache } from '../../server/gateway/cache/semantic/semantic-cache.js';
import type { SemanticCacheStore, StoredEntry } from '../../server/gateway/cache/semantic/store.js';
import { createLogger } from '../../server/lib/logger.js';
import type { ChatCall } from '../../server/gateway/types.js';
import { unitVector as unitVectorOf } from '../support/unit-vector.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const DIMENSIONS = Number(process.env.BENCH_DIMENSIONS ?? 256);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 2_000);
const log = (line: string) => process.stdout.write(`${line}\n`);

const unitVector = (seed: number) => unitVectorOf(seed, DIMENSIONS);

const completion = (i: number) => ({
  id: `chatcmpl-${i}`,
  object: 'chat.completion' as const,
  created: 0,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant' as const, content: `Answer number ${i}, a sentence or two long.` },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 },
});

async function main(): Promise<void> {
  const body = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'x' }] };
  // The rows a workspace load reads, made up in memory (the store is what Postgres would return).
  let contextKey = '';
  const rows = (): StoredEntry[] =>
    Array.from({ length: ENTRIES }, (_, i) => ({
      id: i + 1,
      tenantId: 't',
      provider: 'openai',
      model: 'gpt-4o-mini',
      contextKey,
      embedding: unitVector(i + 1),
      completion: completion(i) as never,
      inputTokens: 20,
      outputTokens: 12,
      expiresAt: new Date(Date.now() + 3_600_000),
    }));
  let query = unitVector(1);
  let stored: StoredEntry[] = [];
  const store = {
    load: async () => stored,
    purgeExpired: async () => 0,
  } as unknown as SemanticCacheStore;
  const cache = new SemanticCache({
    store,
    embed: async () => query,
    embeddingTarget: () => ({ provider: 'openai', model: 'text-embedding-3-small', dimensions: DIMENSIONS }),
    threshold: 0.97,
    ttlMs: 3_600_000,
    maxEntries: ENTRIES,
    logger: createLogger('silent'),
    loadWaitMs: 600_000,
  });
  const call = {
    requestId: 'req_bench',
    tenantId: 't',
    tokenId: null,
    body,
    messages: body.messages,
    headerHints: {},
  } as unknown as ChatCall;
  const { semanticParts } = await import('../../server/gateway/cache/semantic/request-parts.js');
  contextKey = semanticParts('t', 'openai', 'gpt-4o-mini', body as never, body.messages)!.contextKey;
  global.gc?.();
  const before = process.memoryUsage();
  // The rows (what PostgreSQL would return) are made before the load is timed, after memory is
  // read: an entry keeps its row's vector and answer.
  stored = rows();
  const loadStart = performance.now();
  // Every other request waits while the event loop is held: the longest hold while loading.
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  await cache.lookup(call, { provider: 'openai', model: 'gpt-4o-mini' });
  stalls.disable();
  const loadMs = performance.now() - loadStart;
  global.gc?.();
  const after = process.memoryUsage();
  const bytes = after.rss - before.rss;

  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < LOOKUPS; i++) {
    // Half are near-duplicates of a stored entry (hits), half are new (misses).
    query = i % 2 === 0 ? unitVector(1 + ((i * 7919) % ENTRIES)) : unitVector(ENTRIES + 10 + i);
    const t = performance.now();
    const found = await cache.lookup(call, { provider: 'openai', model: 'gpt-4o-mini' });
    times.push(performance.now() - t);
    if (found && 'hit' in found) hits++;
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
  log(`semantic cache: ${ENTRIES.toLocaleString('en-US')} entries of ${DIMENSIONS} dimensions in one partition`);
  log(
    `- load into memory: ${loadMs.toFixed(0)} ms, the event loop held at most ${(stalls.max / 1e6).toFixed(1)} ms at a time`,
  );
  log(
    `- memory: ${(bytes / 1024 / 1024).toFixed(1)} MB RSS, about ${Math.round(bytes / ENTRIES)} bytes per entry (vector, graph links, answer)`,
  );
  log(
    `- lookup (embedding excluded), ${LOOKUPS} lookups, ${hits} hits: p50 ${pct(50).toFixed(3)} ms, p99 ${pct(99).toFixed(3)} ms, max ${pct(100).toFixed(3)} ms (target: p99 < 5 ms)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
