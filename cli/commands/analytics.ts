import { Option, type Command } from 'commander';
import type { RouterInputs, RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { parsePageSize } from '../options.js';
import {
  bucketLabel,
  modelName,
  orDash,
  printJson,
  printLine,
  printRecord,
  printTable,
  shortDate,
  yesNo,
  type Cell,
} from '../output.js';
import { usd } from '../usd.js';

// gatewayctl analytics: the workspace's traffic, spend and routing as tables (or --json, the raw
// API result). Every figure comes from the /v1/analytics procedures through the SDK.

type Outputs = RouterOutputs['analytics'];
type Inputs = RouterInputs['analytics'];
type Procedures = { [K in keyof Outputs]: { query(input?: Inputs[K]): Promise<Outputs[K]> } };

function analytics(command: Command): Procedures {
  return (clientFor(command) as unknown as { analytics: Procedures }).analytics;
}

const RANGES = ['1h', '6h', '24h', '7d', '30d'] as const;
type Range = (typeof RANGES)[number];

const rangeOption = (def: Range) => new Option('--range <range>', 'time window').choices(RANGES).default(def);

const int = (v: number) => Math.round(v).toLocaleString('en-US');
const msText = (v: number) => `${Math.round(v).toLocaleString('en-US')} ms`;
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

export function registerAnalyticsCommand(program: Command): void {
  const cmd = program.command('analytics').description('Traffic, spend, cache and routing figures of this workspace');

  cmd
    .command('overview')
    .description('Totals: requests, spend, latency, active providers, cache savings')
    .action(async (_opts: unknown, command: Command) => {
      const o = await analytics(command).overview.query();
      if (globalOptions(command).json) return printJson(o);
      printRecord({
        REQUESTS: int(o.totalRequests),
        'TOTAL COST': usd(o.totalCostUsd),
        'AVG LATENCY': msText(o.avgLatencyMs),
        'ACTIVE PROVIDERS': o.activeProviders,
        'CACHE HITS': int(o.cacheHits),
        'TOKENS SAVED': int(o.tokensSaved),
        'UPSTREAM CALLS': int(o.upstreamCalls),
        ERRORS: int(o.errors),
      });
    });

  cmd
    .command('cache')
    .description('Cache hit rate, and the tokens and estimated USD it saved, per model')
    .action(async (_opts: unknown, command: Command) => {
      const r = await analytics(command).cacheSavings.query();
      if (globalOptions(command).json) return printJson(r);
      printTable(
        ['MODEL', 'HITS', 'TOKENS SAVED IN/OUT', 'EST. SAVED'],
        r.byModel.map((m) => [
          modelName(m.provider, m.model),
          int(m.hits),
          `${int(m.tokensSavedInput)}/${int(m.tokensSavedOutput)}`,
          usd(m.estimatedSavingsUsd),
        ]),
      );
      printLine(
        `Hit rate ${pct(r.hitRate)} (${int(r.hits)} of ${int(r.totalRequests)} requests), ${int(r.tokensSaved)} tokens and about ${usd(r.estimatedSavingsUsd)} saved.`,
      );
    });

  cmd
    .command('costs')
    .description('All-time spend per provider or per model')
    .addOption(new Option('--by <what>', 'group by').choices(['provider', 'model']).default('provider'))
    .action(async (opts: { by: 'provider' | 'model' }, command: Command) => {
      const client = analytics(command);
      if (opts.by === 'model') {
        const r = await client.costsByModel.query();
        if (globalOptions(command).json) return printJson(r);
        printTable(
          ['PROVIDER', 'MODEL', 'COST', 'CALLS', 'AVG/CALL', 'INPUT TOK', 'OUTPUT TOK', 'FAILED'],
          r.items.map((i) => [
            i.provider,
            i.model,
            usd(i.totalCostUsd),
            int(i.upstreamCalls),
            usd(i.avgCostUsd),
            int(i.inputTokens),
            int(i.outputTokens),
            int(i.failedCalls),
          ]),
        );
        return printLine(`Total: ${usd(r.totalCostUsd)}`);
      }
      const r = await client.costsByProvider.query();
      if (globalOptions(command).json) return printJson(r);
      printTable(
        ['PROVIDER', 'COST', 'CALLS', 'INPUT TOK', 'OUTPUT TOK', 'FAILED'],
        r.items.map((i) => [
          i.provider,
          usd(i.totalCostUsd),
          int(i.upstreamCalls),
          int(i.inputTokens),
          int(i.outputTokens),
          int(i.failedCalls),
        ]),
      );
      printLine(`Total: ${usd(r.totalCostUsd)}`);
    });

  cmd
    .command('timeseries')
    .description('Requests, latency and spend per hour (ranges up to 24h) or per day')
    .addOption(rangeOption('24h'))
    .option('--by-provider', 'spend per provider per bucket instead')
    .action(async (opts: { range: Range; byProvider?: boolean }, command: Command) => {
      const client = analytics(command);
      if (opts.byProvider) {
        const r = await client.costTimeseries.query({ range: opts.range });
        if (globalOptions(command).json) return printJson(r);
        printTable(
          ['BUCKET (UTC)', ...r.providers.map((p) => p.toUpperCase()), 'TOTAL'],
          r.buckets.map((b) => [
            bucketLabel(b.bucketStart, r.bucket),
            ...r.providers.map((p) => usd(b.byProvider[p] ?? 0)),
            usd(b.totalCostUsd),
          ]),
        );
        return printLine(`Total over ${r.range}: ${usd(r.totalCostUsd)}`);
      }
      const r = await client.timeseries.query({ range: opts.range });
      if (globalOptions(command).json) return printJson(r);
      printTable(
        ['BUCKET (UTC)', 'REQUESTS', 'AVG', 'P95~', 'P99~', 'COST'],
        r.buckets.map((b) => [
          bucketLabel(b.bucketStart, r.bucket),
          int(b.requests),
          msText(b.avgLatencyMs),
          msText(b.p95LatencyMs),
          msText(b.p99LatencyMs),
          usd(b.totalCostUsd),
        ]),
      );
    });

  cmd
    .command('models')
    .description('Compare models over a range: requests, latency, spend and feedback')
    .addOption(rangeOption('7d'))
    .action(async (opts: { range: Range }, command: Command) => {
      const r = await analytics(command).modelsCompare.query({ range: opts.range });
      if (globalOptions(command).json) return printJson(r);
      printTable(
        ['MODEL', 'REQUESTS', 'AVG LATENCY', 'COST', 'CALLS', 'AVG SCORE', 'FEEDBACK'],
        r.items.map((i) => [
          modelName(i.provider, i.model),
          int(i.requests),
          msText(i.avgLatencyMs),
          usd(i.totalCostUsd),
          int(i.upstreamCalls),
          orDash(i.avgScore, (v) => Number(v).toFixed(2)),
          int(i.feedbackCount),
        ]),
      );
    });

  cmd
    .command('requests')
    .description('The request log, newest (or slowest) first')
    .addOption(new Option('--order-by <key>', 'sort key').choices(['createdAt', 'latencyMs']).default('createdAt'))
    .addOption(new Option('--order <dir>', 'sort direction').choices(['asc', 'desc']).default('desc'))
    .addOption(
      new Option('--endpoint <name>', 'chat completions or embeddings calls')
        .choices(['chat', 'embeddings'])
        .default('chat'),
    )
    .option('--limit <n>', 'rows to show (with --all: page size, 1-500)', parsePageSize)
    .option('--all', 'follow nextCursor until the whole log is listed')
    .action(
      async (
        opts: {
          orderBy: 'createdAt' | 'latencyMs';
          order: 'asc' | 'desc';
          endpoint: 'chat' | 'embeddings';
          limit?: number;
          all?: boolean;
        },
        command: Command,
      ) => {
        const client = analytics(command);
        const input = {
          orderBy: opts.orderBy,
          order: opts.order,
          endpoint: opts.endpoint,
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        };
        let page = await client.requests.query(input);
        // With --all the pages are merged into one result of the same shape (nextCursor null).
        const items = [...page.items];
        while (opts.all && page.nextCursor) {
          page = await client.requests.query({ ...input, cursor: page.nextCursor });
          items.push(...page.items);
        }
        const result = { items, nextCursor: page.nextCursor };
        if (globalOptions(command).json) return printJson(result);
        printTable(
          ['TIME (UTC)', 'ID', 'MODEL', 'ROUTED BY', 'TASK', 'CACHED', 'STATUS', 'LATENCY', 'TOKENS IN/OUT', 'COST'],
          result.items.map((r): Cell[] => [
            shortDate(r.createdAt, { seconds: true }),
            r.id,
            modelName(r.provider, r.model),
            r.routedBy,
            r.taskType ? `${r.taskType}/${r.complexity ?? '-'}` : '-',
            r.cached ? (r.cacheType ?? 'yes') : yesNo(false),
            r.status,
            msText(r.latencyMs),
            `${int(r.inputTokens)}/${int(r.outputTokens)}`,
            usd(r.costUsd),
          ]),
        );
        if (result.nextCursor) printLine('More requests exist: pass --all to list them all.');
      },
    );

  cmd
    .command('routing')
    .description(
      'Routing statistics and per-stage pipeline figures, or (--distribution) every request by cell, source and model',
    )
    .option('--distribution', 'requests grouped by task type, complexity, routed by, provider and model')
    .action(async (opts: { distribution?: boolean }, command: Command) => {
      const client = analytics(command);
      if (opts.distribution) {
        const d = await client.routingDistribution.query();
        if (globalOptions(command).json) return printJson(d);
        const rows = (group: string, entries: Array<{ value: unknown; requests: number; share: number }>) =>
          entries.map((e) => [group, e.value == null ? '-' : String(e.value), int(e.requests), pct(e.share)]);
        printTable(
          ['BY', 'VALUE', 'REQUESTS', 'SHARE'],
          [
            ...rows('task type', d.byTaskType),
            ...rows('complexity', d.byComplexity),
            ...rows('routed by', d.byRoutedBy),
            ...rows('provider', d.byProvider),
            ...d.byModel.map((m) => ['model', modelName(m.provider, m.model), int(m.requests), pct(m.share)]),
          ],
        );
        printLine(`${int(d.totalRequests)} requests in all`);
        return;
      }
      const [stats, pipeline] = await Promise.all([client.routingStats.query(), client.pipeline.query()]);
      if (globalOptions(command).json) return printJson({ stats, pipeline });
      printTable(
        ['ROUTED BY', 'REQUESTS', 'SHARE', 'AVG LATENCY', 'FALLBACKS', 'CACHE HITS'],
        stats.byRoutedBy.map((r) => [
          r.routedBy,
          int(r.requests),
          pct(r.share),
          msText(r.avgLatencyMs),
          int(r.fallbackCount),
          int(r.cacheHits),
        ]),
      );
      printTable(
        ['STAGE', 'ACTIVE', 'REQUESTS', 'AVG LATENCY'],
        Object.entries(pipeline.stages).map(([stage, s]) => [
          stage,
          yesNo(s.active),
          int(s.count),
          msText(s.avgLatencyMs),
        ]),
      );
      printLine(
        `Fallback rate ${pct(stats.fallbackRate)}, cache hit rate ${pct(stats.cacheHitRate)}, classifier share ${pct(stats.classifierShare)}, active A/B tests ${pipeline.activeAbTests}, feedback ${int(pipeline.feedbackCount)}`,
      );
    });
}
