import { router } from '../../trpc/init.js';
import { noInput, requireTier, tenantProcedure } from '../../trpc/procedures.js';
import {
  AppendCaseInput,
  AppendedCases,
  CasesFromRequestsInput,
  CreateDatasetInput,
  CreateRunInput,
  Dataset,
  DatasetDetail,
  DatasetList,
  Deleted,
  EvalCase,
  IdInput,
  Run,
  RunCreated,
  RunDetail,
  RunList,
  evalsMeta,
} from './schemas.js';

// Evals are an intelligence-tier feature: every procedure answers 402 insufficient_tier (with an
// upgrade object) below it. Any token of the workspace may use them: they read and spend, but
// change nothing the workspace's traffic depends on.
const evalProcedure = tenantProcedure.use(requireTier('intelligence'));

export const evalsRouter = router({
  createDataset: evalProcedure
    .meta(evalsMeta.createDataset)
    .input(CreateDatasetInput)
    .output(Dataset)
    .mutation(({ ctx, input }) => ctx.services.evals.createDataset(ctx.tenantId, input)),
  listDatasets: evalProcedure
    .meta(evalsMeta.listDatasets)
    .input(noInput)
    .output(DatasetList)
    .query(({ ctx }) => ctx.services.evals.listDatasets(ctx.tenantId)),
  getDataset: evalProcedure
    .meta(evalsMeta.getDataset)
    .input(IdInput)
    .output(DatasetDetail)
    .query(({ ctx, input }) => ctx.services.evals.getDataset(ctx.tenantId, input.id)),
  appendCase: evalProcedure
    .meta(evalsMeta.appendCase)
    .input(AppendCaseInput)
    .output(EvalCase)
    .mutation(({ ctx, input }) => ctx.services.evals.appendCase(ctx.tenantId, input)),
  casesFromRequests: evalProcedure
    .meta(evalsMeta.casesFromRequests)
    .input(CasesFromRequestsInput)
    .output(AppendedCases)
    .mutation(({ ctx, input }) => ctx.services.evals.casesFromRequests(ctx.tenantId, input)),
  deleteDataset: evalProcedure
    .meta(evalsMeta.deleteDataset)
    .input(IdInput)
    .output(Deleted)
    .mutation(({ ctx, input }) => ctx.services.evals.deleteDataset(ctx.tenantId, input.id)),
  createRun: evalProcedure
    .meta(evalsMeta.createRun)
    .input(CreateRunInput)
    .output(RunCreated)
    .mutation(({ ctx, input }) => ctx.services.evals.createRun(ctx.tenantId, input)),
  listRuns: evalProcedure
    .meta(evalsMeta.listRuns)
    .input(noInput)
    .output(RunList)
    .query(({ ctx }) => ctx.services.evals.listRuns(ctx.tenantId)),
  getRun: evalProcedure
    .meta(evalsMeta.getRun)
    .input(IdInput)
    .output(RunDetail)
    .query(({ ctx, input }) => ctx.services.evals.getRun(ctx.tenantId, input.id)),
  cancelRun: evalProcedure
    .meta(evalsMeta.cancelRun)
    .input(IdInput)
    .output(Run)
    .mutation(({ ctx, input }) => ctx.services.evals.cancelRun(ctx.tenantId, input.id)),
});
