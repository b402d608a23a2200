import type { z } from 'zod';
import type pg from 'pg';
import type { Database } from '../../db/client.js';
import type { FeedbackRow } from '../../db/schema/index.js';
import type { LogWriter } from '../../gateway/log-writer.js';
import { otherSource } from './counted-feedback.js';
import type { RoutingState } from '../../gateway/routing/state.js';
import { resolvePinned } from '../../gateway/routing/targets.js';
import { isChatModel } from '../../providers/model-kind.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { decodeCursor, keysetPage } from '../../lib/cursor.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId, timeOfId } from '../../lib/ids.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ActorRef, AuditService } from '../audit/service.js';
import { feedbackRepository } from './repository.js';
import type {
  Feedback,
  FeedbackPage,
  JudgeConfig,
  ListFeedbackInput,
  QualityByCell,
  QualityByModel,
  QualityTrend,
  SubmitFeedbackInput,
  TrendInput,
  UpdateJudgeConfigInput,
} from './schemas.js';

type Dto = z.infer<typeof Feedback>;

export interface FeedbackServiceDeps {
  db: Database;
  pool: pg.Pool;
  audit: AuditService;
  routing: RoutingState;
  /** The providers and their models, to check a pinned judge model. */
  registry: ProviderRegistry;
  logWriter: LogWriter;
  minSamples: number;
  /** `provider/model` the judge uses when none is pinned (the cheapest available), or null. */
  cheapestModel: () => string | null;
}

const DEFAULT_JUDGE = { enabled: false, model: null as string | null, sampleRate: 0.05 };
/** A request made this recently may still be on its way to the database from another node. */
const RECENT_MS = 10_000;
const PENDING_WAIT_MS = 2_000;
const PENDING_POLL_MS = 50;
/**
 * Waits for not-yet-written requests a workspace may have at once: anyone can make up a recent id,
 * and each wait polls the database for up to PENDING_WAIT_MS. Beyond this, an id not in the
 * database is a 404 at once.
 */
const MAX_PENDING_WAITS = 8;

const RANGE_MS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

export class FeedbackService {
  /** Waits for recent request ids under way, per workspace (see MAX_PENDING_WAITS). */
  private readonly pendingWaits = new Map<string, number>();

  constructor(private readonly d: FeedbackServiceDeps) {}

  /**
   * The request a score is for. Its row may still be queued in a log writer: this node's is
   * committed at once, and a call made moments ago (its id says when) is looked for again while
   * another node's writer commits it (every GATEWAY_LOG_FLUSH_MS), for up to PENDING_WAIT_MS.
   */
  private async findRequest(tenantId: string, requestId: string) {
    const found = await feedbackRepository.findRequest(this.d.db, tenantId, requestId);
    if (found) return found;
    const made = timeOfId(requestId);
    const waiting = this.pendingWaits.get(tenantId) ?? 0;
    if (made === undefined || Date.now() - made >= RECENT_MS || waiting >= MAX_PENDING_WAITS) return undefined;
    this.pendingWaits.set(tenantId, waiting + 1);
    try {
      await this.d.logWriter.flushNow();
      const deadline = Date.now() + PENDING_WAIT_MS;
      for (;;) {
        const request = await feedbackRepository.findRequest(this.d.db, tenantId, requestId);
        if (request || Date.now() >= deadline) return request;
        await sleep(PENDING_POLL_MS);
      }
    } finally {
      const left = (this.pendingWaits.get(tenantId) ?? 1) - 1;
      if (left > 0) this.pendingWaits.set(tenantId, left);
      else this.pendingWaits.delete(tenantId);
    }
  }

  async submit(tenantId: string, input: z.infer<typeof SubmitFeedbackInput>): Promise<Dto> {
    const score = input.score ?? (input.thumbs === 'up' ? 5 : 1);
    // The schema takes the id as requestId or request_id (one of them, or both the same).
    const requestId = (input.requestId ?? input.request_id)!;
    return this.record(tenantId, requestId, score, 'user', input.comment ?? null);
  }

