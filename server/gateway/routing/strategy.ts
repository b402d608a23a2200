import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChatCall, RoutingDecision } from '../types.js';
import type { Needs } from './targets.js';

/** The seam for requests with an empty `model`: the routing stages decide the target. */
export interface RoutingStrategy {
  route(call: ChatCall, needs: Needs, registry: ProviderRegistry): RoutingDecision | Promise<RoutingDecision>;
}
