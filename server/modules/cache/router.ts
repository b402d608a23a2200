import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import { CacheStats, ClearCacheInput, ClearCacheResult, cacheMeta } from './schemas.js';

export const cacheRouter = router({
  stats: tenantProcedure
    .meta(cacheMeta.stats)
    .input(noInput)
    .output(CacheStats)
    .query(({ ctx }) => ctx.services.cache.stats(ctx.tenantId)),
  clear: adminProcedure
    .meta(cacheMeta.clear)
    .input(ClearCacheInput)
    .output(ClearCacheResult)
    .mutation(({ ctx, input }) => ctx.services.cache.clear(ctx.tenantId, actorOf(ctx.principal), input)),
});