  /** Store a score (user or judge) and feed it to routing at once. 404 for unknown or foreign ids. */
  async record(
    tenantId: string,
    requestId: string,
    score: number,
    source: 'user' | 'judge',
    comment: string | null,
  ): Promise<Dto> {
    const request = await this.findRequest(tenantId, requestId);
    if (!request) throw notFound('Request', requestId);
    // A failed call has no answer: a score would be credited to a model that produced nothing.
    // A call the client left (client_closed) may have streamed part of one, and can be rated.
    if (request.status === 'error') {
      throw new GatewayError(
        'conflict_error',
        `Request '${requestId}' failed (${request.errorType ?? 'error'}): there is no answer to score`,
      );
    }
    if (request.endpoint !== 'chat')
      throw new GatewayError(
        'conflict_error',
        `Request '${requestId}' is an embeddings call: there is no answer to score`,
      );
    const cell = scoredCell(request);
    // The request row is held (see holdRequest) while the score is written: a deletion of it (log
    // retention) waits for this to commit, so its rollup triggers see the score and take it out;
    // a deletion already under way makes this wait, then find no row (404). Otherwise a score
    // written beside the deletion stayed counted in the hourly rollup for good.
    const written = await this.d.db.transaction(async (tx) => {
      if (!(await feedbackRepository.holdRequest(tx, tenantId, requestId))) return undefined;
      const scores = await feedbackRepository.findForRequest(tx, tenantId, requestId);
      const previous = scores.find((f) => f.source === source);
      const other = scores.find((f) => f.source === otherSource(source));
      const saved = await feedbackRepository.upsert(tx, {
        id: newId('fb'),
        tenantId,
        requestId,
        score,
        source,
        comment,
        provider: request.provider,
        model: request.model,
        taskType: cell.taskType,
        complexity: cell.complexity,
      });
      return { previous, other, saved };
    });
    if (!written) throw notFound('Request', requestId);
    const { previous, other, saved } = written;
    // Routing counts one score per request, the user's over the judge's (counted-feedback.ts):
    // a judge grade on a request the user rated changes nothing there, and a user's first score on
    // a request the judge graded takes the grade's place.
    const counted = source === 'user' || !other;
    if (counted) {
      const replaced = previous?.score ?? (source === 'user' ? other?.score : undefined);
      this.d.routing.addFeedback(tenantId, {
        taskType: cell.taskType,
        complexity: cell.complexity,
        provider: request.provider,
        model: request.model,
        score,
        previousScore: replaced,
      });
    }
    await this.d.routing.announce(this.d.pool, tenantId, { local: false });
    return toDto(saved);
  }

  async list(tenantId: string, input: z.infer<typeof ListFeedbackInput>): Promise<z.infer<typeof FeedbackPage>> {
    const rows = await feedbackRepository.list(this.d.db, tenantId, {
      limit: input.limit + 1,
      requestId: input.requestId,
      source: input.source,
      before: input.cursor ? decodeCursor(input.cursor) : undefined,
    });
    return keysetPage(rows, input.limit, toDto);
  }

  /** Counted scores on one cell and target given since a time (a cost migration's grace evidence). */
  qualitySince(
    tenantId: string,
    q: { taskType: string; complexity: string; provider: string; model: string; since: Date },
  ): Promise<{ samples: number; sum: number; sumSquares: number }> {
    return feedbackRepository.qualitySince(this.d.db, tenantId, q);
  }

  async byModel(tenantId: string): Promise<z.infer<typeof QualityByModel>> {
    return { items: await feedbackRepository.byModel(this.d.db, tenantId) };
  }

  async byCell(tenantId: string): Promise<z.infer<typeof QualityByCell>> {
    return { items: await feedbackRepository.byCell(this.d.db, tenantId), minSamples: this.d.minSamples };
  }

  async trend(tenantId: string, input: z.infer<typeof TrendInput>): Promise<z.infer<typeof QualityTrend>> {
    const unit = input.range === '24h' ? 'hour' : 'day';
    const stepMs = unit === 'hour' ? 3_600_000 : 86_400_000;
    const now = Date.now();
    // As the analytics timeseries: the window starts inclusive at now minus the range, and its
    // first bucket (partly before it) counts only what is inside.
    const since = now - RANGE_MS[input.range];
    const { provider, model } = this.modelFilter(input.provider, input.model);
    const rows = await feedbackRepository.trend(this.d.db, tenantId, { unit, since: new Date(since), provider, model });
    const byBucket = new Map(rows.map((r) => [r.bucket, r]));
    const points = [];
    for (let t = Math.floor(since / stepMs) * stepMs; t <= now; t += stepMs) {
      const key = new Date(t).toISOString().replace('.000Z', 'Z');
      const r = byBucket.get(key);
      points.push({ bucketStart: key, avgScore: r ? r.avgScore : null, feedbackCount: r ? r.feedbackCount : 0 });
    }
    return { range: input.range, bucket: unit, points };
  }

