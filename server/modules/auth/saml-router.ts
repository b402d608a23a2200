import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput } from '../../trpc/procedures.js';
import { PutSamlInput, SamlConnection, samlMeta } from './saml-schemas.js';

export const samlRouter = router({
  get: adminProcedure
    .meta(samlMeta.get)
    .input(noInput)
    .output(SamlConnection)
    .query(({ ctx }) => ctx.services.signIn.saml.get(ctx.tenantId)),
  put: adminProcedure
    .meta(samlMeta.put)
    .input(PutSamlInput)
    .output(SamlConnection)
    .mutation(({ ctx, input }) => ctx.services.signIn.saml.put(ctx.tenantId, actorOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(samlMeta.remove)
    .input(noInput)
    .output(SamlConnection)
    .mutation(({ ctx }) => ctx.services.signIn.saml.remove(ctx.tenantId, actorOf(ctx.principal))),
});
