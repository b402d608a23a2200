import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { publicProcedure } from '../../trpc/procedures.js';
import { Health, healthMeta } from './schemas.js';

export const systemRouter = router({
  health: publicProcedure
    .meta(healthMeta)
    .input(z.object({}).optional())
    .output(Health)
    .query(({ ctx }) => ctx.services.system.health()),
});
