import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { RegressionEventRow } from '../../db/schema/index.js';
import { captureRepository } from '../../gateway/capture-repository.js';
import { internalCall } from '../../gateway/internal-call.js';
import { answerText, type ChatPipeline } from '../../gateway/pipeline.js';
import { ownCallSpendRepository } from '../../gateway/repository.js';
import type { ChatMessage } from '../../providers/types.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { judgeRequest } from '../feedback/judge-job.js';
import { judgeMessages, parseJudgeScore } from '../feedback/judge-prompt.js';
import { detectRegressions, type ReplayPair } from './detect.js';
import { regressionRepository as repo } from './repository.js';
import type { RegressionEvent, RegressionStatus } from './schemas.js';

type EventDto = z.infer<typeof RegressionEvent>;

/** Replays and their grading write cost rows under this request-id prefix (and no request rows). */
export const REPLAY_PREFIX = 'replay-';
const WEEK_MS = 7 * 86_400_000;
const CALL_TIMEOUT_MS = 120_000;

export interface RegressionDeps {
  db: Database;
  audit: AuditService;
  pipeline: Pick<ChatPipeline, 'complete'>;
  /** The workspace's judge model (`provider/model`), or null when it has none. */
  judgeModel(tenantId: string): Promise<string | null>;
  captureEnabled(tenantId: string): Promise<boolean>;
  bankPerCell: number;
  samplePerCell: number;
  threshold: number;
  minSamples: number;
}

export interface ReplayOutcome {
  replayed: number;
  failed: number;
  opened: EventDto[];
  skipped?: string;
}

/**
 * Regression detection: replays a sample of the workspace's captured exchanges (the replay bank)
 * to whatever the router picks today, has the judge grade the new answer and the original, and
 * opens an event per cell and model whose answers got surely worse. Replays are the gateway's own
 * calls: cost rows under `replay-`, no request rows, no feedback, so adaptive scores never move.
 */
export class RegressionService {
  constructor(private readonly d: RegressionDeps) {}

  optIn(tenantId: string, actor: ActorRef, enabled: boolean | undefined): Promise<{ enabled: boolean }> {
    return this.d.audit.toggle(tenantId, actor, enabled, {
      action: 'regression.opt_in',
      targetType: 'regression_settings',
      read: repo.enabled,
      write: repo.setEnabled,
    });
  }

  async status(tenantId: string, now = Date.now()): Promise<z.infer<typeof RegressionStatus>> {
    const [enabled, captureEnabled, bank, spend] = await Promise.all([
      repo.enabled(this.d.db, tenantId),
      this.d.captureEnabled(tenantId),
      captureRepository.bankSize(this.d.db, tenantId, this.d.bankPerCell),
      ownCallSpendRepository.since(this.d.db, tenantId, REPLAY_PREFIX, new Date(now - WEEK_MS)),
    ]);
    return {
      enabled,
      captureEnabled,
      replayBankSize: bank,
      bankCapPerCell: this.d.bankPerCell,
      samplePerCell: this.d.samplePerCell,
      weeklyReplaySpendUsd: Math.round(spend.usd * 1e12) / 1e12,
      weeklyReplayCalls: spend.calls,
      threshold: this.d.threshold,
      minSamples: this.d.minSamples,
    };
  }

  async events(tenantId: string, unresolvedOnly: boolean): Promise<{ items: EventDto[] }> {
    return { items: (await repo.events(this.d.db, tenantId, unresolvedOnly)).map(toDto) };
  }

