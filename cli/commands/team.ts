import { InvalidArgumentError, type Command } from 'commander';
import { clientFor, globalOptions } from '../client.js';
import { parsePositiveNumber } from '../options.js';
import { orDash, printJson, printLine, printTable, shortDate } from '../output.js';

const ROLES = ['owner', 'admin', 'member', 'read-only'] as const;
type Role = (typeof ROLES)[number];

function parseRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new InvalidArgumentError(`Expected one of ${ROLES.join(', ')}.`);
}

export function registerTeamCommand(program: Command): void {
  const team = program.command('team').description('Members of the workspace, their roles, and invitations');

  team
    .command('list')
    .description('List members and their roles')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).team.list.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(
        ['USER', 'EMAIL', 'NAME', 'ROLE', 'JOINED'],
        result.members.map((m) => [m.userId, m.email, orDash(m.name), m.role, shortDate(m.joinedAt)]),
      );
    });

  team
    .command('invite <email>')
    .description('Invite an e-mail address; the invitee signs in with the printed invite token')
    .option('--role <role>', 'admin, member or read-only (default member)', parseRole)
    .option('--expires-hours <hours>', 'hours until the invite lapses (default 168)', parsePositiveNumber)
    .action(async (email: string, opts: { role?: Role; expiresHours?: number }, command: Command) => {
      if (opts.role === 'owner') throw new InvalidArgumentError('Invite as admin, then make the member owner.');
      const invite = await clientFor(command).team.createInvite.mutate({
        email,
        ...(opts.role ? { role: opts.role } : {}),
        ...(opts.expiresHours ? { expiresInHours: opts.expiresHours } : {}),
      });
      if (globalOptions(command).json) return printJson(invite);
      printLine(`Invited ${invite.email} as ${invite.role} until ${shortDate(invite.expiresAt)}.`);
      printLine(`Invite token: ${invite.token}`);
    });

  team
    .command('invites')
    .description('List open invitations')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).team.listInvites.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(
        ['TOKEN', 'EMAIL', 'ROLE', 'EXPIRES'],
        result.items.map((i) => [i.token, i.email, i.role, shortDate(i.expiresAt)]),
      );
    });

  team
    .command('uninvite <token>')
    .description('Withdraw an invitation')
    .action(async (token: string, _opts, command: Command) => {
      const result = await clientFor(command).team.removeInvite.mutate({ token });
      if (globalOptions(command).json) return printJson(result);
      printLine('Invitation withdrawn.');
    });

  team
    .command('role <userId> <role>')
    .description("Change a member's role (owner, admin, member, read-only)")
    .action(async (userId: string, role: string, _opts, command: Command) => {
      const member = await clientFor(command).team.changeRole.mutate({ userId, role: parseRole(role) });
      if (globalOptions(command).json) return printJson(member);
      printLine(`${member.email} is now ${member.role}.`);
    });

  team
    .command('remove <userId>')
    .description('Remove a member: their sessions end and their tokens stop working')
    .action(async (userId: string, _opts, command: Command) => {
      const result = await clientFor(command).team.remove.mutate({ userId });
      if (globalOptions(command).json) return printJson(result);
      printLine(`Member ${result.userId} removed.`);
    });
}
