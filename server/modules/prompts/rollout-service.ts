import { randomInt } from 'node:crypto';
import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { PromptRolloutRow } from '../../db/schema/index.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { randomId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type ActorRef, type AuditService } from '../audit/service.js';
import { promptsRepository } from './repository.js';
import { publishVersion } from './service.js';
import { render } from './template-text.js';
import { rolloutsRepository, type ArmStats } from './rollout-repository.js';
import type { CreateRolloutInput, ResolveInput, Resolved, Rollout, RolloutDetail } from './rollout-schemas.js';

type Dto = z.infer<typeof Rollout>;

export interface RolloutDecision {
  action: 'promote' | 'revert' | 'wait';
  reason: string;
}

/**
 * The job's rule (SPEC.md): once both arms reached min_samples in the window, promote when
 * canary - stable >= -max_avg_score_delta, revert otherwise; wait before that.
 */
export function decide(r: PromptRolloutRow, stable: ArmStats, canary: ArmStats): RolloutDecision {
  const figures = `canary ${fmt(canary.avgScore)} over ${canary.samples}, stable ${fmt(stable.avgScore)} over ${stable.samples} scored requests in the window`;
  if (stable.samples < r.minSamples || canary.samples < r.minSamples)
    return { action: 'wait', reason: `${figures}; each arm needs ${r.minSamples}` };
  const delta = canary.avgScore! - stable.avgScore!;
  return delta >= -r.maxAvgScoreDelta
    ? { action: 'promote', reason: `${figures}: delta ${delta.toFixed(2)} within -${r.maxAvgScoreDelta}` }
    : { action: 'revert', reason: `${figures}: delta ${delta.toFixed(2)} below -${r.maxAvgScoreDelta}` };
}

function fmt(n: number | null): string {
  return n === null ? 'n/a' : n.toFixed(2);
}

export interface RolloutServiceDeps {
  db: Database;
  audit: AuditService;
  /** Uniform integer in [0, max): seeded in tests. */
  random?: (max: number) => number;
}

export class RolloutService {
  constructor(private readonly d: RolloutServiceDeps) {}

  async create(tenantId: string, actor: ActorRef, input: z.infer<typeof CreateRolloutInput>): Promise<Dto> {
    try {
      const row = await this.d.db.transaction(async (tx) => {
        const template = await promptsRepository.get(tx, tenantId, input.templateId, true);
        if (!template) throw notFound('Prompt template', input.templateId);
        const canary = await promptsRepository.version(tx, tenantId, input.canaryVersionId);
        if (!canary || canary.templateId !== template.id) throw notFound('Prompt version', input.canaryVersionId);
        if (!template.publishedVersionId)
          throw new GatewayError(
            'conflict_error',
            `Prompt template '${template.id}' has no published version to compare the canary with: publish one first`,
          );
        if (template.publishedVersionId === canary.id)
          throw new GatewayError('invalid_request_error', 'canaryVersionId: is already the published version');
        if (await rolloutsRepository.activeFor(tx, tenantId, template.id)) throw activeConflict(template.id);
        const created = await rolloutsRepository.insert(tx, {
          id: `ro_${randomId()}`,
          tenantId,
          templateId: template.id,
          stableVersionId: template.publishedVersionId,
          canaryVersionId: canary.id,
          rolloutPct: input.rolloutPct,
          minSamples: input.criteria.min_samples,
          windowHours: input.criteria.window_hours,
          maxAvgScoreDelta: input.criteria.max_avg_score_delta,
          status: 'active',
        });
        await this.d.audit.record(tx, {
          tenantId,
          actor,
          action: 'rollout.create',
          targetType: 'prompt_rollout',
          targetId: created.id,
          after: toDto(created),
        });
        return created;
      });
      return toDto(row);
    } catch (err) {
      // The partial unique index: another rollout of the template started at the same moment.
      if ((err as { cause?: { code?: string } }).cause?.code === '23505') throw activeConflict(input.templateId);
      throw err;
    }
  }

  async list(tenantId: string, status?: PromptRolloutRow['status']) {
    return { items: (await rolloutsRepository.list(this.d.db, tenantId, status)).map(toDto) };
  }

  async get(tenantId: string, id: string): Promise<z.infer<typeof RolloutDetail>> {
    const row = await rolloutsRepository.get(this.d.db, tenantId, id);
    if (!row) throw notFound('Rollout', id);
    const { since, stable, canary } = await this.stats(row);
    return { ...toDto(row), windowStart: since.toISOString(), stable, canary };
  }

