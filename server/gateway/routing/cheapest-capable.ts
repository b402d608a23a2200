import { GatewayError } from '../../lib/errors.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChatCall, RoutingDecision } from '../types.js';
import type { RoutingStrategy } from './strategy.js';
import { blendedPrice, satisfies, type Needs } from './targets.js';

/**
 * The baseline strategy for an empty `model`: the cheapest active model with the capabilities the
 * request needs. No classification happens here, so the task fields stay null.
 */
export class CheapestCapableStrategy implements RoutingStrategy {
  route(_call: ChatCall, needs: Needs, registry: ProviderRegistry): RoutingDecision {
    const best = registry
      .targets()
      .filter((t) => satisfies(t, needs) && Number.isFinite(blendedPrice(t)))
      .sort((a, b) => blendedPrice(a) - blendedPrice(b))[0] ?? registry.targets()[0];
    if (!best) throw new GatewayError('provider_error', 'No provider is available to route this request');
    return { ...best, routedBy: 'classification', taskType: null, complexity: null, usedFallback: false, usedLlmFallback: false };
  }
}
