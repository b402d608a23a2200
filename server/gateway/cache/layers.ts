import type { ChatCompletion, Usage } from '../../providers/types.js';
import type { ChatCall, Target } from '../types.js';
import type { CachedCompletion, ExactCache } from './exact-cache.js';
import type { SemanticCache, SemanticMiss } from './semantic/semantic-cache.js';

// The two cache layers in the order SPEC gives them: the exact cache first, then, on a miss, the
// semantic cache. A call is looked up only when it is cache-eligible (its exact key is set).

export interface CacheLookup {
  hit?: CachedCompletion;
  cacheType?: 'exact' | 'semantic';
  /** A semantic miss: what storing the answer needs (its embedding is not asked again). */
  semanticMiss?: SemanticMiss;
}

const NONE: CacheLookup = {};

export class CacheLayers {
  constructor(
    readonly exact: ExactCache | null,
    readonly semantic: SemanticCache | null,
  ) {}

  /** Synchronous unless the semantic layer has to embed the last user turn. */
  lookup(call: ChatCall, target: Target, exactKey: string | null): CacheLookup | Promise<CacheLookup> {
    if (exactKey === null) return NONE;
    const hit = this.exact?.get(exactKey);
    if (hit) return { hit, cacheType: 'exact' };
    if (!this.semantic) return NONE;
    return this.semantic.lookup(call, target).then((found) => {
      if (!found) return NONE;
      return 'hit' in found ? { hit: found.hit, cacheType: 'semantic' } : { semanticMiss: found.miss };
    });
  }

  /** Keeps the requested target's own answer in both layers. */
  store(
    call: ChatCall,
    target: Target,
    exactKey: string | null,
    found: CacheLookup,
    completion: ChatCompletion,
    usage: Usage,
  ): void {
    if (exactKey === null) return;
    this.exact?.set(exactKey, {
      completion,
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
    });
    if (found.semanticMiss) this.semantic?.store(call, target, found.semanticMiss, completion, usage);
  }
}
