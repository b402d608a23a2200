import { router } from '../../trpc/init.js';
import { adminProcedure, noInput } from '../../trpc/procedures.js';
import { actorOf } from '../../trpc/actor.js';
import { JobList, JobState, RunJobInput, schedulerMeta } from './schemas.js';

export const schedulerRouter = router({
  list: adminProcedure
    .meta(schedulerMeta.list)
    .input(noInput)
    .output(JobList)
    .query(async ({ ctx }) => ({ items: await ctx.services.scheduler.list(ctx.tenantId) })),
  run: adminProcedure
    .meta(schedulerMeta.run)
    .input(RunJobInput)
    .output(JobState)
    .mutation(({ ctx, input }) => ctx.services.scheduler.run(ctx.tenantId, actorOf(ctx.principal), input.name)),
});
