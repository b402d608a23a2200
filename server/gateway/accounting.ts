import { performance } from 'node:perf_hooks';
import { UNPRINTABLE } from '../../contracts/unprintable.js';
import { costOfTokens } from '../providers/pricing.js';
import type { Usage } from '../providers/types.js';
import { tokenSplit } from '../providers/usage.js';
import type { CostLogRow, LogWriter, RequestLogRow } from './log-writer.js';
import { priceBook } from './price-book.js';
import type { CallMeta, ChatCall, RoutedBy, RoutingCell, RoutingDecision, StreamHeadMeta, Target } from './types.js';

// Turning upstream calls into cost rows and a finished call into its request row.

export const ZERO_USAGE: Usage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/**
 * A call's cost row: its tokens split by the kinds the provider bills separately (usage.ts), each
 * at its rate for the workspace (price-book.ts: its negotiated price, the deployment's, or the
 * list price), at the long-context or service-tier rates where they apply. Models missing from
 * the pricing table cost 0 (and local models are free).
 */
export function costRow(call: ChatCall, target: Target, usage: Usage, status: 'ok' | 'error'): CostLogRow {
  const split = tokenSplit(usage);
  const price = priceBook.priceFor(call.tenantId, target.model, target.provider);
  // Twelve decimals, as stored: keeps float noise out of responses and sums.
  const cost = price ? Math.round(costOfTokens(price, split) * 1e12) / 1e12 : 0;
  return {
    tenantId: call.tenantId,
    requestId: call.requestId,
    tokenId: call.tokenId,
    provider: target.provider,
    model: target.model,
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cachedInputTokens: split.cachedInput,
    cacheWrite5mTokens: split.cacheWrite5m,
    cacheWrite1hTokens: split.cacheWrite1h,
    serviceTier: split.serviceTier,
    cost,
    status,
    createdAt: new Date(),
    // Numbered by the log writer; present from the start so every row has one shape.
    seq: 0,
    // Set when the call is logged (inCell), once routing has settled the cell.
    taskType: null,
    complexity: null,
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
    endpoint: call.endpoint ?? 'chat',
  };
}

export function buildMeta(
  call: ChatCall,
  o: Outcome,
  cost: number,
  errors: CallMeta['errors'],
  upstreamMs = 0,
): CallMeta {
  return {
    requestId: call.requestId,
    provider: o.served?.provider ?? o.decision.provider,
    model: o.served?.model ?? o.decision.model,
    latencyMs: o.cached ? 0 : Math.round(o.latencyMs * 10) / 10,
    cached: o.cached,
    cacheType: o.cacheType,
    cost,
    usage: o.usage,
    routing: routingOf(o.decision),
    errors,
    upstreamMs,
  };
}

/**
 * What a stream's response head reports: its cost and latency are not known until its end (they
 * travel in the last frame), so the head has neither, rather than zeros.
 */
export function streamHeadMeta(
  call: ChatCall,
  decision: RoutingDecision,
  served: Target,
  cacheType: CallMeta['cacheType'],
  errors: CallMeta['errors'],
  upstreamMs: number,
): StreamHeadMeta {
  return {
    requestId: call.requestId,
    provider: served.provider,
    model: served.model,
    cached: cacheType !== null,
    cacheType,
    routing: routingOf(decision),
    errors,
    upstreamMs,
  };
}

function routingOf(d: RoutingDecision): CallMeta['routing'] {
  const routing: CallMeta['routing'] = {
    taskType: d.taskType,
    complexity: d.complexity,
    routedBy: d.routedBy,
    usedFallback: d.usedFallback,
    usedLlmFallback: d.usedLlmFallback,
  };
  // Set only for A/B-routed calls (no spread: see upstreamBody in upstream-body.ts).
  if (d.abTestId) {
    routing.abTestId = d.abTestId;
    if (d.variant !== undefined) routing.variant = d.variant;
  }
  return routing;
}

/**
 * Log the call: one request row, plus `costs`: the cost rows of the calls made on its behalf (the
 * LLM classifier's) and of its real upstream calls. Returns their USD total, which is what the call cost.
 */
