import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { forgetRawJson } from '../../providers/raw-json.js';
import type { ChatCompletion } from '../../providers/types.js';
import { newId, nowSeconds } from '../../providers/util.js';

// The exact-match cache: in memory, per process, 1000 entries, 5 minutes, least recently used out.
// Keyed on tenant, provider, model, messages and every other field that changes the answer (tools,
// response_format, max_tokens, ...): two requests differing only in those must not share an answer.
// Entries are never shared between tenants: the tenant id is part of the key.

export interface CachedCompletion {
  completion: ChatCompletion;
  inputTokens: number;
  outputTokens: number;
}

export interface ExactCacheOptions {
  maxEntries?: number;
  ttlMs?: number;
}

/** Fields that never change the answer, left out of the key. */
const NOT_IN_KEY = new Set([
  'model',
  'stream',
  'stream_options',
  'cache',
  'user',
  'metadata',
  'routing_hint',
  'complexity_hint',
  'requires_structured_output',
  'prompt_version_id',
  'store',
]);

export class ExactCache {
  private readonly lru: LRUCache<string, CachedCompletion>;

  constructor(opts: ExactCacheOptions = {}) {
    this.lru = new LRUCache({ max: opts.maxEntries ?? 1000, ttl: opts.ttlMs ?? 5 * 60_000 });
  }

  /**
   * The key for a call, or null when the body cannot be serialised (nested too deep for
   * JSON.stringify): such a call is simply not cached, and the request is refused further on.
   */
  static key(tenantId: string, provider: string, model: string, body: Record<string, unknown>): string | null {
    const h = createHash('sha256');
    h.update(tenantId).update('\0').update(provider).update('\0').update(model).update('\0');
    for (const k of Object.keys(body).sort()) {
      if (NOT_IN_KEY.has(k)) continue;
      const text = serialised(body[k]);
      if (text === null) return null;
      h.update(k).update('\0').update(text).update('\0');
    }
    return h.digest('base64url');
  }

  /**
   * The entry for `key`, its completion a replay of its own: a fresh `id` and `created`, as every
   * OpenAI answer has (clients that store answers by id must not merge two calls). The stored
   * completion is shared and never changed.
   */
  get(key: string): CachedCompletion | undefined {
    const entry = this.lru.get(key);
    if (!entry) return undefined;
    const completion: ChatCompletion = { ...entry.completion, id: newId('chatcmpl-'), created: nowSeconds() };
    // The stored answer's JSON text says the old id: the replay is encoded anew.
    forgetRawJson(completion);
    return { ...entry, completion };
  }

  /** Forgets every answer: the provider behind a name changed (the built-in simulator stood in for it). */
  clear(): void {
    this.lru.clear();
  }

  /** Keeps an answer worth replaying (see worthReplaying); others are not stored. */
  set(key: string, value: CachedCompletion): void {
    if (worthReplaying(value.completion)) this.lru.set(key, value);
  }
}

/**
 * Whether an answer may be served again from the cache: not one a filter withheld or the model
 * refused (the same request may be answered on a retry, or by another model, as Anthropic advises
 * for its refusals), nor one with nothing in it (a thinking model that spent its whole token limit
 * before answering): replayed for the cache's lifetime, either would stand in for an answer.
 */
export function worthReplaying(completion: ChatCompletion): boolean {
  for (const c of completion.choices) {
    if (c.finish_reason === 'content_filter' || c.message.refusal) return false;
    const m = c.message as ChatCompletion['choices'][number]['message'] & { function_call?: unknown; audio?: unknown };
    if ((m.content === null || m.content === '') && !m.tool_calls?.length && !m.function_call && !m.audio) return false;
  }
  return completion.choices.length > 0;
}

/** JSON text of a body field ('' for undefined), or null when it cannot be serialised. */
function serialised(v: unknown): string | null {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return null;
  }
}
