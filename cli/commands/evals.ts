import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { watchEvalRun, type EvalRunDetail, type RouterInputs, type RouterOutputs } from '../../sdk/index.js';
import { CliError, clientFor, globalOptions } from '../client.js';
import { setExitCode, writeErr } from '../io.js';
import { parsePositiveNumber } from '../options.js';
import { orDash, printError, printJson, printLine, printRecord, printTable, shortDate } from '../output.js';
import { usd } from '../usd.js';

type Run = RouterOutputs['evals']['listRuns']['items'][number];
type Dataset = RouterOutputs['evals']['listDatasets']['items'][number];
type Scorer = NonNullable<RouterInputs['evals']['createRun']['scorer']>;

const SCORERS = Object.keys({ 'llm-judge': 1, 'exact-match': 1, 'regex-match': 1 } satisfies Record<Scorer, 1>);

/** Exit code of `evals run --min-score` when the run finished but scored below the bar. */
export const EXIT_BELOW_MIN_SCORE = 3;

/** "openai/gpt-4o-mini" -> provider and model (the model may hold slashes of its own). */
function parseTarget(spec: string): { provider: string; model: string } {
  const slash = spec.indexOf('/');
  if (slash <= 0 || slash === spec.length - 1)
    throw new InvalidArgumentError('Expected provider/model, e.g. openai/gpt-4o-mini or gateway/classifier.');
  return { provider: spec.slice(0, slash), model: spec.slice(slash + 1) };
}

function parseScore(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('Expected a number (1-5 for llm-judge, a percentage for the match scorers).');
  return n;
}

/** The run's headline: "3.40 / 5" for the judge, "60.0% pass" for the match scorers, "-" before any score. */
export function scoreText(run: Pick<Run, 'scorer' | 'aggregate'>): string {
  const { score } = run.aggregate;
  if (score === null) return '-';
  return run.scorer === 'llm-judge' ? `${score.toFixed(2)} / 5` : `${score.toFixed(1)}% pass`;
}

const RUN_HEAD = ['ID', 'STATUS', 'TARGET', 'SCORER', 'CASES', 'SCORE', 'COST', 'CREATED'];

function runRow(r: Run): string[] {
  return [
    r.id,
    r.status,
    `${r.provider}/${r.model}`,
    r.scorer,
    `${r.completedCases}/${r.totalCases}`,
    scoreText(r),
    usd(r.costUsd),
    shortDate(r.createdAt),
  ];
}

const DATASET_HEAD = ['ID', 'NAME', 'CASES', 'DESCRIPTION', 'CREATED'];

function datasetRow(d: Dataset): string[] {
  return [d.id, d.name, String(d.caseCount), d.description ?? '-', shortDate(d.createdAt)];
}

