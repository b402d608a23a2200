import { writeFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import type { RouterInputs, RouterOutputs } from '../../sdk/index.js';
import { CliError, clientFor, globalOptions } from '../client.js';
import { orDash, printJson, printLine, printRecord, printTable } from '../output.js';
import { usd } from '../usd.js';

// gatewayctl spend: where the workspace's money goes (by provider, model, cell, token or user),
// where it is heading this month, what changed week over week, cheaper models worth moving to,
// and a CSV or JSON export. Every figure comes from /v1/spend through the SDK.

type Outputs = RouterOutputs['spend'];
type Inputs = RouterInputs['spend'];
type Procedures = { [K in keyof Outputs]: { query(input?: Inputs[K]): Promise<Outputs[K]> } };

function spend(command: Command): Procedures {
  return (clientFor(command) as unknown as { spend: Procedures }).spend;
}

const DIMENSIONS = ['provider', 'model', 'cell', 'token', 'user'] as const;
const RANGES = ['24h', '7d', '30d', '90d'] as const;

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const change = (v: number | null) => (v === null ? 'new' : `${v > 0 ? '+' : ''}${v.toFixed(1)}%`);
const int = (v: number) => Math.round(v).toLocaleString('en-US');

/** --range, or --from/--to: the window options every spend listing takes. */
function windowOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--range <range>', 'window ending now (default 30d)').choices(RANGES))
    .option('--from <iso>', 'window start (ISO 8601), instead of --range')
    .option('--to <iso>', 'window end (ISO 8601, default now)');
}

interface WindowOpts {
  range?: (typeof RANGES)[number];
  from?: string;
  to?: string;
}

function windowOf(o: WindowOpts): WindowOpts {
  return {
    ...(o.range ? { range: o.range } : {}),
    ...(o.from ? { from: o.from } : {}),
    ...(o.to ? { to: o.to } : {}),
  };
}

export function registerSpendCommand(program: Command): void {
  const cmd = program.command('spend').description('Spend by dimension, month trajectory, drift, savings, export');

  windowOptions(
    cmd
      .command('by')
      .description('Spend per provider, model, routing cell, token or user, with the change against the period before')
      .addOption(new Option('--dimension <dimension>', 'what to group by').choices(DIMENSIONS).default('model')),
  ).action(async (o: WindowOpts & { dimension: (typeof DIMENSIONS)[number] }, command: Command) => {
    const r = await spend(command).by.query({ dimension: o.dimension, ...windowOf(o) });
    if (globalOptions(command).json) return printJson(r);
    printTable(
      [o.dimension.toUpperCase(), 'SPEND', 'SHARE', 'CALLS', 'TOKENS IN/OUT', 'BEFORE', 'CHANGE'],
      r.items.map((i) => [
        i.label ? `${i.label} (${i.key})` : i.key || '-',
        usd(i.spendUsd),
        pct(i.share),
        int(i.calls),
        `${int(i.inputTokens)}/${int(i.outputTokens)}`,
        usd(i.previousSpendUsd),
        change(i.changePct),
      ]),
    );
    printLine(`Total ${usd(r.totalUsd)} (before: ${usd(r.previousTotalUsd)}), ${r.period.from} to ${r.period.to}.`);
    if (r.note) printLine(r.note);
  });

  cmd
    .command('trajectory')
    .description("This month's spend per day and the projection to month end")
    .action(async (_o: unknown, command: Command) => {
      const r = await spend(command).trajectory.query();
      if (globalOptions(command).json) return printJson(r);
      printTable(
        ['DAY', 'SPEND'],
        r.days.map((d) => [d.date, usd(d.spendUsd)]),
      );
      printRecord({
        MONTH: r.month,
        'MONTH TO DATE': usd(r.monthToDateUsd),
        PROJECTED: `${usd(r.projection.projectedMonthUsd)} (${usd(r.projection.lowUsd)} - ${usd(r.projection.highUsd)})`,
        BUDGET: r.budget
          ? `${usd(r.budget.monthlyUsd)}: ${pct(r.budget.spentShare)} spent, ${pct(r.budget.projectedShare)} projected`
          : '-',
      });
      printLine(`Method: ${r.projection.method}.`);
    });

  cmd
    .command('drift')
    .description('Week-over-week change per model and per cell, split into volume and price or mix')
    .action(async (_o: unknown, command: Command) => {
      const r = await spend(command).drift.query();
      if (globalOptions(command).json) return printJson(r);
      for (const [title, items] of [
        ['MODEL', r.byModel],
        ['CELL', r.byCell],
      ] as const)
        printTable(
          [title, 'THIS WEEK', 'WEEK BEFORE', 'CHANGE', 'FROM VOLUME', 'FROM PRICE/MIX'],
          items.map((i) => [
            i.key,
            usd(i.spendUsd),
            usd(i.previousSpendUsd),
            usd(i.changeUsd),
            usd(i.volumeUsd),
            usd(i.priceOrMixUsd),
          ]),
        );
    });

  cmd
    .command('recommendations')
    .description('Per cell, a cheaper model whose judged quality is within tolerance, with the savings')
    .option('--tolerance <score>', 'how far below the current score a cheaper model may be (default 0.25)')
    .option('--min-samples <n>', 'judged samples each model needs on the cell')
    .action(async (o: { tolerance?: string; minSamples?: string }, command: Command) => {
      const input: Inputs['recommendations'] = {};
      if (o.tolerance !== undefined) input.tolerance = numberOption('--tolerance', o.tolerance);
      if (o.minSamples !== undefined) input.minSamples = numberOption('--min-samples', o.minSamples);
      const r = await spend(command).recommendations.query(input);
      if (globalOptions(command).json) return printJson(r);
      if (r.items.length === 0)
        return printLine(
          `No recommendation: no cell has a cheaper model with ${r.minSamples}+ judged samples within ${r.tolerance}.`,
        );
      printTable(
        ['CELL', 'NOW', 'SCORE', 'COST/CALL', 'MOVE TO', 'SCORE', 'COST/CALL', 'SAVES / MONTH'],
        r.items.map((i) => [
          `${i.taskType}/${i.complexity}`,
          `${i.current.provider}/${i.current.model}`,
          `${i.current.avgScore} (n=${i.current.samples})`,
          usd(i.current.avgCostPerCallUsd),
          `${i.recommended.provider}/${i.recommended.model}`,
          `${i.recommended.avgScore} (n=${i.recommended.samples})`,
          usd(i.recommended.avgCostPerCallUsd),
          orDash(i.estimatedMonthlySavingsUsd, (v) => usd(Number(v))),
        ]),
      );
    });

  windowOptions(
    cmd
      .command('export')
      .description('Every dimension as CSV (or JSON), to a file or standard output')
      .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
      .option('--out <file>', "write to this file ('-' for standard output; default: the name the gateway gives)"),
  ).action(async (o: WindowOpts & { format: 'csv' | 'json'; out?: string }, command: Command) => {
    const gw = clientFor(command);
    const file = await gw.spendExport.download({ format: o.format, ...windowOf(o) });
    if (o.out === '-') return void process.stdout.write(file.body);
    const path = o.out ?? file.filename;
    await writeFile(path, file.body);
    printLine(`Wrote ${path} (${Buffer.byteLength(file.body).toLocaleString('en-US')} bytes).`);
  });
}

function numberOption(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new CliError(`${name}: not a number: ${value}`);
  return n;
}
