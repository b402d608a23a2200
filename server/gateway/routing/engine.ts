import { GatewayError } from '../../lib/errors.js';
import type { Classification } from '../classifier/index.js';
import type { ChatMessage } from '../../providers/types.js';
import type { CostLogRow } from '../log-writer.js';
import type { ChatCall, Complexity, RoutedBy, RoutingCell, RoutingDecision, Target, TaskType } from '../types.js';
import { weightedIndex, type Random } from '../../lib/random.js';
import { explorationPick, hasEvidence, rank, thompsonPick, type Scored, type ScoringPolicy } from './scoring.js';
import type { ActiveAbTest, RoutingState } from './state.js';
import type { RoutingResult, RoutingStrategy } from './strategy.js';
import { satisfies, type Needs } from './targets.js';

// The routing stages for a request with an empty model (a pinned model never reaches here):
// routing hint / pre-label headers, classifier (optionally an LLM when unsure), structured-output
// narrowing, A/B test on the cell, adaptive score-based pick, exploration.

/**
 * Asks a model for the cell. Undefined when no call was answered (nothing to pay); otherwise the
 * call's cost row, and its labels when its answer could be read (if not, the classifier's stand).
 */
export type LlmClassifier = (
  call: ChatCall,
  messages: readonly ChatMessage[],
) => Promise<{ labels: { taskType: TaskType; complexity: Complexity } | undefined; cost: CostLogRow } | undefined>;

export interface RoutingEngineOptions {
  state: RoutingState;
  classify: (messages: readonly ChatMessage[]) => Classification;
  lowConfidence: number;
  llmClassify?: LlmClassifier;
  explorationRate: number;
  abTestPreempts: boolean;
  policy: ScoringPolicy;
  random: Random;
  /** Observed latency per target, for tie-breaks. */
  latencyOf?: (t: Target) => number;
}

/**
 * The adaptive pick draws from posteriors narrowed to this share of their spread: a draw, so a
 * model left in doubt by its scores keeps some traffic, but mostly the best estimate, since
 * exploration's share makes the wide draws. Chosen on the routing bench (test/bench/routing.bench.ts):
 * the full spread spends more on doubtful dear models for no gain in quality.
 */
const ADAPTIVE_SPREAD = 0.35;

export class RoutingEngine implements RoutingStrategy {
  constructor(private readonly opts: RoutingEngineOptions) {}

  async route(call: ChatCall, needs: Needs, targets: readonly Target[]): Promise<RoutingResult> {
    const costs: CostLogRow[] = [];
    const cell = await this.cell(call, costs);
    const candidates = targets.filter((t) => satisfies(t, needs));
    if (candidates.length === 0) {
      const error = needs.structured
        ? new GatewayError(
            'no_capable_provider',
            'This request needs structured output and no registered provider has a model in STRUCTURED_OUTPUT_RELIABLE',
            { retryable: false },
          )
        : new GatewayError('provider_error', 'No registered provider has a model that can serve this request');
      return { decision: null, error, cell, costs };
    }

    const stats = this.opts.state.cellQuality(call.tenantId, cell.taskType, cell.complexity);
    const ranked = rank(candidates, cell.complexity, stats, this.opts.policy, this.opts.latencyOf);
    const adaptiveHasEvidence = hasEvidence(ranked);

    const ab = this.abTestPick(call.tenantId, cell, candidates);
    if (ab && (this.opts.abTestPreempts || !adaptiveHasEvidence)) {
      // SPEC.md: the classifier counts as bypassed for A/B-routed requests, so task fields are null.
      return {
        decision: {
          ...ab.target,
          routedBy: 'ab-test',
          taskType: null,
          complexity: null,
          usedFallback: false,
          usedLlmFallback: cell.usedLlmFallback,
          abTestId: ab.test.id,
          variant: `${ab.target.provider}/${ab.target.model}`,
        },
        costs,
      };
    }

    const migrated = this.migrationPick(call.tenantId, cell, ranked);
    if (migrated) return { decision: migrated, costs };

    // Once the cell has evidence, the adaptive pick is a draw from the posteriors (Thompson
    // sampling, thompsonPick): a model whose scores leave it in doubt keeps getting some traffic
    // until they settle it, instead of waiting for exploration's share. Before, the priors decide.
    const top = adaptiveHasEvidence
      ? thompsonPick(ranked, cell.complexity, this.opts.policy, this.opts.random, ADAPTIVE_SPREAD)
      : ranked[0]!;
    const explored = this.explore(ranked, top, cell.complexity);
    const routedBy: RoutedBy = explored ? 'exploration' : adaptiveHasEvidence ? 'adaptive' : cell.routedBy;
    const chosen = explored ?? top;
    return {
      decision: {
        provider: chosen.provider,
        model: chosen.model,
        routedBy,
        taskType: cell.taskType,
        complexity: cell.complexity,
        usedFallback: false,
        usedLlmFallback: cell.usedLlmFallback,
      },
      costs,
    };
  }

