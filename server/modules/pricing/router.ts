import { router } from '../../trpc/init.js';
import { actorOf } from '../../trpc/actor.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  DeletedPriceOverride,
  DeletePriceOverrideInput,
  PriceOverride,
  PriceOverrideList,
  pricingMeta,
  SetPriceOverrideInput,
} from './schemas.js';

export const pricingRouter = router({
  listOverrides: tenantProcedure
    .meta(pricingMeta.list)
    .input(noInput)
    .output(PriceOverrideList)
    .query(({ ctx }) => ctx.services.pricing.list(ctx.tenantId)),
  setOverride: adminProcedure
    .meta(pricingMeta.set)
    .input(SetPriceOverrideInput)
    .output(PriceOverride)
    .mutation(({ ctx, input }) => ctx.services.pricing.set(ctx.tenantId, actorOf(ctx.principal), input)),
  removeOverride: adminProcedure
    .meta(pricingMeta.remove)
    .input(DeletePriceOverrideInput)
    .output(DeletedPriceOverride)
    .mutation(({ ctx, input }) => ctx.services.pricing.remove(ctx.tenantId, actorOf(ctx.principal), input)),
});