/** One line of a result table: long outputs are cut, so the table stays readable. */
function clipCell(text: string | null, max = 60): string {
  if (text === null) return '-';
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function printRun(run: EvalRunDetail): void {
  printRecord({
    ID: run.id,
    STATUS: run.status,
    DATASET: run.datasetId,
    TARGET: `${run.provider}/${run.model}`,
    SCORER: run.scorer,
    ...(run.judgeModel ? { JUDGE: run.judgeModel } : {}),
    CASES: `${run.completedCases}/${run.totalCases} done, ${run.aggregate.scoredCases} scored, ${run.erroredCases} errors`,
    SCORE: scoreText(run),
    COST: usd(run.costUsd),
    CREATED: shortDate(run.createdAt, { seconds: true }),
    FINISHED: shortDate(run.finishedAt, { seconds: true }),
    ...(run.error ? { ERROR: run.error } : {}),
  });
  printTable(
    ['CASE', 'SCORE', 'EXPECTED', 'OUTPUT', 'LATENCY', 'ERROR'],
    run.results.map((r) => [
      String(r.caseIndex),
      orDash(r.score),
      clipCell(r.expected, 30),
      clipCell(r.output),
      `${r.latencyMs} ms`,
      clipCell(r.error, 40),
    ]),
  );
}

const BAR_WIDTH = 30;

/** "[#########.....]  12/40 cases  score 60.0% pass  ETA 14s" */
export function progressLine(run: EvalRunDetail, startedAt: number, now = Date.now()): string {
  const total = Math.max(1, run.totalCases);
  const done = Math.min(run.completedCases, total);
  const filled = Math.round((done / total) * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
  let eta = '-';
  if (done >= total) eta = '0s';
  else if (done > 0) eta = `${Math.ceil((((now - startedAt) / done) * (total - done)) / 1000)}s`;
  return `${bar} ${done}/${run.totalCases} cases  score ${scoreText(run)}  ${run.status}  ETA ${eta}`;
}

/** Progress on stderr: redrawn in place on a terminal, one line per change otherwise (CI logs). */
function progressPrinter(): { update(run: EvalRunDetail): void; end(): void } {
  const startedAt = Date.now();
  const tty = process.stderr.isTTY === true;
  let last = '';
  return {
    update(run) {
      const line = progressLine(run, startedAt);
      if (line === last) return;
      last = line;
      writeErr(tty ? `\r${line}\x1b[K` : `${line}\n`);
    },
    end() {
      if (tty && last) writeErr('\n');
    },
  };
}

interface RunOptions {
  dataset: string;
  model: { provider: string; model: string };
  scorer?: Scorer;
  watch?: boolean;
  minScore?: number;
  interval?: number;
}

export function registerEvalsCommand(program: Command): void {
  const evals = program
    .command('evals')
    .description('Evals: datasets of cases, runs of a model (or the classifier) over them, scores');

  const datasets = evals.command('datasets').description('Eval datasets (JSONL cases)');

  datasets
    .command('create')
    .description(
      'Create a dataset from a JSONL file: {"input": [messages], "expected"?: "...", "metadata"?: {...}} a line',
    )
    .requiredOption('--file <path>', 'the JSONL file')
    .option('--name <name>', 'dataset name (default: the file name)')
    .option('--description <text>', 'what the dataset tests')
    .action(async (opts: { file: string; name?: string; description?: string }, command: Command) => {
      let jsonl: string;
      try {
        jsonl = await readFile(opts.file, 'utf8');
      } catch (err) {
        throw new CliError(
          `cannot read ${opts.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
      const name = opts.name ?? basename(opts.file, extname(opts.file));
      const created = await clientFor(command).evals.createDataset.mutate({
        name,
        jsonl,
        ...(opts.description ? { description: opts.description } : {}),
      });
      if (globalOptions(command).json) return printJson(created);
      printTable(DATASET_HEAD, [datasetRow(created)]);
    });

  datasets
    .command('list')
    .description('List datasets, newest first')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).evals.listDatasets.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(DATASET_HEAD, result.items.map(datasetRow));
    });

  datasets
    .command('show <id>')
    .description('Show a dataset and its first 5 cases')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const ds = await clientFor(command).evals.getDataset.query({ id });
      if (globalOptions(command).json) return printJson(ds);
      printTable(DATASET_HEAD, [datasetRow(ds)]);
      printTable(
        ['CASE', 'INPUT', 'EXPECTED'],
        ds.preview.map((c) => [String(c.index), clipCell(JSON.stringify(c.input), 70), clipCell(c.expected, 30)]),
      );
    });

  datasets
    .command('delete <id>')
    .description('Delete a dataset with its runs and their results')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const deleted = await clientFor(command).evals.deleteDataset.mutate({ id });
      if (globalOptions(command).json) return printJson(deleted);
      printLine(`Dataset ${deleted.id} deleted.`);
    });

  evals
    .command('run')
    .description('Run a model (or gateway/classifier) over a dataset; --watch follows it to the end')
    .requiredOption('--dataset <id>', 'the dataset (ds_...)')
    .addOption(
      new Option('--model <provider/model>', 'the target, e.g. openai/gpt-4o-mini, or gateway/classifier')
        .makeOptionMandatory()
        .argParser(parseTarget),
    )
    .addOption(new Option('--scorer <scorer>', 'how outputs are scored (default: llm-judge)').choices(SCORERS))
    .option('--watch', 'show a progress bar until the run ends, then its results')
    .addOption(
      new Option(
        '--min-score <score>',
        `wait for the run and exit ${EXIT_BELOW_MIN_SCORE} when it scores below this (1-5 for llm-judge, percent pass for the match scorers)`,
      ).argParser(parseScore),
    )
    .addOption(
      new Option('--interval <seconds>', 'time between two looks at the run (default 1)')
        .argParser(parsePositiveNumber)
        .hideHelp(),
    )
    .action(async (opts: RunOptions, command: Command) => {
      const json = globalOptions(command).json;
      const client = clientFor(command);
      const started = await client.evals.createRun.mutate({
        datasetId: opts.dataset,
        ...opts.model,
        ...(opts.scorer ? { scorer: opts.scorer } : {}),
      });
      if (!opts.watch && opts.minScore === undefined) {
        if (json) return printJson(started);
        printLine(
          `Eval run ${started.runId} ${started.status}. Follow it with: gatewayctl evals runs show ${started.runId}`,
        );
        return;
      }
      const progress = opts.watch && !json ? progressPrinter() : undefined;
      let run: EvalRunDetail;
      try {
        run = await watchEvalRun(client, started.runId, {
          intervalMs: (opts.interval ?? 1) * 1000,
          ...(progress ? { onProgress: (r: EvalRunDetail) => progress.update(r) } : {}),
        });
      } finally {
        progress?.end();
      }
      if (json) printJson(run);
      else printRun(run);
      if (run.status !== 'completed') {
        printError(`eval run ${run.id} ${run.status}${run.error ? `: ${run.error}` : ''}`);
        setExitCode(1);
        return;
      }
      if (opts.minScore !== undefined) {
        const score = run.aggregate.score;
        if (score === null || score < opts.minScore) {
          printError(`eval run ${run.id} scored ${scoreText(run)}, below --min-score ${opts.minScore}`);
          setExitCode(EXIT_BELOW_MIN_SCORE);
        }
      }
    });

  const runs = evals.command('runs').description('Eval runs');

  runs
    .command('list')
    .description('The last 50 runs, newest first')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).evals.listRuns.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(RUN_HEAD, result.items.map(runRow));
    });

  runs
    .command('show <id>')
    .description('Show a run, its aggregate and every case result')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const run = await clientFor(command).evals.getRun.query({ id });
      if (globalOptions(command).json) return printJson(run);
      printRun(run);
    });

  runs
    .command('cancel <id>')
    .description('Cancel a queued or running run')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const run = await clientFor(command).evals.cancelRun.mutate({ id });
      if (globalOptions(command).json) return printJson(run);
      printLine(`Eval run ${run.id} cancelled after ${run.completedCases}/${run.totalCases} cases.`);
    });
}
