import { z } from 'zod';
import { router } from '../../trpc/init.js';
import { publicProcedure } from '../../trpc/procedures.js';
import { Health, healthMeta } from './schemas.js';

export const systemRouter = router({
  health: publicProcedure
    .meta(healthMeta)
    // Deliberately lenient: a load balancer's probe that adds a query parameter must still see 200.
    .input(z.object({}).optional())
    .output(Health)
    .query(({ ctx }) => ctx.services.system.health()),
});
