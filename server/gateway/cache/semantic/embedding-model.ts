import { isEmbeddingModel } from '../../../providers/model-kind.js';
import { priceFor } from '../../../providers/pricing.js';
import type { ProviderRegistry } from '../../../providers/registry.js';

// Which model embeds the last user turns: the configured provider/model, else the cheapest priced
// embedding model an active provider with an embeddings endpoint serves (unpriced ones after, a
// local model being free but unknown). Null: no provider can embed, and the layer stays off.

export interface EmbeddingTarget {
  provider: string;
  model: string;
  /** Dimensions to ask for (models that can shorten their vectors), or undefined: the model's own. */
  dimensions: number | undefined;
}

/** OpenAI's text-embedding-3 models return shortened vectors on request (`dimensions`). */
const SHORTENS = /^text-embedding-3-/;

export function chooseEmbeddingModel(
  registry: ProviderRegistry,
  configured: string | undefined,
  dimensions: number,
): EmbeddingTarget | null {
  const candidates = registry
    .servable()
    .filter((t) => isEmbeddingModel(t.model) && registry.get(t.provider)?.adapter.embeddings !== undefined);
  let pick: { provider: string; model: string } | undefined;
  if (configured) {
    const slash = configured.indexOf('/');
    const provider = configured.slice(0, slash);
    const model = configured.slice(slash + 1);
    pick = candidates.find((t) => t.provider === provider && t.model === model);
  } else {
    const price = (t: { provider: string; model: string }) => priceFor(t.model, t.provider)?.input ?? Infinity;
    pick = [...candidates].sort((a, b) => price(a) - price(b))[0];
  }
  if (!pick) return null;
  return { ...pick, dimensions: dimensions > 0 && SHORTENS.test(pick.model) ? dimensions : undefined };
}
