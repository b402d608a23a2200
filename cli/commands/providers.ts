import { Option, type Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { modelName, printJson, printLine, printTable, shortDate, yesNo } from '../output.js';
import { usd } from '../usd.js';
import { registerCustomProviderCommands } from './custom-providers.js';

type ProviderList = RouterOutputs['providers']['list'];
type Provider = ProviderList['items'][number];

/** "closed", or "open until 2025-01-31 14:05:09 (3 failures)". */
function circuitOf(p: Provider): string {
  const { state, consecutiveFailures, openUntil } = p.circuit;
  const failures =
    consecutiveFailures > 0 ? ` (${consecutiveFailures} failure${consecutiveFailures === 1 ? '' : 's'})` : '';
  const until = state === 'open' && openUntil ? ` until ${shortDate(openUntil, { seconds: true })}` : '';
  return `${state}${until}${failures}`;
}

function printProviders(list: ProviderList): void {
  printTable(
    ['NAME', 'FAMILY', 'SOURCE', 'ACTIVE', 'MODELS', 'CIRCUIT'],
    list.items.map((p) => [p.name, p.family, p.source, yesNo(p.active), String(p.modelCount), circuitOf(p)]),
  );
  // Why a provider has no models (or fell back to its built-in list) is the first thing to ask.
  for (const p of list.items)
    if (p.discoveryError) printLine(`${p.name}: ${p.discoveryError.replace(/\s+/g, ' ').trim()}`);
  printLine(`${list.activeCount} of ${list.items.length} providers active.`);
}

export function registerProvidersCommand(program: Command): void {
  const providers = program.command('providers').description('Upstream providers: their models and circuit state');

  providers
    .command('list')
    .description('List registered providers')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).providers.list.query();
      if (globalOptions(command).json) return printJson(result);
      printProviders(result);
    });

  providers
    .command('reload')
    .description(
      'Re-read provider credentials and rediscover models, without a restart (needs an admin token; single-tenant mode)',
    )
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).providers.reload.mutate();
      if (globalOptions(command).json) return printJson(result);
      printProviders(result);
    });

  registerCustomProviderCommands(providers);

  program
    .command('models')
    .description(
      "List every model the providers serve (provider/model), or with --pricing the pricing table, or with --stats this workspace's use of each",
    )
    .addOption(
      new Option('--pricing', 'show list prices (USD per million tokens) and capability flags instead').conflicts(
        'stats',
      ),
    )
    .option(
      '--stats',
      'show requests, errors, cache hits, latency, tokens and cost per model for this workspace instead',
    )
    .action(async (opts: { pricing?: boolean; stats?: boolean }, command: Command) => {
      const client = clientFor(command);
      const json = globalOptions(command).json;
      if (opts.stats) {
        const stats = await client.providers.modelStats.query();
        if (json) return printJson(stats);
        printTable(
          ['MODEL', 'REQUESTS', 'ERRORS', 'CACHE HITS', 'AVG LATENCY', 'TOKENS IN/OUT', 'CALLS', 'COST', 'LAST USED'],
          stats.items.map((m) => [
            modelName(m.provider, m.model),
            String(m.requests),
            String(m.errors),
            String(m.cacheHits),
            m.avgLatencyMs === null ? '-' : `${Math.round(m.avgLatencyMs)} ms`,
            `${m.inputTokens}/${m.outputTokens}`,
            String(m.upstreamCalls),
            usd(m.totalCostUsd),
            shortDate(m.lastUsedAt),
          ]),
        );
        return;
      }
      if (opts.pricing) {
        const table = await client.providers.pricing.query();
        if (json) return printJson(table);
        printTable(
          ['MODEL', 'TIER', 'INPUT $/M', 'OUTPUT $/M', 'VISION', 'TOOLS', 'JSON', 'STRUCTURED'],
          table.items.map((m) => [
            m.model,
            m.tier ?? '-',
            usd(m.inputPerMillionUsd),
            usd(m.outputPerMillionUsd),
            yesNo(m.vision),
            yesNo(m.tools),
            yesNo(m.json),
            yesNo(m.structuredOutputReliable),
          ]),
        );
        printLine(`List prices as of ${table.asOf}.`);
        return;
      }
      const list = await client.providers.models.query();
      if (json) return printJson(list);
      printTable(
        ['MODEL', 'PROVIDER'],
        list.data.map((m) => [m.id, m.owned_by]),
      );
    });
}