  /**
   * A cost migration on the cell: its model is the pick (when it can serve the request), but for
   * exploration's share, which the grace boost gives it too. Undefined: adaptive routing decides.
   */
  private migrationPick(tenantId: string, cell: RoutingCell, ranked: Scored[]): RoutingDecision | undefined {
    const m = this.opts.state.cellMigration(tenantId, cell.taskType, cell.complexity);
    if (!m) return undefined;
    const target = ranked.find((s) => s.provider === m.provider && s.model === m.model);
    if (!target) return undefined;
    const explored = m.boosted ? undefined : this.explore(ranked, target, cell.complexity);
    const chosen = explored ?? target;
    return {
      provider: chosen.provider,
      model: chosen.model,
      routedBy: explored ? 'exploration' : 'adaptive',
      taskType: cell.taskType,
      complexity: cell.complexity,
      usedFallback: false,
      usedLlmFallback: cell.usedLlmFallback,
    };
  }

  /**
   * The request's routing cell: hints first (each dimension on its own), the classifier for the
   * rest. The LLM classifier's cost row, when it was asked, is added to `costs`.
   */
  private async cell(call: ChatCall, costs: CostLogRow[]): Promise<RoutingCell> {
    const hintedTask = call.body.routing_hint ?? call.headerHints.taskType;
    const hintedComplexity = call.body.complexity_hint ?? call.headerHints.complexity;
    if (hintedTask && hintedComplexity)
      return { taskType: hintedTask, complexity: hintedComplexity, routedBy: 'routing-hint', usedLlmFallback: false };

    const c = this.opts.classify(call.messages);
    let taskType = c.taskType;
    let complexity = c.complexity;
    let usedLlmFallback = false;
    const unsure =
      (!hintedTask && c.taskConfidence < this.opts.lowConfidence) ||
      (!hintedComplexity && c.complexityConfidence < this.opts.lowConfidence);
    if (unsure && this.opts.llmClassify) {
      const llm = await this.opts.llmClassify(call, call.messages).catch(() => undefined);
      if (llm) {
        costs.push(llm.cost);
        if (llm.labels) {
          taskType = llm.labels.taskType;
          complexity = llm.labels.complexity;
        }
      }
      // Consulted is what the flag says (and what the call was charged for), whether its answer
      // could be read or the in-process labels stood.
      usedLlmFallback = llm !== undefined;
    }
    return {
      taskType: hintedTask ?? taskType,
      complexity: hintedComplexity ?? complexity,
      routedBy: hintedTask || hintedComplexity ? 'routing-hint' : 'classification',
      usedLlmFallback,
    };
  }

  /** The newest active test scoped to this cell, and a weighted pick among its available variants. */
  private abTestPick(
    tenantId: string,
    cell: RoutingCell,
    candidates: Target[],
  ): { test: ActiveAbTest; target: Target } | undefined {
    const available = new Set(candidates.map((t) => `${t.provider}/${t.model}`));
    for (const test of this.opts.state.activeAbTests(tenantId)) {
      const variants = test.variants.filter(
        (v) =>
          (v.taskType ?? test.taskType ?? cell.taskType) === cell.taskType &&
          (v.complexity ?? test.complexity ?? cell.complexity) === cell.complexity &&
          available.has(`${v.provider}/${v.model}`),
      );
      if (variants.length === 0) continue;
      const v =
        variants[
          weightedIndex(
            variants.map((x) => x.weight),
            this.opts.random,
          )
        ]!;
      return { test, target: { provider: v.provider, model: v.model } };
    }
    return undefined;
  }

  /**
   * With probability explorationRate, a non-top candidate, chosen by drawing from the candidates'
   * posteriors (explorationPick): the samples go where a score can change the decision, a
   * candidate whose posterior overlaps the best, cheap or dear, and move on as scores settle it. A
   * uniform pick, or one that favours cheap models, spends them on models already ruled out and
   * never learns that a dear model is much better on a cell.
   */
  private explore(ranked: Scored[], chosen: Scored, complexity: Complexity): Scored | undefined {
    if (ranked.length < 2 || this.opts.explorationRate <= 0 || this.opts.random() >= this.opts.explorationRate)
      return undefined;
    return explorationPick(ranked, chosen, complexity, this.opts.policy, this.opts.random);
  }
}
