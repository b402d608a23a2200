import { costUsd } from '../providers/pricing.js';
import type { Usage } from '../providers/types.js';
import type { CostLogRow, LogWriter, RequestLogRow } from './log-writer.js';
import type { CallMeta, ChatCall, RoutingDecision, Target } from './types.js';

// Turning upstream calls into cost rows and a finished call into its request row.

export const ZERO_USAGE: Usage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/** USD for a call; models missing from the pricing table cost 0 (and local models are free). */
export function costOf(target: Target, usage: Usage): number {
  const usd = costUsd(target.model, usage.prompt_tokens, usage.completion_tokens, target.provider) ?? 0;
  // Twelve decimals, as stored: keeps float noise out of responses and sums.
  return Math.round(usd * 1e12) / 1e12;
}

export function costRow(call: ChatCall, target: Target, usage: Usage, status: 'ok' | 'error'): CostLogRow {
  return {
    tenantId: call.tenantId,
    requestId: call.requestId,
    tokenId: call.tokenId,
    provider: target.provider,
    model: target.model,
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cost: costOf(target, usage),
    status,
    createdAt: new Date(),
  };
}

export interface Outcome {
  decision: RoutingDecision;
  /** The target that served (or was tried last). */
  served: Target | null;
  latencyMs: number;
  usage: Usage;
  cached: boolean;
  cacheType: 'exact' | 'semantic' | null;
  tokensSaved?: Usage;
  streamed: boolean;
  status: RequestLogRow['status'];
  errorType: string | null;
}

export function requestRow(call: ChatCall, o: Outcome): RequestLogRow {
  const d = o.decision;
  return {
    id: call.requestId,
    tenantId: call.tenantId,
    createdAt: call.createdAt,
    tokenId: call.tokenId,
    latencyMs: o.cached ? 0 : Math.round(o.latencyMs),
    taskType: d.taskType,
    complexity: d.complexity,
    routedBy: d.routedBy,
    provider: o.served?.provider ?? d.provider,
    model: o.served?.model ?? d.model,
    usedFallback: d.usedFallback,
    usedLlmFallback: d.usedLlmFallback,
    cached: o.cached,
    cacheType: o.cacheType,
    tokensSavedInput: o.tokensSaved?.prompt_tokens ?? 0,
    tokensSavedOutput: o.tokensSaved?.completion_tokens ?? 0,
    inputTokens: o.usage.prompt_tokens,
    outputTokens: o.usage.completion_tokens,
    streamed: o.streamed,
    status: o.status,
    errorType: o.errorType,
    abTestId: d.abTestId ?? null,
    variant: d.variant ?? null,
    promptVersionId: call.body.prompt_version_id ?? null,
  };
}

export function buildMeta(call: ChatCall, o: Outcome, cost: number, errors: CallMeta['errors'], upstreamMs = 0): CallMeta {
  const d = o.decision;
  const routing: CallMeta['routing'] = {
    taskType: d.taskType,
    complexity: d.complexity,
    routedBy: d.routedBy,
    usedFallback: d.usedFallback,
    usedLlmFallback: d.usedLlmFallback,
  };
  // Set only for A/B-routed calls (no spread: see upstreamBody in pipeline.ts).
  if (d.abTestId) {
    routing.abTestId = d.abTestId;
    if (d.variant !== undefined) routing.variant = d.variant;
  }
  return {
    requestId: call.requestId,
    provider: o.served?.provider ?? d.provider,
    model: o.served?.model ?? d.model,
    latencyMs: o.cached ? 0 : Math.round(o.latencyMs * 10) / 10,
    cached: o.cached,
    cacheType: o.cacheType,
    cost,
    usage: o.usage,
    routing,
    errors,
    upstreamMs,
  };
}

/** Log the call: one request row, plus the cost rows of its real upstream calls. */
export function logCall(writer: LogWriter, call: ChatCall, outcome: Outcome, costs: CostLogRow[]): void {
  const rows = call.extraCosts ? [...call.extraCosts, ...costs] : costs;
  if (call.onCost) {
    let usd = 0;
    for (const c of rows) usd += c.cost;
    if (usd > 0) call.onCost(usd);
  }
  if (call.costOnly) return writer.writeCosts(rows);
  writer.write(requestRow(call, outcome), rows, promptPreview(call));
}

const PREVIEW_CHARS = 120;
/** Whitespace other than a single space: what the preview folds into one space. */
const FOLDABLE_WHITESPACE = /[^\S ]| {2}/;

/** The start of the last user message, for the live tap only (never stored). */
export function promptPreview(call: ChatCall): string | null {
  for (let i = call.messages.length - 1; i >= 0; i--) {
    const m = call.messages[i]!;
    if (m.role !== 'user') continue;
    const text = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => (p.type === 'text' ? (p as { text: string }).text : `[${p.type}]`)).join(' ');
    // Only the head is ever shown: never scan a long prompt whole on the request path. Most heads
    // have no whitespace to fold (only single spaces), and are not copied to fold it.
    const head = text.slice(0, PREVIEW_CHARS * 4);
    const flat = (FOLDABLE_WHITESPACE.test(head) ? head.replace(/\s+/g, ' ') : head).trim();
    return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
  }
  return null;
}
