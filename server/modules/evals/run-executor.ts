import { performance } from 'node:perf_hooks';
import type { Database } from '../../db/client.js';
import type { EvalCaseRow, EvalRunRow } from '../../db/schema/index.js';
import { classify } from '../../gateway/classifier/index.js';
import { internalCall } from '../../gateway/internal-call.js';
import { answerText } from '../../gateway/pipeline.js';
import type { Logger } from '../../lib/logger.js';
import type { ChatMessage } from '../../providers/types.js';
import type { ChatPipeline } from '../../gateway/pipeline.js';
import type { FeedbackService } from '../feedback/service.js';

/** What running an eval needs of the gateway (services.ts provides it). */
export interface EvalRunDeps {
  feedback: Pick<FeedbackService, 'judgeConfig'>;
  dataPlane: { pipeline: Pick<ChatPipeline, 'complete'> };
}
import { judgeRequest } from '../feedback/judge-job.js';
import { judgeMessages, parseJudgeScore } from '../feedback/judge-prompt.js';
import { evalsRepository } from './repository.js';
import { exactMatch, regexMatch, type Scorer } from './scorers.js';

// Executes one eval run: its pending cases in batches of EVAL_BATCH_SIZE, each batch's results and
// the run's progress stored before the next starts. A run picked up again (after a restart, or a
// job run that ran out of time) skips the cases that already have a result, so it resumes where it
// stopped; one interrupted more than MAX_ATTEMPTS times is marked failed with the reason.

export const EVAL_BATCH_SIZE = 4;
/** Pick-ups of one run before it is failed instead of resumed again. */
export const MAX_ATTEMPTS = 5;
/** One target or judge call at most. */
const CALL_TIMEOUT_MS = 120_000;
/** Characters of a raw output kept with a result. */
const MAX_OUTPUT_CHARS = 100_000;
const MAX_ERROR_CHARS = 500;

export const CLASSIFIER_PROVIDER = 'gateway';
export const CLASSIFIER_MODEL = 'classifier';

export function isClassifierTarget(provider: string, model: string): boolean {
  return provider === CLASSIFIER_PROVIDER && model === CLASSIFIER_MODEL;
}

/** The classifier target's output: `<taskType>/<complexity> (conf=<task>/<complexity>)`. */
export function classifierOutput(messages: ChatMessage[]): string {
  const c = classify(messages);
  return `${c.taskType}/${c.complexity} (conf=${c.taskConfidence.toFixed(2)}/${c.complexityConfidence.toFixed(2)})`;
}

export interface RunContext {
  db: Database;
  services: EvalRunDeps;
  logger: Logger;
  /** Fires when the executor must stop (its time is up, or shutdown): the run is left to resume. */
  signal: AbortSignal;
}

export type RunEnd = 'completed' | 'failed' | 'cancelled' | 'interrupted' | 'gone';

interface CaseOutcome {
  caseIndex: number;
  output: string | null;
  score: number | null;
  error: string | null;
  latencyMs: number;
  costUsd: number;
}

export async function executeRun(ctx: RunContext, tenantId: string, runId: string): Promise<RunEnd> {
  const { db } = ctx;
  const attempts = await evalsRepository.pickUp(db, tenantId, runId);
  if (attempts === undefined) return 'gone';
  if (attempts > MAX_ATTEMPTS)
    return fail(ctx, tenantId, runId, `interrupted ${MAX_ATTEMPTS} times before it could finish`);
  let run = (await evalsRepository.getRun(db, tenantId, runId))!;

  const scorer = run.scorer as Scorer;
  if (scorer === 'llm-judge' && !run.judgeModel) {
    const judge = await ctx.services.feedback.judgeConfig(tenantId);
    if (!judge.effectiveModel) return fail(ctx, tenantId, runId, 'no judge model is available to grade the run');
    run = (await evalsRepository.transition(db, tenantId, runId, ['running'], { judgeModel: judge.effectiveModel }))!;
    if (!run) return 'gone';
  }

  const done = await evalsRepository.doneIndexes(db, tenantId, runId);
  const pending: number[] = [];
  for (let i = 0; i < run.totalCases; i++) if (!done.has(i)) pending.push(i);

  for (let b = 0; b < pending.length; b += EVAL_BATCH_SIZE) {
    if (ctx.signal.aborted) return 'interrupted';
    const current = await evalsRepository.getRun(db, tenantId, runId);
    if (!current) return 'gone';
    if (current.status !== 'running') return current.status === 'cancelled' ? 'cancelled' : 'gone';
    const batch = pending.slice(b, b + EVAL_BATCH_SIZE);
    const cases = await evalsRepository.cases(db, tenantId, run.datasetId, batch[0]!, batch.at(-1)! + 1);
    const wanted = new Set(batch);
    const outcomes = await Promise.all(cases.filter((c) => wanted.has(c.idx)).map((c) => runCase(ctx, run, c)));
    if (ctx.signal.aborted && outcomes.some((o) => o.error?.startsWith('interrupted'))) {
      // Calls cut short by shutdown are not results: the run resumes them.
      const kept = outcomes.filter((o) => !o.error?.startsWith('interrupted'));
      await evalsRepository.recordBatch(
        db,
        tenantId,
        runId,
        kept.map((o) => ({ tenantId, runId, ...o })),
      );
      return 'interrupted';
    }
    await evalsRepository.recordBatch(
      db,
      tenantId,
      runId,
      outcomes.map((o) => ({ tenantId, runId, ...o })),
    );
  }
  const finished = await evalsRepository.transition(db, tenantId, runId, ['running'], {
    status: 'completed',
    finishedAt: new Date(),
  });
  if (finished) return 'completed';
  return (await evalsRepository.getRun(db, tenantId, runId))?.status === 'cancelled' ? 'cancelled' : 'gone';
}

