import { router } from '../../trpc/init.js';
import { actorOf } from '../../trpc/actor.js';
import { adminProcedure, noInput as NoInput, tenantProcedure } from '../../trpc/procedures.js';
import {
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
  feedbackMeta,
} from './schemas.js';

export const feedbackRouter = router({
  submit: tenantProcedure
    .meta(feedbackMeta.submit)
    .input(SubmitFeedbackInput)
    .output(Feedback)
    .mutation(({ ctx, input }) => ctx.services.feedback.submit(ctx.tenantId, input)),
  list: tenantProcedure
    .meta(feedbackMeta.list)
    .input(ListFeedbackInput)
    .output(FeedbackPage)
    .query(({ ctx, input }) => ctx.services.feedback.list(ctx.tenantId, input)),
  qualityByModel: tenantProcedure
    .meta(feedbackMeta.byModel)
    .input(NoInput)
    .output(QualityByModel)
    .query(({ ctx }) => ctx.services.feedback.byModel(ctx.tenantId)),
  qualityByCell: tenantProcedure
    .meta(feedbackMeta.byCell)
    .input(NoInput)
    .output(QualityByCell)
    .query(({ ctx }) => ctx.services.feedback.byCell(ctx.tenantId)),
  qualityTrend: tenantProcedure
    .meta(feedbackMeta.trend)
    .input(TrendInput)
    .output(QualityTrend)
    .query(({ ctx, input }) => ctx.services.feedback.trend(ctx.tenantId, input)),
  judgeConfig: tenantProcedure
    .meta(feedbackMeta.getJudge)
    .input(NoInput)
    .output(JudgeConfig)
    .query(({ ctx }) => ctx.services.feedback.judgeConfig(ctx.tenantId)),
  updateJudgeConfig: adminProcedure
    .meta(feedbackMeta.putJudge)
    .input(UpdateJudgeConfigInput)
    .output(JudgeConfig)
    .mutation(({ ctx, input }) => ctx.services.feedback.updateJudgeConfig(ctx.tenantId, actorOf(ctx.principal), input)),
});
