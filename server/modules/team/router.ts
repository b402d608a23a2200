import { actorOf, teamCallerOf } from '../../trpc/actor.js';
import { router } from '../../trpc/init.js';
import { adminProcedure, noInput, tenantProcedure } from '../../trpc/procedures.js';
import {
  ChangeRoleInput,
  CreateInviteInput,
  InviteList,
  InviteRemoved,
  InviteTokenInput,
  MemberRemoved,
  TeamInvite,
  TeamList,
  TeamMember,
  UserIdInput,
  teamMeta,
} from './schemas.js';

export const teamRouter = router({
  list: tenantProcedure
    .meta(teamMeta.list)
    .input(noInput)
    .output(TeamList)
    .query(async ({ ctx }) => ({ members: await ctx.services.team.list(ctx.tenantId) })),
  changeRole: adminProcedure
    .meta(teamMeta.changeRole)
    .input(ChangeRoleInput)
    .output(TeamMember)
    .mutation(({ ctx, input }) => ctx.services.team.changeRole(ctx.tenantId, teamCallerOf(ctx.principal), input)),
  remove: adminProcedure
    .meta(teamMeta.remove)
    .input(UserIdInput)
    .output(MemberRemoved)
    .mutation(({ ctx, input }) => ctx.services.team.remove(ctx.tenantId, teamCallerOf(ctx.principal), input.userId)),
  listInvites: adminProcedure
    .meta(teamMeta.listInvites)
    .input(noInput)
    .output(InviteList)
    .query(async ({ ctx }) => ({ items: await ctx.services.team.invites(ctx.tenantId) })),
  createInvite: adminProcedure
    .meta(teamMeta.createInvite)
    .input(CreateInviteInput)
    .output(TeamInvite)
    .mutation(({ ctx, input }) => ctx.services.team.invite(ctx.tenantId, teamCallerOf(ctx.principal), input)),
  removeInvite: adminProcedure
    .meta(teamMeta.removeInvite)
    .input(InviteTokenInput)
    .output(InviteRemoved)
    .mutation(({ ctx, input }) => ctx.services.team.removeInvite(ctx.tenantId, actorOf(ctx.principal), input.token)),
});