  /**
   * `model` as `provider/model` (the form used everywhere else) when no provider is given and the
   * part before the first slash names a registered provider; a model id with a slash of its own
   * (OpenRouter's `openai/gpt-4o`) stays whole otherwise.
   */
  private modelFilter(provider: string | undefined, model: string | undefined): { provider?: string; model?: string } {
    if (provider !== undefined || model === undefined) return { provider, model };
    const slash = model.indexOf('/');
    if (slash > 0 && this.d.registry.get(model.slice(0, slash)))
      return { provider: model.slice(0, slash), model: model.slice(slash + 1) };
    return { model };
  }

  async judgeConfig(tenantId: string): Promise<z.infer<typeof JudgeConfig>> {
    const row = (await feedbackRepository.getJudgeConfig(this.d.db, tenantId)) ?? DEFAULT_JUDGE;
    return {
      enabled: row.enabled,
      model: row.model,
      sampleRate: row.sampleRate,
      effectiveModel: row.model ?? this.d.cheapestModel(),
    };
  }

  async updateJudgeConfig(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof UpdateJudgeConfigInput>,
  ): Promise<z.infer<typeof JudgeConfig>> {
    if (input.model) this.checkJudgeModel(input.model);
    await this.d.db.transaction(async (tx) => {
      const before = (await feedbackRepository.getJudgeConfig(tx, tenantId)) ?? { ...DEFAULT_JUDGE };
      const after = await feedbackRepository.putJudgeConfig(tx, {
        tenantId,
        enabled: input.enabled ?? before.enabled,
        model: input.model === undefined ? before.model : input.model,
        sampleRate: input.sampleRate ?? before.sampleRate,
      });
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'judge_config.update',
        targetType: 'judge_config',
        targetId: tenantId,
        before: { enabled: before.enabled, model: before.model, sampleRate: before.sampleRate },
        after: { enabled: after.enabled, model: after.model, sampleRate: after.sampleRate },
      });
    });
    await this.d.routing.announce(this.d.pool, tenantId);
    return this.judgeConfig(tenantId);
  }

  /**
   * A pinned judge must be a chat model some provider serves now: otherwise every judge run would
   * fail and its samples wait forever. An unknown model is 404 not_found_error, as for a chat
   * call that pins one.
   */
  private checkJudgeModel(model: string): void {
    if (!model.includes('/'))
      throw new GatewayError('invalid_request_error', 'model: use the form provider/model (see GET /v1/models)');
    let target: ReturnType<typeof resolvePinned>;
    try {
      target = resolvePinned(this.d.registry, model);
    } catch (err) {
      if (err instanceof GatewayError) throw new GatewayError(err.type, `model: ${err.message}`);
      throw err;
    }
    if (!isChatModel(target.model))
      throw new GatewayError(
        'invalid_request_error',
        `model: '${model}' is not a chat model; the judge grades with chat completions`,
      );
  }
}

function toDto(r: FeedbackRow): Dto {
  return {
    id: r.id,
    requestId: r.requestId,
    score: r.score,
    source: r.source as Dto['source'],
    comment: r.comment,
    provider: r.provider,
    model: r.model,
    taskType: r.taskType,
    complexity: r.complexity,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/**
 * The routing cell a score is evidence for: the request's own, or, for a request an A/B test routed
 * (its row has no cell: the classifier counts as bypassed), the test's when the test names one
 * whole. Without it, a test's ratings never reached routing: the cell's evidence froze while the
 * test ran, and once an auto-ab test had found a decisive winner, routing went back to the loser.
 * A score with no cell (a pinned model, a test on "any") is not learned from.
 */
function scoredCell(request: {
  taskType: string | null;
  complexity: string | null;
  abTestTaskType: string | null;
  abTestComplexity: string | null;
}): { taskType: string | null; complexity: string | null } {
  if (request.taskType && request.complexity) return { taskType: request.taskType, complexity: request.complexity };
  if (request.abTestTaskType && request.abTestComplexity)
    return { taskType: request.abTestTaskType, complexity: request.abTestComplexity };
  return { taskType: null, complexity: null };
}
