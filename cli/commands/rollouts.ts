import { InvalidArgumentError, Option, type Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { parsePositiveInteger, parsePositiveNumber } from '../options.js';
import { orDash, printJson, printLine, printRecord, printTable, shortDate } from '../output.js';

type Rollout = RouterOutputs['rollouts']['list']['items'][number];

const HEAD = ['ID', 'TEMPLATE', 'STATUS', 'CANARY', 'STABLE', 'PCT', 'CREATED', 'REASON'];

function row(r: Rollout): string[] {
  return [
    r.id,
    r.templateId,
    r.status,
    r.canaryVersionId,
    r.stableVersionId,
    `${r.rolloutPct}%`,
    shortDate(r.createdAt),
    r.completionReason ?? '-',
  ];
}

function parsePct(value: string): number {
  const n = parsePositiveNumber(value);
  if (n >= 100) throw new InvalidArgumentError('Expected a percentage above 0 and below 100.');
  return n;
}

function parseDelta(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 4)
    throw new InvalidArgumentError('Expected a number from 0 to 4 (points on the 1-5 scale).');
  return n;
}

/** --var name=value, repeated. */
function parseVar(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('Expected name=value.');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

interface CreateOptions {
  template: string;
  canary: string;
  pct: number;
  minSamples?: number;
  windowHours?: number;
  maxDelta?: number;
}

export function registerRolloutsCommand(program: Command): void {
  const rollouts = program
    .command('rollouts')
    .description('Prompt canary rollouts: a share of resolves gets a new version, promoted or reverted from feedback');

  rollouts
    .command('create')
    .description('Start a canary rollout (the stable arm is the published version)')
    .requiredOption('--template <id>', 'the template (pt_...)')
    .requiredOption('--canary <versionId>', 'the version under test (pv_...)')
    .addOption(
      new Option('--pct <percent>', 'share of resolves sent to the canary').makeOptionMandatory().argParser(parsePct),
    )
    .addOption(
      new Option('--min-samples <n>', 'scored requests each arm needs (default 20)').argParser(parsePositiveInteger),
    )
    .addOption(
      new Option('--window-hours <h>', 'rolling window for samples (default 24)').argParser(parsePositiveNumber),
    )
    .addOption(
      new Option('--max-delta <points>', 'tolerated drop of the canary average score (default 0.25)').argParser(
        parseDelta,
      ),
    )
    .action(async (opts: CreateOptions, command: Command) => {
      const criteria = {
        ...(opts.minSamples !== undefined ? { min_samples: opts.minSamples } : {}),
        ...(opts.windowHours !== undefined ? { window_hours: opts.windowHours } : {}),
        ...(opts.maxDelta !== undefined ? { max_avg_score_delta: opts.maxDelta } : {}),
      };
      const created = await clientFor(command).rollouts.create.mutate({
        templateId: opts.template,
        canaryVersionId: opts.canary,
        rolloutPct: opts.pct,
        criteria,
      });
      if (globalOptions(command).json) return printJson(created);
      printTable(HEAD, [row(created)]);
    });

  rollouts
    .command('list')
    .description('Rollouts, newest first, with their completion reasons')
    .addOption(
      new Option('--status <status>', 'only rollouts in this state').choices(['active', 'promoted', 'reverted']),
    )
    .action(async (opts: { status?: Rollout['status'] }, command: Command) => {
      const result = await clientFor(command).rollouts.list.query(opts.status ? { status: opts.status } : undefined);
      if (globalOptions(command).json) return printJson(result);
      printTable(HEAD, result.items.map(row));
    });

  rollouts
    .command('status <id>')
    .description('A rollout with the samples and average score of each arm in its window')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const r = await clientFor(command).rollouts.get.query({ id });
      if (globalOptions(command).json) return printJson(r);
      printRecord({
        ID: r.id,
        TEMPLATE: r.templateId,
        STATUS: r.status,
        CANARY: `${r.canaryVersionId} (${r.rolloutPct}% of resolves)`,
        STABLE: r.stableVersionId,
        CRITERIA: `min ${r.criteria.min_samples} samples an arm in ${r.criteria.window_hours} h, max drop ${r.criteria.max_avg_score_delta}`,
        'WINDOW FROM': shortDate(r.windowStart),
        CREATED: shortDate(r.createdAt),
        COMPLETED: r.completedAt ? `${shortDate(r.completedAt)} (${r.completionReason ?? r.status})` : '-',
      });
      printTable(
        ['ARM', 'VERSION', 'SAMPLES', 'AVG SCORE'],
        [
          [
            'stable',
            r.stable.versionId,
            String(r.stable.samples),
            orDash(r.stable.avgScore, (v) => Number(v).toFixed(2)),
          ],
          [
            'canary',
            r.canary.versionId,
            String(r.canary.samples),
            orDash(r.canary.avgScore, (v) => Number(v).toFixed(2)),
          ],
        ],
      );
    });

  const finish = (verb: 'promote' | 'revert') => async (id: string, _opts: unknown, command: Command) => {
    const client = clientFor(command);
    const r =
      verb === 'promote' ? await client.rollouts.promote.mutate({ id }) : await client.rollouts.revert.mutate({ id });
    if (globalOptions(command).json) return printJson(r);
    printLine(`Rollout ${r.id} ${r.status}.`);
  };
  rollouts
    .command('promote <id>')
    .description('Promote the canary now (it becomes the published version)')
    .action(finish('promote'));
  rollouts.command('revert <id>').description('Revert now (stable stays published)').action(finish('revert'));

  rollouts
    .command('resolve <templateId>')
    .description(
      'The messages to send now (canary or stable by weight), with the versionId to pass as prompt_version_id',
    )
    .addOption(new Option('--var <name=value>', 'a value for a {{variable}}, repeated').argParser(parseVar))
    .action(async (templateId: string, opts: { var?: Record<string, string> }, command: Command) => {
      const r = await clientFor(command).rollouts.resolve.mutate({
        templateId,
        ...(opts.var ? { variables: opts.var } : {}),
      });
      if (globalOptions(command).json) return printJson(r);
      printRecord({ VERSION: r.versionId, ROLLOUT: r.rolloutId ?? '-', VARIANT: r.variant ?? '-' });
      printJson(r.messages);
    });
}