export function logCall(writer: LogWriter, call: ChatCall, outcome: Outcome, costs: CostLogRow[]): number {
  const usd = charge(call, costs);
  // The gateway's own calls (judge, evals, regression replays) are no cell's traffic, even when
  // routed like one: spend per cell, and the recommendations drawn from it, leave them out.
  if (!call.costOnly) inCell(costs, outcome.decision);
  if (call.costOnly) writer.writeCosts(costs);
  else writer.write(requestRow(call, outcome), costs, promptPreview(call));
  return usd;
}

/**
 * Log a call that failed before any target was chosen (a pinned model nobody serves, no capable
 * model): an error row naming no provider, and the classifier's cost if it was consulted (`costs`).
 * `cell`: what routing had settled before it failed (the classified or hinted cell), when it got that far.
 */
export function logUnrouted(
  writer: LogWriter,
  call: ChatCall,
  routedBy: RoutedBy,
  errorType: string,
  streamed: boolean,
  cell: RoutingCell | null = null,
  costs: CostLogRow[] = [],
): void {
  charge(call, costs);
  if (call.costOnly) {
    if (costs.length > 0) writer.writeCosts(costs);
    return;
  }
  const decision: RoutingDecision = cell
    ? {
        provider: '',
        model: '',
        routedBy: cell.routedBy,
        taskType: cell.taskType,
        complexity: cell.complexity,
        usedFallback: false,
        usedLlmFallback: cell.usedLlmFallback,
      }
    : {
        provider: '',
        model: '',
        routedBy,
        taskType: null,
        complexity: null,
        usedFallback: false,
        usedLlmFallback: false,
      };
  const row = requestRow(call, {
    decision,
    served: null,
    latencyMs: performance.now() - call.startedAt,
    usage: ZERO_USAGE,
    cached: false,
    cacheType: null,
    streamed,
    status: 'error',
    errorType,
  });
  // No target was chosen: the row names none.
  row.provider = null;
  row.model = null;
  inCell(costs, decision);
  writer.write(row, costs, promptPreview(call));
}

/**
 * Stamps a call's cost rows with the routing cell it was served in, known only once routing is
 * done (the spend rollup groups by it: spend per cell, recommendations).
 */
function inCell(rows: readonly CostLogRow[], d: RoutingDecision): void {
  for (const r of rows) {
    r.taskType = d.taskType;
    r.complexity = d.complexity;
  }
}

/** The USD total of a call's cost rows, told to the call's spend counter. */
function charge(call: ChatCall, rows: readonly CostLogRow[]): number {
  let usd = 0;
  for (const c of rows) usd += c.cost;
  // Twelve decimals, as each row is stored: no float noise from the sum.
  usd = Math.round(usd * 1e12) / 1e12;
  if (usd > 0) call.onCost?.(usd);
  return usd;
}

const PREVIEW_CHARS = 120;
/**
 * What the preview folds into one space: whitespace other than a single space, and control and
 * direction-override characters. The preview goes to terminals and dashboards (the live tap), where
 * an escape sequence in a prompt could clear a screen or disguise the text around it.
 */
const FOLDABLE = new RegExp(`[^\\S ]| {2}|[${UNPRINTABLE}]`);
const FOLDED_RUNS = new RegExp(`[\\s${UNPRINTABLE}]+`, 'g');

/** The start of the last user message, for the live tap only (never stored). */
export function promptPreview(call: ChatCall): string | null {
  for (let i = call.messages.length - 1; i >= 0; i--) {
    const m = call.messages[i]!;
    if (m.role !== 'user') continue;
    const text =
      typeof m.content === 'string'
        ? m.content
        : (m.content ?? []).map((p) => (p.type === 'text' ? (p as { text: string }).text : `[${p.type}]`)).join(' ');
    // Only the head is ever shown: never scan a long prompt whole on the request path. Most heads
    // have nothing to fold (only single spaces), and are not copied to fold it.
    const head = text.slice(0, PREVIEW_CHARS * 4);
    const flat = (FOLDABLE.test(head) ? head.replace(FOLDED_RUNS, ' ') : head).trim();
    return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
  }
  return null;
}
