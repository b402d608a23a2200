import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import type { RouterInputs, RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { parsePageSize } from '../options.js';
import { bucketLabel, orDash, printJson, printLine, printRecord, printTable, shortDate, yesNo } from '../output.js';

type FeedbackPage = RouterOutputs['feedback']['list'];
type JudgeConfig = RouterOutputs['feedback']['judgeConfig'];
type Rating = Pick<RouterInputs['feedback']['submit'], 'score' | 'thumbs'>;

const SCORE_SYNTAX = 'score|up|down';

/** "1".."5" → a score; "up"/"down" → thumbs (the gateway counts them as 5 and 1). */
function parseRating(value: string): Rating {
  const v = value.trim().toLowerCase();
  if (v === 'up' || v === 'down') return { thumbs: v };
  if (/^[1-5]$/.test(v)) return { score: Number(v) };
  throw new InvalidArgumentError('Expected a score 1-5, up or down.');
}

function parseSampleRate(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('Expected a share between 0 and 1, e.g. 0.1.');
  return n;
}

/** "provider/model", or "auto" to let the judge pick the cheapest available model. */
function parseJudgeModel(value: string): string {
  const v = value.trim();
  if (v === 'auto') return v;
  const slash = v.indexOf('/');
  if (slash <= 0 || slash === v.length - 1)
    throw new InvalidArgumentError('Expected provider/model (see gatewayctl models) or auto.');
  return v;
}

const modelOf = (f: { provider: string | null; model: string | null }) =>
  f.model ? `${f.provider ?? '?'}/${f.model}` : '-';
const cellOf = (f: { taskType: string | null; complexity: string | null }) =>
  f.taskType ? `${f.taskType}/${f.complexity ?? '-'}` : '-';
const score = (v: string | number) => Number(v).toFixed(2);

/** When a rating was last replaced, or "-" if it never was (a new rating's two times are equal). */
const ratedAgain = (f: { createdAt: string; updatedAt: string }) =>
  f.updatedAt === f.createdAt ? '-' : shortDate(f.updatedAt, { seconds: true });

interface SubmitOptions {
  comment?: string;
}

interface ListOptions {
  limit?: number;
  source?: 'user' | 'judge';
  requestId?: string;
  all?: boolean;
}

interface JudgeOptions {
  enable?: boolean;
  disable?: boolean;
  model?: string;
  sampleRate?: number;
}

function printJudge(config: JudgeConfig): void {
  printRecord({
    ENABLED: yesNo(config.enabled),
    MODEL: config.model ?? 'auto (cheapest available)',
    'EFFECTIVE MODEL': orDash(config.effectiveModel),
    'SAMPLE RATE': `${config.sampleRate} (${Math.round(config.sampleRate * 1000) / 10}%)`,
  });
}

export function registerFeedbackCommand(program: Command): void {
  // `submit` is the default subcommand, so `feedback <requestId> <score>` works as its short form;
  // the other subcommands are matched first, and request ids (req_...) never collide with them.
  const feedback = program
    .command('feedback')
    .description('Rate requests and read quality scores')
    .usage(`<requestId> <${SCORE_SYNTAX}> [--comment text]\n       gatewayctl feedback <command> [options]`)
    // Without this, a bare `feedback` would run `submit` and complain about its missing arguments.
    .hook('preSubcommand', (thisCommand) => {
      if (thisCommand.args.length === 0) thisCommand.help({ error: true });
    });

  feedback
    .command('submit', { isDefault: true })
    .description(
      'Rate a request; rating it again replaces the score (default: `feedback <requestId> <score>` runs this)',
    )
    .addArgument(new Argument('<requestId>', 'the X-Gateway-Request-Id of the call being rated'))
    .addArgument(new Argument(`<${SCORE_SYNTAX}>`, 'a score 1-5, or up (5) / down (1)').argParser(parseRating))
    .option('--comment <text>', 'a note stored with the score')
    .action(async (requestId: string, rating: Rating, opts: SubmitOptions, command: Command) => {
      const saved = await clientFor(command).feedback.submit.mutate({
        requestId,
        ...rating,
        ...(opts.comment !== undefined ? { comment: opts.comment } : {}),
      });
      if (globalOptions(command).json) return printJson(saved);
      printLine(`Request ${saved.requestId} (${modelOf(saved)}) scored ${saved.score}/5.`);
    });

  feedback
    .command('list')
    .description('List feedback, newest first')
    .option('--limit <n>', 'entries to show, at most 500 (with --all: page size)', parsePageSize)
    .addOption(new Option('--source <source>', 'only user scores or only judge scores').choices(['user', 'judge']))
    .option('--request-id <id>', 'only the feedback on this request')
    .option('--all', 'follow nextCursor until every matching entry is listed')
    .action(async (opts: ListOptions, command: Command) => {
      const client = clientFor(command);
      const input: RouterInputs['feedback']['list'] = {
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        ...(opts.source !== undefined ? { source: opts.source } : {}),
        ...(opts.requestId !== undefined ? { requestId: opts.requestId } : {}),
      };
      let page: FeedbackPage = await client.feedback.list.query(input);
      // With --all the pages are merged into one result of the same shape (nextCursor then null).
      const items = [...page.items];
      while (opts.all && page.nextCursor) {
        page = await client.feedback.list.query({ ...input, cursor: page.nextCursor });
        items.push(...page.items);
      }
      const result: FeedbackPage = { items, nextCursor: page.nextCursor };

      if (globalOptions(command).json) return printJson(result);
      // The gateway orders the list by when each request was first rated; rating it again changes
      // the score but not that place, so the first column is that time and a re-rating has its own.
      printTable(
        ['FIRST RATED (UTC)', 'REQUEST', 'SCORE', 'SOURCE', 'MODEL', 'CELL', 'COMMENT', 'RATED AGAIN (UTC)'],
        result.items.map((f) => [
          shortDate(f.createdAt, { seconds: true }),
          f.requestId,
          String(f.score),
          f.source,
          modelOf(f),
          cellOf(f),
          orDash(f.comment),
          ratedAgain(f),
        ]),
      );
      if (result.nextCursor) printLine('More entries exist: pass --all to list them all.');
    });

  feedback
    .command('quality')
    .description('Average score per model, or per routing cell and model')
    .addOption(
      new Option('--by <grouping>', 'group by model, or by routing cell and model')
        .choices(['model', 'cell'])
        .default('model'),
    )
    .action(async (opts: { by: 'model' | 'cell' }, command: Command) => {
      const client = clientFor(command);
      const json = globalOptions(command).json;
      const counts = (r: { avgScore: number | null; feedbackCount: number; userCount: number; judgeCount: number }) => [
        orDash(r.avgScore, score),
        String(r.feedbackCount),
        String(r.userCount),
        String(r.judgeCount),
      ];
      if (opts.by === 'cell') {
        const result = await client.feedback.qualityByCell.query();
        if (json) return printJson(result);
        printTable(
          ['TASK TYPE', 'COMPLEXITY', 'MODEL', 'AVG SCORE', 'FEEDBACK', 'USER', 'JUDGE'],
          result.items.map((r) => [r.taskType, r.complexity, `${r.provider}/${r.model}`, ...counts(r)]),
        );
        printLine(
          `Adaptive routing uses a model's own scores in a cell once it has ${result.minSamples} feedback there.`,
        );
        return;
      }
      const result = await client.feedback.qualityByModel.query();
      if (json) return printJson(result);
      printTable(
        ['MODEL', 'AVG SCORE', 'FEEDBACK', 'USER', 'JUDGE'],
        result.items.map((r) => [`${r.provider}/${r.model}`, ...counts(r)]),
      );
    });

  feedback
    .command('trend')
    .description('Average score over time (24h: hourly; 7d, 30d: daily), for every model or one')
    .addOption(new Option('--range <range>', 'time window').choices(['24h', '7d', '30d']).default('7d'))
    .option('--model <provider/model>', 'one model only')
    .action(async (opts: { range: '24h' | '7d' | '30d'; model?: string }, command: Command) => {
      const slash = opts.model?.indexOf('/') ?? -1;
      // Thrown from the action, this usage error is printed by main() (exit code 2).
      if (opts.model !== undefined && (slash <= 0 || slash === opts.model.length - 1)) {
        throw new InvalidArgumentError(
          '--model must be provider/model, e.g. openai/gpt-4o-mini (see gatewayctl models)',
        );
      }
      const input: RouterInputs['feedback']['qualityTrend'] = { range: opts.range };
      if (opts.model)
        Object.assign(input, { provider: opts.model.slice(0, slash), model: opts.model.slice(slash + 1) });
      const trend = await clientFor(command).feedback.qualityTrend.query(input);
      if (globalOptions(command).json) return printJson(trend);
      printTable(
        [trend.bucket === 'hour' ? 'HOUR' : 'DAY', 'AVG SCORE', 'FEEDBACK'],
        trend.points.map((p) => [
          bucketLabel(p.bucketStart, trend.bucket),
          orDash(p.avgScore, score),
          String(p.feedbackCount),
        ]),
      );
    });

  feedback
    .command('judge')
    .description('Show the LLM judge configuration, or change it (changing needs an admin token)')
    .addOption(new Option('--enable', 'let the judge score a sample of live traffic').conflicts('disable'))
    .addOption(new Option('--disable', 'stop the judge'))
    .addOption(
      new Option('--model <provider/model>', 'the grading model, or auto for the cheapest available').argParser(
        parseJudgeModel,
      ),
    )
    .addOption(
      new Option('--sample-rate <share>', 'share of eligible live requests to judge, 0 to 1').argParser(
        parseSampleRate,
      ),
    )
    .action(async (opts: JudgeOptions, command: Command) => {
      const client = clientFor(command);
      const input: RouterInputs['feedback']['updateJudgeConfig'] = {
        ...(opts.enable ? { enabled: true } : opts.disable ? { enabled: false } : {}),
        // "auto" is null to the API: the judge then uses the cheapest available model.
        ...(opts.model !== undefined ? { model: opts.model === 'auto' ? null : opts.model } : {}),
        ...(opts.sampleRate !== undefined ? { sampleRate: opts.sampleRate } : {}),
      };
      const config = Object.keys(input).length
        ? await client.feedback.updateJudgeConfig.mutate(input)
        : await client.feedback.judgeConfig.query();
      if (globalOptions(command).json) return printJson(config);
      printJudge(config);
    });
}
