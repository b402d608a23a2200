import type { Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { orDash, printJson, printLine, printRecord, printTable, shortDate, yesNo } from '../output.js';
import { usd } from '../usd.js';

// gatewayctl migrations: cost migrations (cells moved to a cheaper model of about the same judged
// quality): the opt-in, the projected savings, the list, a cycle now, and a rollback.

type Migration = RouterOutputs['costMigrations']['list']['items'][number];

const HEAD = ['ID', 'CELL', 'FROM', 'TO', 'STATUS', 'SCORES FROM/TO', 'SAVINGS/MONTH', 'CREATED'];
const row = (m: Migration) => [
  m.id,
  `${m.taskType}/${m.complexity}`,
  `${m.from.provider}/${m.from.model}`,
  `${m.to.provider}/${m.to.model}`,
  m.status === 'active' ? (m.inGrace ? 'active (grace)' : 'active') : `rolled back (${orDash(m.rollbackKind)})`,
  `${m.evidence.fromAvgScore.toFixed(2)}/${m.evidence.toAvgScore.toFixed(2)}`,
  usd(m.projectedMonthlySavingsUsd),
  shortDate(m.createdAt),
];

export function registerMigrationsCommand(program: Command): void {
  const cmd = program
    .command('migrations')
    .description('Cost migrations: cells moved to cheaper models, with rollback');

  cmd
    .command('status')
    .description('Opt-in state and projected monthly savings')
    .action(async (_o: unknown, command: Command) => {
      const s = await clientFor(command).costMigrations.status.query();
      if (globalOptions(command).json) return printJson(s);
      printRecord({
        'Opted in': yesNo(s.enabled),
        'Active migrations': s.activeMigrations,
        'Projected savings / month': usd(s.projectedMonthlySavingsUsd),
        'Tolerance (score)': s.toleranceScore,
        'Grace (days)': s.graceDays,
      });
    });

  cmd
    .command('opt-in')
    .description('Turn automatic cost migrations on (--off: off)')
    .option('--off', 'turn them off')
    .action(async (o: { off?: boolean }, command: Command) => {
      const r = await clientFor(command).costMigrations.optIn.mutate({ enabled: !o.off });
      if (globalOptions(command).json) return printJson(r);
      printLine(`Cost migrations are ${r.enabled ? 'on' : 'off'}.`);
    });

  cmd
    .command('list')
    .description('Active and rolled-back migrations, newest first')
    .action(async (_o: unknown, command: Command) => {
      const r = await clientFor(command).costMigrations.list.query();
      if (globalOptions(command).json) return printJson(r);
      printTable(HEAD, r.items.map(row));
    });

  cmd
    .command('run')
    .description('Run one migration cycle now')
    .action(async (_o: unknown, command: Command) => {
      const r = await clientFor(command, { untimed: true }).costMigrations.run.mutate();
      if (globalOptions(command).json) return printJson(r);
      if (r.migrated.length) printTable(HEAD, r.migrated.map(row));
      printLine(
        `Migrated ${r.migrated.length}, rolled back ${r.rolledBack.length}, grace ended for ${r.graceEnded.length}.`,
      );
    });

  cmd
    .command('rollback <id>')
    .description('Roll a migration back: the cell routes as before, the grace boost cleared')
    .option('--reason <text>', 'why (kept with the migration)')
    .action(async (id: string, o: { reason?: string }, command: Command) => {
      const m = await clientFor(command).costMigrations.rollback.mutate({
        id,
        ...(o.reason ? { reason: o.reason } : {}),
      });
      if (globalOptions(command).json) return printJson(m);
      printTable(HEAD, [row(m)]);
    });
}
