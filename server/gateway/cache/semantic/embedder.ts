import { performance } from 'node:perf_hooks';
import { type EmbeddingsBody, embed } from '../../embeddings.js';
import type { ChatPipeline } from '../../pipeline.js';
import type { ChatCall } from '../../types.js';
import type { EmbeddingTarget } from './embedding-model.js';
import type { Embed } from './semantic-cache.js';

// The semantic cache's embedding call: through the same core as POST /v1/embeddings (breakers,
// fallback to another provider of the model, cost), as a call of the gateway's own on behalf of
// the chat request: one cost row under request id semcache-<request id>, with the request's token
// (it is spent for that token's call), and no request row, so request counts and the chat call's
// own cost stay as SPEC defines them (a cache hit's chat request writes no cost row).

export function semanticEmbedder(pipeline: () => ChatPipeline): Embed {
  return async (call: ChatCall, target: EmbeddingTarget, text: string) => {
    const body: EmbeddingsBody = {
      model: `${target.provider}/${target.model}`,
      input: text,
      ...(target.dimensions ? { dimensions: target.dimensions } : {}),
    };
    const own: ChatCall = {
      requestId: `semcache-${call.requestId}`,
      tenantId: call.tenantId,
      tokenId: call.tokenId,
      body: call.body,
      messages: [{ role: 'user', content: text }],
      headerHints: {},
      signal: call.signal,
      startedAt: performance.now(),
      createdAt: new Date(),
      costOnly: true,
    };
    const { response } = await embed(pipeline(), own, body);
    const raw = response.data[0]?.embedding;
    if (!Array.isArray(raw) || raw.length === 0) throw new Error('the embedding answer held no vector');
    return unit(raw);
  };
}

/** The vector scaled to length 1 (providers mostly send unit vectors already; not all do). */
function unit(v: number[]): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}
