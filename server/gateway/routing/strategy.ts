import type { ChatCall, RoutingDecision, Target } from '../types.js';
import type { Needs } from './targets.js';

/** The seam for requests with an empty `model`: the routing stages decide the target. */
export interface RoutingStrategy {
  /** `targets`: every (provider, model) routable now. */
  route(call: ChatCall, needs: Needs, targets: readonly Target[]): RoutingDecision | Promise<RoutingDecision>;
}
