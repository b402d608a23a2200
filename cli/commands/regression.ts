import type { Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { printJson, printLine, printRecord, printTable, shortDate, yesNo } from '../output.js';
import { usd } from '../usd.js';

// gatewayctl regression: regression detection (captured exchanges replayed to today's routing and
// judged against the original answers): the opt-in, the replay bank, the events and resolving one.

type Event = RouterOutputs['regression']['events']['items'][number];

const HEAD = ['ID', 'CELL', 'MODEL', 'SAMPLES', 'ORIGINAL', 'REPLAY', 'DELTA', 'SEVERITY', 'CREATED', 'RESOLVED'];
const row = (e: Event) => [
  e.id,
  `${e.taskType}/${e.complexity}`,
  `${e.provider}/${e.model}`,
  e.sampleCount,
  e.originalAvgScore.toFixed(2),
  e.replayAvgScore.toFixed(2),
  e.scoreDelta.toFixed(2),
  e.severity,
  shortDate(e.createdAt),
  e.resolved ? shortDate(e.resolvedAt) : 'no',
];

export function registerRegressionCommand(program: Command): void {
  const cmd = program.command('regression').description('Regression detection: replays of captured exchanges, events');

  cmd
    .command('status')
    .description('Opt-in state, replay bank size and the weekly spend of the replays')
    .action(async (_o: unknown, command: Command) => {
      const s = await clientFor(command).regression.status.query();
      if (globalOptions(command).json) return printJson(s);
      printRecord({
        'Opted in': yesNo(s.enabled),
        'Exchange capture on': yesNo(s.captureEnabled),
        'Replay bank': `${s.replayBankSize} exchanges (at most ${s.bankCapPerCell} per cell)`,
        'Replayed per cell and run': s.samplePerCell,
        'Replay spend, 7 days': `${usd(s.weeklyReplaySpendUsd)} (${s.weeklyReplayCalls} calls)`,
        'Threshold (score)': s.threshold,
        'Min samples': s.minSamples,
      });
    });

  cmd
    .command('opt-in')
    .description('Turn regression detection on (--off: off)')
    .option('--off', 'turn it off')
    .action(async (o: { off?: boolean }, command: Command) => {
      const r = await clientFor(command).regression.optIn.mutate({ enabled: !o.off });
      if (globalOptions(command).json) return printJson(r);
      printLine(`Regression detection is ${r.enabled ? 'on' : 'off'}.`);
    });

  cmd
    .command('events')
    .description('Regression events, newest first')
    .option('--unresolved', 'only unresolved events')
    .action(async (o: { unresolved?: boolean }, command: Command) => {
      const r = await clientFor(command).regression.events.query(o.unresolved ? { unresolvedOnly: 'true' } : undefined);
      if (globalOptions(command).json) return printJson(r);
      printTable(HEAD, r.items.map(row));
    });

  cmd
    .command('resolve <id>')
    .description('Resolve an event, with a note')
    .requiredOption('--note <text>', 'what was found or done')
    .action(async (id: string, o: { note: string }, command: Command) => {
      const e = await clientFor(command).regression.resolve.mutate({ id, note: o.note });
      if (globalOptions(command).json) return printJson(e);
      printTable(HEAD, [row(e)]);
    });
}
