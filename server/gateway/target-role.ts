import type { RoutingDecision, Target, TargetRole } from './types.js';

// How a target stands to the call's routing decision: its own target, or a fallback. Shared by the
// chat attempt loop and the embeddings path.

/** Whether `target` is the decision's own target (the plan's first candidate), not a fallback. */
export function isPrimary(decision: RoutingDecision, target: Target): boolean {
  return target.provider === decision.provider && target.model === decision.model;
}

/**
 * Who chose `target`: the caller, who named it in the request; the router; or the fallback rule,
 * after the decision's own target failed. Decides what a refusal of the request means (see
 * classifyFailure in attempts.ts).
 */
export function targetRole(decision: RoutingDecision, target: Target): TargetRole {
  if (!isPrimary(decision, target)) return 'fallback';
  return decision.routedBy === 'user-override' ? 'named' : 'routed';
}

/** The decision with usedFallback set, copied only when it changes. */
export function withFallback(decision: RoutingDecision, usedFallback: boolean): RoutingDecision {
  return decision.usedFallback === usedFallback ? decision : Object.assign({}, decision, { usedFallback });
}
