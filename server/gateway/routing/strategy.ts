import type { GatewayError } from '../../lib/errors.js';
import type { CostLogRow } from '../log-writer.js';
import type { ChatCall, RoutingCell, RoutingDecision, Target } from '../types.js';
import type { Needs } from './targets.js';

/** The seam for requests with an empty `model`: the routing stages decide the target. */
export interface RoutingStrategy {
  /**
   * `targets`: every (provider, model) routable now. Returns its result and never writes into
   * `call`: the pipeline logs and charges the call from what it returns.
   */
  route(call: ChatCall, needs: Needs, targets: readonly Target[]): RoutingResult | Promise<RoutingResult>;
}

/** What routing decided, or why it could not; either way what it cost to ask (see RoutingCosts). */
export type RoutingResult = Routed | Unroutable;

export interface RoutingCosts {
  /** Cost rows of the calls routing made on the request's behalf (the LLM classifier's): the call pays them. */
  costs: CostLogRow[];
}

export interface Routed extends RoutingCosts {
  decision: RoutingDecision;
}

/** No target can serve the request. */
export interface Unroutable extends RoutingCosts {
  decision: null;
  /** What the call ends with (no capable model). */
  error: GatewayError;
  /** The cell routing had settled on before it failed: the request row keeps it. */
  cell: RoutingCell | null;
}
