import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { EvalCaseRow, EvalDatasetRow, EvalRunRow } from '../../db/schema/index.js';
import type { JobRunner } from '../../jobs/boss.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { resolvePinned } from '../../gateway/routing/targets.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { isChatModel } from '../../providers/model-kind.js';
import { MAX_CASES_PER_DATASET, parseJsonl, validateCase } from './cases.js';
import { EVAL_RUNS_JOB } from './job.js';
import { patternProblem } from './regex.js';
import { evalsRepository } from './repository.js';
import { isClassifierTarget } from './run-executor.js';
import { aggregate, type Scorer } from './scorers.js';
import type {
  AppendCaseInput,
  CasesFromRequestsInput,
  CreateDatasetInput,
  CreateRunInput,
  Dataset,
  DatasetDetail,
  EvalCase,
  Run,
  RunDetail,
} from './schemas.js';

export const PREVIEW_CASES = 5;
export const RUN_LIST_LIMIT = 50;

export interface EvalServiceDeps {
  db: Database;
  registry: ProviderRegistry;
  /** A workspace's providers (its own keys and custom providers in); `registry` without it. */
  registryFor?: (tenantId: string) => ProviderRegistry;
  jobs: () => JobRunner<unknown>;
  logger: Logger;
  /** Captured exchanges (cases saved from the request log). */
  capturedExchanges: (
    tenantId: string,
    requestIds: string[],
  ) => Promise<Map<string, { messages: unknown[]; answer: string }>>;
}

export class EvalService {
  constructor(private readonly d: EvalServiceDeps) {}

  async createDataset(tenantId: string, input: z.infer<typeof CreateDatasetInput>): Promise<z.infer<typeof Dataset>> {
    // Every line is checked before anything is stored.
    const cases = parseJsonl(input.jsonl);
    const row = await this.d.db.transaction(async (tx) => {
      const id = newId('ds');
      await evalsRepository.insertDataset(tx, {
        id,
        tenantId,
        name: input.name,
        description: input.description ?? null,
        caseCount: 0,
      });
      await evalsRepository.insertCases(tx, tenantId, id, 0, cases);
      return evalsRepository.setCaseCount(tx, tenantId, id, cases.length);
    });
    return datasetDto(row);
  }

  async listDatasets(tenantId: string) {
    return { items: (await evalsRepository.listDatasets(this.d.db, tenantId)).map(datasetDto) };
  }

  async getDataset(tenantId: string, id: string): Promise<z.infer<typeof DatasetDetail>> {
    const row = await evalsRepository.getDataset(this.d.db, tenantId, id);
    if (!row) throw notFound('Dataset', id);
    const preview = await evalsRepository.cases(this.d.db, tenantId, id, 0, PREVIEW_CASES);
    return { ...datasetDto(row), preview: preview.map(caseDto) };
  }

  async appendCase(tenantId: string, input: z.infer<typeof AppendCaseInput>): Promise<z.infer<typeof EvalCase>> {
    const { id, ...raw } = input;
    const parsed = validateCase(raw);
    return this.d.db.transaction(async (tx) => {
      // Locked: two appends at once take consecutive indexes.
      const ds = await evalsRepository.getDataset(tx, tenantId, id, true);
      if (!ds) throw notFound('Dataset', id);
      if (ds.caseCount >= MAX_CASES_PER_DATASET)
        throw new GatewayError(
          'invalid_request_error',
          `Dataset '${id}' already holds ${MAX_CASES_PER_DATASET} cases, the most one dataset holds`,
          { status: 413 },
        );
      await evalsRepository.insertCases(tx, tenantId, id, ds.caseCount, [parsed]);
      await evalsRepository.setCaseCount(tx, tenantId, id, ds.caseCount + 1);
      return { index: ds.caseCount, ...parsed };
    });
  }

  /**
   * Cases saved from the request log: each request's captured exchange (its messages) as input,
   * with expected set to the answer it got. All or nothing: a request not captured is a 404.
   */
  async casesFromRequests(tenantId: string, input: z.infer<typeof CasesFromRequestsInput>) {
    const ids = [...new Set(input.requestIds)];
    const found = await this.d.capturedExchanges(tenantId, ids);
    const missing = ids.find((id) => !found.has(id));
    if (missing)
      throw new GatewayError(
        'not_found_error',
        `Request '${missing}' has no captured exchange (exchange capture off, not sampled, or expired)`,
      );
    const cases = ids.map((id) => {
      const x = found.get(id)!;
      return { input: x.messages, expected: x.answer, metadata: { requestId: id } };
    });
    return this.d.db.transaction(async (tx) => {
      const ds = await evalsRepository.getDataset(tx, tenantId, input.id, true);
      if (!ds) throw notFound('Dataset', input.id);
      if (ds.caseCount + cases.length > MAX_CASES_PER_DATASET)
        throw new GatewayError(
          'invalid_request_error',
          `Dataset '${input.id}' would hold more than ${MAX_CASES_PER_DATASET} cases, the most one dataset holds`,
          { status: 413 },
        );
      await evalsRepository.insertCases(tx, tenantId, ds.id, ds.caseCount, cases);
      await evalsRepository.setCaseCount(tx, tenantId, ds.id, ds.caseCount + cases.length);
      return { items: cases.map((c, i) => ({ index: ds.caseCount + i, ...c })) };
    });
  }

  async deleteDataset(tenantId: string, id: string) {
    if (!(await evalsRepository.deleteDataset(this.d.db, tenantId, id))) throw notFound('Dataset', id);
    return { id, deleted: true as const };
  }