async function fail(ctx: RunContext, tenantId: string, runId: string, reason: string): Promise<RunEnd> {
  ctx.logger.warn({ runId, reason }, 'eval run failed');
  await evalsRepository.transition(ctx.db, tenantId, runId, ['queued', 'running'], {
    status: 'failed',
    error: reason,
    finishedAt: new Date(),
  });
  return 'failed';
}

async function runCase(ctx: RunContext, run: EvalRunRow, c: EvalCaseRow): Promise<CaseOutcome> {
  const started = performance.now();
  const messages = c.input as ChatMessage[];
  const base = { caseIndex: c.idx, latencyMs: 0, costUsd: 0 };
  let output: string;
  let costUsd = 0;
  if (isClassifierTarget(run.provider, run.model)) {
    // In process: no upstream call, no cost row.
    output = classifierOutput(messages);
  } else {
    try {
      const { completion, meta } = await ctx.services.dataPlane.pipeline.complete(
        internalCall({
          tenantId: run.tenantId,
          requestId: `eval-${run.id}-${c.idx}`,
          // cache false: an eval measures the model, not an answer remembered from an earlier call.
          body: { model: `${run.provider}/${run.model}`, messages, cache: false },
          signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
        }),
      );
      output = answerText(completion).slice(0, MAX_OUTPUT_CHARS);
      costUsd = meta.cost;
    } catch (err) {
      return {
        ...base,
        output: null,
        score: null,
        error: describeFailure(ctx, 'target call failed', err),
        latencyMs: elapsed(started),
      };
    }
  }
  const latencyMs = elapsed(started);
  const scorer = run.scorer as Scorer;
  if (scorer === 'exact-match' || scorer === 'regex-match') {
    const expected = c.expected ?? '';
    let score: number | null;
    let error: string | null = null;
    try {
      score = scorer === 'exact-match' ? exactMatch(output, expected) : regexMatch(output, expected);
    } catch (err) {
      score = null;
      error = clip((err as Error).message);
    }
    return { ...base, output, score, error, latencyMs, costUsd };
  }
  // llm-judge: the pinned judge (or the cheapest model), fixed for the run when it started.
  try {
    const { completion, meta } = await ctx.services.dataPlane.pipeline.complete(
      internalCall({
        tenantId: run.tenantId,
        requestId: `eval-${run.id}-${c.idx}-judge`,
        body: { ...judgeRequest(run.judgeModel!, judgeMessages(messages, output)), cache: false },
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
      }),
    );
    const score = parseJudgeScore(answerText(completion)) ?? null;
    return {
      ...base,
      output,
      score,
      error: score === null ? 'the judge reply held no 1-5 score' : null,
      latencyMs,
      costUsd: costUsd + meta.cost,
    };
  } catch (err) {
    return { ...base, output, score: null, error: describeFailure(ctx, 'judge unreachable', err), latencyMs, costUsd };
  }
}

function describeFailure(ctx: RunContext, what: string, err: unknown): string {
  if (ctx.signal.aborted) return 'interrupted';
  return clip(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
