import { InvalidArgumentError, type Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { printJson, printRecord, shortDate } from '../output.js';
import { usd } from '../usd.js';

type Budget = RouterOutputs['budgets']['get'];

function show(b: Budget): void {
  printRecord({
    MONTH: b.month,
    BUDGET: b.monthlyUsd === null ? 'none' : usd(b.monthlyUsd),
    SPENT: usd(b.spentUsd),
    USED: b.monthlyUsd ? `${((100 * b.spentUsd) / b.monthlyUsd).toFixed(1)}%` : '-',
    'HARD STOP': b.monthlyUsd === null ? '-' : b.hardStop ? 'yes (402 budget_exceeded once spent)' : 'no (alerts only)',
    ALERTS: b.alertThresholds.length ? b.alertThresholds.map((t) => `${t}%`).join(', ') : '-',
    CROSSED: b.alertsCrossed.length
      ? b.alertsCrossed.map((a) => `${a.thresholdPct}% on ${shortDate(a.at)}`).join(', ')
      : '-',
  });
}

function thresholds(value: string): number[] {
  const list = value.split(',').map((v) => Number(v.trim().replace(/%$/, '')));
  if (list.some((n) => !Number.isInteger(n) || n < 1 || n > 1000))
    throw new InvalidArgumentError('Expected percentages, e.g. 50,80,100.');
  return list;
}

export function registerBudgetsCommand(program: Command): void {
  const budgets = program.command('budgets').description("The workspace's monthly budget (team tier)");

  budgets
    .command('show')
    .description("The budget and the month's spend so far")
    .action(async (_opts, command: Command) => {
      const b = await clientFor(command).budgets.get.query();
      if (globalOptions(command).json) return printJson(b);
      show(b);
    });

  budgets
    .command('set <usd>')
    .description('Set the monthly budget in USD ("none" removes it)')
    .option('--alerts <percentages>', 'alert thresholds, e.g. 50,80,100 (default)', thresholds)
    .option('--no-hard-stop', 'record alerts only, never refuse calls')
    .action(async (amount: string, opts: { alerts?: number[]; hardStop: boolean }, command: Command) => {
      const monthlyUsd = amount === 'none' ? null : Number(amount);
      if (monthlyUsd !== null && !(monthlyUsd > 0))
        command.error('error: the budget is a positive amount of USD, or none');
      const b = await clientFor(command).budgets.put.mutate({
        monthlyUsd,
        hardStop: opts.hardStop,
        ...(opts.alerts ? { alertThresholds: opts.alerts } : {}),
      });
      if (globalOptions(command).json) return printJson(b);
      show(b);
    });
}