  async createRun(tenantId: string, input: z.infer<typeof CreateRunInput>) {
    const classifier = isClassifierTarget(input.provider, input.model);
    if (classifier && input.scorer === 'llm-judge')
      throw new GatewayError(
        'invalid_request_error',
        'scorer: the classifier target is scored with exact-match (expected <taskType>/<complexity>) or regex-match',
      );
    if (!classifier) this.checkTarget(this.d.registryFor?.(tenantId) ?? this.d.registry, input.provider, input.model);
    const ds = await evalsRepository.getDataset(this.d.db, tenantId, input.datasetId);
    if (!ds) throw notFound('Dataset', input.datasetId);
    if (ds.caseCount === 0) throw new GatewayError('invalid_request_error', `Dataset '${ds.id}' holds no case`);
    if (input.scorer !== 'llm-judge') await this.checkExpected(tenantId, ds, input.scorer);
    const run = await evalsRepository.insertRun(this.d.db, {
      id: newId('run'),
      tenantId,
      datasetId: ds.id,
      provider: input.provider,
      model: input.model,
      scorer: input.scorer,
      status: 'queued',
      totalCases: ds.caseCount,
    });
    await this.kick(tenantId);
    return { runId: run.id, status: 'queued' as const };
  }

  async listRuns(tenantId: string) {
    return { items: (await evalsRepository.listRuns(this.d.db, tenantId, RUN_LIST_LIMIT)).map(runDto) };
  }

  async getRun(tenantId: string, id: string): Promise<z.infer<typeof RunDetail>> {
    const run = await evalsRepository.getRun(this.d.db, tenantId, id);
    if (!run) throw notFound('Eval run', id);
    const [results, expected] = await Promise.all([
      evalsRepository.results(this.d.db, tenantId, id),
      evalsRepository.expectedValues(this.d.db, tenantId, run.datasetId, run.totalCases),
    ]);
    const expectedOf = new Map(expected.map((e) => [e.idx, e.expected]));
    return {
      ...runDto(run),
      results: results.map((r) => ({
        caseIndex: r.caseIndex,
        output: r.output,
        score: r.score,
        expected: expectedOf.get(r.caseIndex) ?? null,
        error: r.error,
        latencyMs: r.latencyMs,
        costUsd: Number(r.costUsd),
      })),
    };
  }

  async cancelRun(tenantId: string, id: string): Promise<z.infer<typeof Run>> {
    const run = await evalsRepository.getRun(this.d.db, tenantId, id);
    if (!run) throw notFound('Eval run', id);
    const cancelled = await evalsRepository.transition(this.d.db, tenantId, id, ['queued', 'running'], {
      status: 'cancelled',
      error: 'cancelled on request',
      finishedAt: new Date(),
    });
    if (!cancelled) throw new GatewayError('conflict_error', `Eval run '${id}' already ended (${run.status})`);
    return runDto(cancelled);
  }

  /** Starts the executor for the workspace (a no-op when one is already running there). */
  async kick(tenantId: string): Promise<void> {
    try {
      await this.d.jobs().enqueue(EVAL_RUNS_JOB, { tenantId });
    } catch (err) {
      // The run is stored: the next scheduled executor run takes it.
      this.d.logger.warn({ err, tenantId }, 'eval executor could not be started now; the schedule will');
    }
  }

  async kickIfPending(tenantId: string): Promise<void> {
    if ((await evalsRepository.pendingRuns(this.d.db, tenantId)).length) await this.kick(tenantId);
  }

  private checkTarget(registry: ProviderRegistry, provider: string, model: string): void {
    const target = resolvePinned(registry, `${provider}/${model}`);
    if (target.provider !== provider)
      throw new GatewayError('not_found_error', `Provider '${provider}' is not registered (GET /v1/providers)`);
    if (!isChatModel(target.model))
      throw new GatewayError('invalid_request_error', `model: '${model}' is not a chat model`);
  }

  /** Match scorers need an expected value on every case, and regex-match a valid pattern in it. */
  private async checkExpected(tenantId: string, ds: EvalDatasetRow, scorer: Scorer): Promise<void> {
    for (const { idx, expected } of await evalsRepository.expectedValues(this.d.db, tenantId, ds.id, ds.caseCount)) {
      if (expected === null)
        throw new GatewayError(
          'invalid_request_error',
          `scorer ${scorer}: case ${idx} (line ${idx + 1}) has no expected value`,
        );
      const problem = scorer === 'regex-match' ? patternProblem(expected) : undefined;
      if (problem)
        throw new GatewayError(
          'invalid_request_error',
          `scorer regex-match: case ${idx} (line ${idx + 1}): expected is not a valid regular expression (${problem})`,
        );
    }
  }
}

function datasetDto(r: EvalDatasetRow): z.infer<typeof Dataset> {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    caseCount: r.caseCount,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

function caseDto(c: EvalCaseRow): z.infer<typeof EvalCase> {
  return { index: c.idx, input: c.input, expected: c.expected, metadata: c.metadata };
}

function runDto(r: EvalRunRow): z.infer<typeof Run> {
  return {
    id: r.id,
    datasetId: r.datasetId,
    provider: r.provider,
    model: r.model,
    scorer: r.scorer as Scorer,
    status: r.status as z.infer<typeof Run>['status'],
    totalCases: r.totalCases,
    completedCases: r.completedCases,
    erroredCases: r.erroredCases,
    aggregate: aggregate(r.scorer as Scorer, r.scoreSum, r.scoredCases),
    costUsd: Number(r.costUsd),
    judgeModel: r.judgeModel,
    error: r.error,
    createdAt: r.createdAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
  };
}
