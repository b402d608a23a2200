import { z } from 'zod';
import { displayName } from '../../lib/display-name.js';
import { MAX_ID_CHARS } from '../../lib/ids.js';
import { rest } from '../../trpc/meta.js';
import { CaseInput, MAX_JSONL_BYTES } from './cases.js';
import { SCORERS } from './scorers.js';

const tag = 'Evals';

export const ScorerSchema = z.enum(SCORERS);
export const RunStatus = z
  .enum(['queued', 'running', 'completed', 'failed', 'cancelled'])
  .describe('queued -> running -> completed | failed | cancelled');

export const EvalCase = z.object({
  index: z.number().int().describe('0-based position in the dataset'),
  input: z.array(z.unknown()),
  expected: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});

export const Dataset = z.object({
  id: z.string().describe('Dataset id (ds_...)'),
  name: z.string(),
  description: z.string().nullable(),
  caseCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const DatasetDetail = Dataset.extend({ preview: z.array(EvalCase).describe('The first 5 cases') });
export const DatasetList = z.object({ items: z.array(Dataset) });

export const CreateDatasetInput = z.strictObject({
  name: displayName(200),
  description: z.string().max(2_000).optional(),
  // The size is checked in bytes by the service (413), not here.
  jsonl: z
    .string()
    .describe(
      `One JSON case a line: {"input": [messages], "expected"?: "...", "metadata"?: {...}}; at most ${MAX_JSONL_BYTES} bytes`,
    ),
});
export const IdInput = z.object({ id: z.string().min(1).max(MAX_ID_CHARS) });
export const AppendCaseInput = z.strictObject({ ...IdInput.shape, ...CaseInput.shape });
export const CasesFromRequestsInput = z.strictObject({
  ...IdInput.shape,
  requestIds: z
    .array(z.string().min(1).max(MAX_ID_CHARS))
    .min(1)
    .max(100)
    .describe('Requests whose captured exchange becomes a case (exchange capture must have caught them)'),
});
export const AppendedCases = z.object({ items: z.array(EvalCase) });
export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });

export const Aggregate = z.object({
  scorer: ScorerSchema,
  avgScore: z.number().nullable().describe('Mean of the non-null case scores (1-5)'),
  passRate: z
    .number()
    .nullable()
    .describe('Match scorers: ((avgScore - 1) / 4) x 100, the percentage of cases that passed; null for llm-judge'),
  score: z.number().nullable().describe('The headline figure: avgScore for llm-judge, passRate for the match scorers'),
  scoredCases: z.number().int().describe('Cases with a score; null-scored cases count toward progress only'),
});

export const Run = z.object({
  id: z.string().describe('Run id (run_...)'),
  datasetId: z.string(),
  provider: z.string(),
  model: z.string(),
  scorer: ScorerSchema,
  status: RunStatus,
  totalCases: z.number().int(),
  completedCases: z.number().int(),
  erroredCases: z.number().int().describe('Cases whose target or judge call failed (score null)'),
  aggregate: Aggregate,
  costUsd: z.number().describe('Cost of the upstream calls of the run (target and judge)'),
  judgeModel: z.string().nullable().describe('provider/model that grades an llm-judge run'),
  error: z.string().nullable().describe('Why the run failed or was cancelled'),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export const RunResult = z.object({
  caseIndex: z.number().int(),
  output: z.string().nullable().describe("The target's raw output (null when its call failed)"),
  score: z.number().int().nullable(),
  expected: z.string().nullable(),
  error: z.string().nullable(),
  latencyMs: z.number().int(),
  costUsd: z.number(),
});
export const RunDetail = Run.extend({ results: z.array(RunResult) });
export const RunList = z.object({ items: z.array(Run) });
export const RunCreated = z.object({ runId: z.string(), status: z.literal('queued') });

export const CreateRunInput = z.strictObject({
  datasetId: z.string().min(1).max(MAX_ID_CHARS),
  provider: z
    .string()
    .min(1)
    .max(100)
    .describe('Provider name (GET /v1/providers), or gateway with model classifier for the in-process classifier'),
  model: z.string().min(1).max(200),
  scorer: ScorerSchema.default('llm-judge'),
});

const gated = {
  errors: [402] as const,
  description: 'Needs the intelligence tier: other workspaces get 402 insufficient_tier with an upgrade object.',
};

export const evalsMeta = {
  createDataset: rest('POST', '/v1/evals/datasets', tag, 'Create a dataset from JSONL cases', {
    ...gated,
    errors: [402],
    description: `${gated.description} A bad line is a 400 naming its line number, and nothing is stored; more than ${MAX_JSONL_BYTES} bytes or 10,000 cases is a 413.`,
  }),
  listDatasets: rest('GET', '/v1/evals/datasets', tag, 'List datasets, newest first', { ...gated, errors: [402] }),
  getDataset: rest('GET', '/v1/evals/datasets/{id}', tag, 'A dataset with its first 5 cases', {
    ...gated,
    errors: [402],
  }),
  appendCase: rest('POST', '/v1/evals/datasets/{id}/cases', tag, 'Append one case', {
    ...gated,
    errors: [402],
  }),
  casesFromRequests: rest(
    'POST',
    '/v1/evals/datasets/{id}/cases/from-requests',
    tag,
    'Append cases saved from the request log: the captured exchange, with expected set to the observed answer',
    {
      errors: [402],
      description: `${gated.description} Needs exchange capture (PUT /v1/captures/settings): a request it did not capture is a 404 naming it, and nothing is appended.`,
    },
  ),
  deleteDataset: rest('DELETE', '/v1/evals/datasets/{id}', tag, 'Delete a dataset, its runs and their results', {
    ...gated,
    errors: [402],
  }),
  createRun: rest('POST', '/v1/evals/runs', tag, 'Start a run (202, status queued)', {
    ...gated,
    errors: [402, 404],
    description: `${gated.description} The run executes in the background, 4 cases at a time; GET /v1/evals/runs/{id} shows it live. exact-match and regex-match need an expected value on every case (400 names the first without). Model-target runs write cost rows named eval-<runId>-<caseIndex> (their judge calls eval-<runId>-<caseIndex>-judge) and no request rows.`,
  }),
  listRuns: rest('GET', '/v1/evals/runs', tag, 'The last 50 runs, newest first', { ...gated, errors: [402] }),
  getRun: rest('GET', '/v1/evals/runs/{id}', tag, 'A run with every case result and the aggregate so far', {
    ...gated,
    errors: [402],
  }),
  cancelRun: rest('POST', '/v1/evals/runs/{id}/cancel', tag, 'Cancel a queued or running run', {
    ...gated,
    errors: [402, 409],
    description: `${gated.description} A run that already ended answers 409. Cases in flight finish; no new batch starts.`,
  }),
};
