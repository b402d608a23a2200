import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import { billingMeta, CheckoutInput, CheckoutSession, PortalInput, PortalSession, Subscription } from './schemas.js';

export const billingRouter = router({
  checkout: adminProcedure
    .meta(billingMeta.checkout)
    .input(CheckoutInput)
    .output(CheckoutSession)
    .mutation(({ ctx, input }) => ctx.services.billing.checkout(ctx.tenantId, actorOf(ctx.principal), input)),
  portal: adminProcedure
    .meta(billingMeta.portal)
    .input(PortalInput)
    .output(PortalSession)
    .mutation(({ ctx, input }) => ctx.services.billing.portal(ctx.tenantId, input)),
  subscription: tenantProcedure
    .meta(billingMeta.subscription)
    .input(noInput)
    .output(Subscription)
    .query(({ ctx }) => ctx.services.billing.subscription(ctx.tenantId, ctx.principal.tier)),
});