  async resolve(tenantId: string, input: z.infer<typeof ResolveInput>): Promise<z.infer<typeof Resolved>> {
    const template = await promptsRepository.get(this.d.db, tenantId, input.templateId);
    if (!template) throw notFound('Prompt template', input.templateId);
    const rollout = await rolloutsRepository.activeFor(this.d.db, tenantId, template.id);
    let versionId = template.publishedVersionId;
    let arm: { rolloutId: string; variant: 'stable' | 'canary' } | undefined;
    if (rollout) {
      // Weighted choice in basis points: rolloutPct of resolves get the canary.
      const canary = (this.d.random ?? randomInt)(10_000) < Math.round(rollout.rolloutPct * 100);
      versionId = canary ? rollout.canaryVersionId : rollout.stableVersionId;
      arm = { rolloutId: rollout.id, variant: canary ? 'canary' : 'stable' };
    }
    if (!versionId)
      throw new GatewayError('conflict_error', `Prompt template '${template.id}' has no published version`);
    const version = await promptsRepository.version(this.d.db, tenantId, versionId);
    if (!version) throw new GatewayError('conflict_error', `Prompt version '${versionId}' no longer exists`);
    return { versionId, messages: render(version.messages, input.variables), ...arm };
  }

  promote(tenantId: string, actor: ActorRef, id: string, reason = 'promoted manually'): Promise<Dto> {
    return this.finish(tenantId, actor, id, 'promoted', reason);
  }

  revert(tenantId: string, actor: ActorRef, id: string, reason = 'reverted manually'): Promise<Dto> {
    return this.finish(tenantId, actor, id, 'reverted', reason);
  }

  /** The prompt-rollout-eval job for one workspace: decides every active rollout that has its samples. */
  async evaluate(
    tenantId: string,
    signal?: AbortSignal,
  ): Promise<{ promoted: number; reverted: number; waiting: number }> {
    const counts = { promoted: 0, reverted: 0, waiting: 0 };
    for (const row of await rolloutsRepository.list(this.d.db, tenantId, 'active')) {
      if (signal?.aborted) break;
      const { stable, canary } = await this.stats(row);
      const decision = decide(row, stable, canary);
      if (decision.action === 'wait') {
        counts.waiting++;
        continue;
      }
      try {
        if (decision.action === 'promote') await this.promote(tenantId, SYSTEM_ACTOR, row.id, decision.reason);
        else await this.revert(tenantId, SYSTEM_ACTOR, row.id, decision.reason);
        counts[decision.action === 'promote' ? 'promoted' : 'reverted']++;
      } catch (err) {
        // Finished by hand meanwhile: nothing left to decide.
        if (!(err instanceof GatewayError && err.type === 'conflict_error')) throw err;
      }
    }
    return counts;
  }

  private async stats(row: PromptRolloutRow) {
    const windowStart = Date.now() - row.windowHours * 3_600_000;
    const since = new Date(Math.max(windowStart, row.createdAt.getTime()));
    const [stable, canary] = await rolloutsRepository.armStats(
      this.d.db,
      row.tenantId,
      [row.stableVersionId, row.canaryVersionId],
      since,
    );
    return { since, stable: stable!, canary: canary! };
  }

  private async finish(
    tenantId: string,
    actor: ActorRef,
    id: string,
    status: 'promoted' | 'reverted',
    reason: string,
  ): Promise<Dto> {
    const row = await this.d.db.transaction(async (tx) => {
      const current = await rolloutsRepository.get(tx, tenantId, id, true);
      if (!current) throw notFound('Rollout', id);
      if (current.status !== 'active')
        throw new GatewayError('conflict_error', `Rollout '${id}' already ended (${current.status})`);
      const template = await promptsRepository.get(tx, tenantId, current.templateId, true);
      const canary = await promptsRepository.version(tx, tenantId, current.canaryVersionId);
      if (status === 'promoted' && template && canary) await publishVersion(tx, template, canary);
      if (status === 'reverted')
        await promptsRepository.setVersionStatus(tx, tenantId, current.canaryVersionId, 'rejected');
      const done = (await rolloutsRepository.finish(tx, tenantId, id, status, reason))!;
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: status === 'promoted' ? 'rollout.promote' : 'rollout.revert',
        targetType: 'prompt_rollout',
        targetId: id,
        before: { status: 'active', publishedVersionId: template?.publishedVersionId ?? null },
        after: {
          status,
          reason,
          publishedVersionId: status === 'promoted' ? current.canaryVersionId : (template?.publishedVersionId ?? null),
        },
      });
      return done;
    });
    return toDto(row);
  }
}

function activeConflict(templateId: string): GatewayError {
  return new GatewayError('conflict_error', `Prompt template '${templateId}' already has an active rollout`);
}

function toDto(r: PromptRolloutRow): Dto {
  return {
    id: r.id,
    templateId: r.templateId,
    stableVersionId: r.stableVersionId,
    canaryVersionId: r.canaryVersionId,
    rolloutPct: r.rolloutPct,
    criteria: { min_samples: r.minSamples, max_avg_score_delta: r.maxAvgScoreDelta, window_hours: r.windowHours },
    status: r.status as Dto['status'],
    completionReason: r.completionReason,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}
