import {
  capabilitiesFor,
  isReasoningModel,
  isStructuredOutputReliable,
  modelTier,
} from '../../providers/capabilities.js';
import { priceFor } from '../../providers/pricing.js';
import type { ProviderRegistry, RoutableTarget } from '../../providers/registry.js';
import { GatewayError } from '../../lib/errors.js';
import type { Target } from '../types.js';

// Resolving a pinned model to a target, and the fallback order behind a target.

export interface Needs {
  vision: boolean;
  tools: boolean;
  json: boolean;
  /** Structured-output narrowing: only STRUCTURED_OUTPUT_RELIABLE models qualify. */
  structured: boolean;
}

/**
 * `provider/model` pins both when `provider` is a registered provider name; anything else is a
 * bare model id (which may itself contain slashes, as OpenRouter ids do) served by the first
 * active provider that lists it.
 */
export function resolvePinned(registry: ProviderRegistry, model: string): Target {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const provider = registry.get(model.slice(0, slash));
    if (provider) {
      const id = model.slice(slash + 1);
      if (provider.active && provider.models.includes(id)) return { provider: provider.name, model: id };
      throw new GatewayError('not_found_error', `Model '${id}' is not served by provider '${provider.name}'`);
    }
  }
  const serving = registry.providersFor(model);
  if (serving.length === 0)
    throw new GatewayError(
      'not_found_error',
      `Model '${model}' is not served by any registered provider (GET /v1/models lists them)`,
    );
  return { provider: serving[0]!.name, model };
}

/**
 * The fallback rule: after the primary, (1) other providers serving the same model id, then
 * (2) equivalent models: the same tier in the catalog with the capabilities the request needs,
 * cheapest first. At most `max` targets in all, the primary included.
 */
export function candidatesFor(registry: ProviderRegistry, primary: Target, needs: Needs, max: number): Target[] {
  // The answer depends only on the registry view, the target and the needs: cache it per view.
  // Per registry too: each gateway node in one process (tests, benchmarks) has its own, and two
  // registries can be at the same version with different providers.
  // The last one used is at hand: a process has one registry, bar tests.
  let memo = lastMemo?.registry === registry ? lastMemo : memos.get(registry);
  if (!memo || memo.version !== registry.version) {
    memo = { registry, version: registry.version, targets: new Map() };
    memos.set(registry, memo);
  }
  lastMemo = memo;
  const key = `${primary.provider}\0${primary.model}\0${+needs.vision}${+needs.tools}${+needs.json}${+needs.structured}\0${max}`;
  const hit = memo.targets.get(key);
  if (hit) return hit;
  const computed = computeCandidates(registry, primary, needs, max);
  if (memo.targets.size < 10_000) memo.targets.set(key, computed);
  return computed;
}

interface Memo {
  registry: ProviderRegistry;
  version: number;
  targets: Map<string, Target[]>;
}
const memos = new WeakMap<ProviderRegistry, Memo>();
let lastMemo: Memo | undefined;

function computeCandidates(registry: ProviderRegistry, primary: Target, needs: Needs, max: number): Target[] {
  const out: Target[] = [{ provider: primary.provider, model: primary.model }];
  const seen = new Set([`${primary.provider}\0${primary.model}`]);
  const add = (t: Target) => {
    const k = `${t.provider}\0${t.model}`;
    if (out.length < max && !seen.has(k)) {
      seen.add(k);
      out.push(t);
    }
  };
  for (const p of registry.providersFor(primary.model)) add({ provider: p.name, model: primary.model });
  const tier = modelTier(primary.model, primary.provider);
  if (!tier || out.length >= max) return out;
  const equivalents = registry
    .targets()
    .filter((t) => t.model !== primary.model && modelTier(t.model, t.provider) === tier && satisfies(t, needs))
    .sort((a, b) => blendedPrice(a) - blendedPrice(b));
  for (const t of equivalents) add(t);
  return out;
}

export function satisfies(t: RoutableTarget, needs: Needs): boolean {
  if (needs.structured && !isStructuredOutputReliable(t.model)) return false;
  const caps = t.capabilities ?? capabilitiesFor(t.model, t.provider);
  return (!needs.vision || caps.vision) && (!needs.tools || caps.tools) && (!needs.json || caps.json);
}

/** Price of a typical call (3 input tokens per output token); unknown prices sort last. */
export function blendedPrice(t: Target): number {
  const p = priceFor(t.model, t.provider);
  return p ? (3 * p.input + p.output) / 4 : Number.POSITIVE_INFINITY;
}

/**
 * The cheapest priced target available now (the judge's default grader, which asks for a
 * one-number answer), as `provider/model`: one that answers without hidden reasoning, under a
 * small token limit, when there is any; else the cheapest that reasons (most current models do),
 * which the judge gives room to think.
 */
export function cheapestTarget(registry: ProviderRegistry): string | null {
  const priced = registry
    .targets()
    .filter((t) => Number.isFinite(blendedPrice(t)))
    .sort((a, b) => blendedPrice(a) - blendedPrice(b));
  const best = priced.find((t) => !isReasoningModel(t.model, t.provider)) ?? priced[0];
  return best ? `${best.provider}/${best.model}` : null;
}
