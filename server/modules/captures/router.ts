import { actorOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  CaptureList,
  CaptureSettings,
  ListCapturesInput,
  UpdateCaptureSettingsInput,
  capturesMeta,
} from './schemas.js';

// Exchange capture is opt-in per workspace and free-tier (evals and replay banks build on it).
// Captured exchanges hold whole prompts: only admin tokens change the setting or read them.
export const capturesRouter = router({
  getSettings: tenantProcedure
    .meta(capturesMeta.getSettings)
    .input(noInput)
    .output(CaptureSettings)
    .query(({ ctx }) => ctx.services.captures.settings(ctx.tenantId)),
  updateSettings: adminProcedure
    .meta(capturesMeta.updateSettings)
    .input(UpdateCaptureSettingsInput)
    .output(CaptureSettings)
    .mutation(({ ctx, input }) => ctx.services.captures.update(ctx.tenantId, actorOf(ctx.principal), input)),
  list: adminProcedure
    .meta(capturesMeta.list)
    .input(ListCapturesInput)
    .output(CaptureList)
    .query(({ ctx, input }) => ctx.services.captures.list(ctx.tenantId, input?.limit ?? 20)),
});
