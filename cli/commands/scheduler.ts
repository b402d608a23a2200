import type { Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { setExitCode } from '../io.js';
import { orDash, printError, printJson, printTable, shortDate } from '../output.js';

type JobState = RouterOutputs['scheduler']['list']['items'][number];

const HEAD = ['NAME', 'SCHEDULE (UTC)', 'LAST STARTED', 'LAST FINISHED', 'OUTCOME', 'RUNS', 'RESULT'];

function row(j: JobState): string[] {
  return [
    j.name,
    j.schedule ?? 'on demand',
    shortDate(j.lastStartedAt),
    shortDate(j.lastFinishedAt),
    orDash(j.outcome),
    String(j.runCount),
    orDash(j.outcome === 'failed' ? j.error : j.summary),
  ];
}

export function registerSchedulerCommand(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('Background jobs: schedules, last runs, run now (needs an admin token)');

  jobs
    .command('list')
    .description("List jobs with their schedule and this workspace's last run")
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).scheduler.list.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(HEAD, result.items.map(row));
    });

  jobs
    .command('run <name>')
    .description('Run a job now for this workspace and wait for its outcome')
    .action(async (name: string, _opts: unknown, command: Command) => {
      // A run can take minutes: wait for its outcome unless --timeout says otherwise.
      const state = await clientFor(command, { untimed: true }).scheduler.run.mutate({ name });
      if (globalOptions(command).json) printJson(state);
      else printTable(HEAD, [row(state)]);
      // The run happened and its failure is the answer (HTTP 200), but scripts should still see it.
      if (state.outcome === 'failed') {
        if (!globalOptions(command).json) printError(`job ${state.name} failed: ${state.error ?? 'unknown error'}`);
        setExitCode(1);
      }
    });
}
