import type { JobDefinition } from '../../jobs/queues.js';
import { internalCall } from '../../gateway/internal-call.js';
import { answerText, type ChatPipeline } from '../../gateway/pipeline.js';
import { judgeSamplesRepository } from '../../gateway/repository.js';
import { isReasoningModel } from '../../providers/capabilities.js';
import type { ChatMessage } from '../../providers/types.js';
import { judgeMessages, parseJudgeScore } from './judge-prompt.js';
import type { FeedbackService } from './service.js';

/** What the judge job needs of the gateway (services.ts provides it). */
export interface JudgeJobDeps {
  feedback: Pick<FeedbackService, 'judgeConfig' | 'record'>;
  dataPlane: { pipeline: Pick<ChatPipeline, 'complete'> };
}

const BATCH = 25;
/** One grading call at most (the run's own signal may stop it sooner). */
const JUDGE_CALL_TIMEOUT_MS = 120_000;

/**
 * A reasoning model thinks in hidden tokens that count against the answer's limit: 16 tokens would
 * leave its grade empty. It gets room to think, at a low effort where the provider takes one.
 */
const REASONING_BUDGET = 1_024;

/** The grading request: one number, so a small limit, unless the model reasons before it answers. */
export function judgeRequest(model: string, messages: ChatMessage[]): Record<string, unknown> {
  if (isReasoningModel(model)) {
    // OpenAI's, xAI's, Anthropic's and Google's reasoning models take an effort (the Anthropic and
    // Gemini translations leave it out for the models that do not); others may refuse the field.
    const effort = /^(?:openai|xai|anthropic|gemini)\//.test(model) ? { reasoning_effort: 'low' } : {};
    // max_tokens, which every provider takes; OpenAI's adapter sends it as max_completion_tokens.
    return { model, messages, max_tokens: REASONING_BUDGET, ...effort };
  }
  return { model, messages, temperature: 0, max_tokens: 16 };
}

/**
 * The judge job: grades the workspace's sampled live exchanges 1-5 through the gateway core (cost
 * rows under judge-<requestId>, no request rows) and records each grade as feedback from the
 * judge, which feeds adaptive routing like user feedback does.
 */
export const judgeJob: JobDefinition<JudgeJobDeps> = {
  name: 'judge',
  description: 'Grades a sample of live traffic with the LLM judge and records the scores as feedback',
  schedule: '* * * * *',
  timeoutSeconds: 10 * 60,
  async handler(ctx, { tenantId }) {
    const { services } = ctx;
    const config = await services.feedback.judgeConfig(tenantId);
    if (!config.enabled) {
      // Samples hold whole prompts: a judge switched off keeps none of them waiting.
      const dropped = await judgeSamplesRepository.removeAll(ctx.db, tenantId);
      return {
        summary: dropped ? `judge disabled; ${dropped} queued samples removed` : 'judge disabled',
      };
    }
    if (!config.effectiveModel) return { summary: 'no judge model available' };
    const rows = await judgeSamplesRepository.oldest(ctx.db, tenantId, BATCH);
    let graded = 0;
    let unreadable = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    for (const sample of rows) {
      // Out of time, or shutting down: the rest wait for the next run.
      if (ctx.signal.aborted) break;
      const call = internalCall({
        tenantId,
        requestId: `judge-${sample.requestId}`,
        body: judgeRequest(config.effectiveModel, judgeMessages(sample.prompt as ChatMessage[], sample.answer)),
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(JUDGE_CALL_TIMEOUT_MS)]),
      });
      try {
        const { completion } = await services.dataPlane.pipeline.complete(call);
        const score = parseJudgeScore(answerText(completion));
        if (score === undefined) unreadable++;
        else {
          await services.feedback.record(tenantId, sample.requestId, score, 'judge', null).catch(() => undefined);
          graded++;
        }
      } catch (err) {
        failed++;
        firstFailure ??= (err as Error).message;
        ctx.logger.warn({ err: (err as Error).message }, 'judge call failed; sample kept for the next run');
        continue;
      }
      await judgeSamplesRepository.remove(ctx.db, tenantId, sample.requestId);
    }
    // Nothing graded and every call failed (the judge model gone, its provider down): a failed run,
    // which the scheduler's status shows, not a quiet "graded 0".
    if (failed > 0 && graded === 0 && unreadable === 0)
      throw new Error(`every judge call failed (${failed} of ${rows.length}); the first: ${firstFailure}`);
    return {
      summary: `graded ${graded} of ${rows.length} sampled requests${unreadable ? ` (${unreadable} unreadable grades)` : ''}${failed ? ` (${failed} calls failed, kept for the next run)` : ''}`,
    };
  },
};