  async resolve(tenantId: string, actor: ActorRef, id: string, note: string): Promise<EventDto> {
    return this.d.db.transaction(async (tx) => {
      const found = await repo.forUpdate(tx, tenantId, id);
      if (!found) throw notFound('Regression event', id);
      if (found.resolvedAt) throw new GatewayError('conflict_error', `Regression event '${id}' is already resolved`);
      const done = (await repo.resolve(tx, tenantId, id, note))!;
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'regression_event.resolve',
        targetType: 'regression_event',
        targetId: id,
        before: toDto(found),
        after: toDto(done),
      });
      return toDto(done);
    });
  }

  /** The replay job's run for one workspace. */
  async replay(tenantId: string, signal: AbortSignal): Promise<ReplayOutcome> {
    const outcome: ReplayOutcome = { replayed: 0, failed: 0, opened: [] };
    if (!(await repo.enabled(this.d.db, tenantId))) return { ...outcome, skipped: 'not opted in' };
    const judge = await this.d.judgeModel(tenantId);
    if (!judge) return { ...outcome, skipped: 'no judge model available' };
    const bank = await captureRepository.bankSample(this.d.db, tenantId, this.d.bankPerCell, this.d.samplePerCell);
    const run = Date.now().toString(36);
    const pairs: ReplayPair[] = [];
    // One at a time: a replay run is background work and must not crowd live traffic.
    for (const [i, entry] of bank.entries()) {
      if (signal.aborted) break;
      const base = `${REPLAY_PREFIX}${run}-${i}`;
      const call = (requestId: string, body: Record<string, unknown>) =>
        this.d.pipeline.complete(
          internalCall({
            tenantId,
            requestId,
            body,
            signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
          }),
        );
      const grade = async (answer: string, suffix: string) => {
        // Not from the cache: the original and an unchanged replay are the same text, and each
        // grade is a judgement of its own (and a cost of its own).
        const { completion } = await call(`${base}-${suffix}`, {
          ...judgeRequest(judge, judgeMessages(entry.messages as ChatMessage[], answer)),
          cache: false,
        });
        return parseJudgeScore(answerText(completion));
      };
      try {
        // The router's pick today for the cell: an empty model, the cell as hints, no cache (the
        // original answer may well still be cached).
        const { completion, meta } = await call(base, {
          model: '',
          messages: entry.messages,
          routing_hint: entry.taskType,
          complexity_hint: entry.complexity,
          cache: false,
        });
        const replay = await grade(answerText(completion), 'grade-replay');
        const original = await grade(entry.answer, 'grade-original');
        if (replay === undefined || original === undefined) {
          outcome.failed++;
          continue;
        }
        pairs.push({
          requestId: entry.requestId,
          taskType: entry.taskType,
          complexity: entry.complexity,
          provider: meta.provider,
          model: meta.model,
          original,
          replay,
        });
        outcome.replayed++;
      } catch {
        outcome.failed++;
      }
    }
    const open = new Set(
      (await repo.events(this.d.db, tenantId, true)).map((e) => key(e.taskType, e.complexity, e.provider, e.model)),
    );
    for (const r of detectRegressions(pairs, this.d.threshold, this.d.minSamples)) {
      // One open event per cell and model: a regression still unresolved is not raised again.
      if (open.has(key(r.taskType, r.complexity, r.provider, r.model))) continue;
      outcome.opened.push(toDto(await repo.insert(this.d.db, tenantId, newId('reg'), r)));
    }
    return outcome;
  }
}

const key = (taskType: string, complexity: string, provider: string, model: string) =>
  `${taskType}/${complexity}|${provider}/${model}`;

function toDto(e: RegressionEventRow): EventDto {
  return {
    id: e.id,
    taskType: e.taskType,
    complexity: e.complexity,
    provider: e.provider,
    model: e.model,
    sampleCount: e.sampleCount,
    originalAvgScore: e.originalAvgScore,
    replayAvgScore: e.replayAvgScore,
    scoreDelta: e.scoreDelta,
    severity: e.severity,
    exampleRequestIds: e.exampleRequestIds,
    createdAt: e.createdAt.toISOString(),
    resolved: e.resolvedAt !== null,
    resolvedAt: e.resolvedAt?.toISOString() ?? null,
    resolutionNote: e.resolutionNote,
  };
}
