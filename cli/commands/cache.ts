import type { Command } from 'commander';
import type { RouterInputs, RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { printJson, printLine, printRecord, printTable } from '../output.js';

// gatewayctl cache: both cache layers' settings, this workspace's semantic entries, and clearing
// them (all, or one model's).

type Outputs = RouterOutputs['cache'];
type Inputs = RouterInputs['cache'];

interface CacheProcedures {
  stats: { query(): Promise<Outputs['stats']> };
  clear: { mutate(input?: Inputs['clear']): Promise<Outputs['clear']> };
}

function cache(command: Command): CacheProcedures {
  return (clientFor(command) as unknown as { cache: CacheProcedures }).cache;
}

const int = (v: number) => Math.round(v).toLocaleString('en-US');

export function registerCacheCommand(program: Command): void {
  const cmd = program.command('cache').description('The exact and semantic cache: settings, entries, clearing');

  cmd
    .command('stats')
    .description("Both layers' settings and this workspace's semantic entries per model")
    .action(async (_o: unknown, command: Command) => {
      const s = await cache(command).stats.query();
      if (globalOptions(command).json) return printJson(s);
      printRecord({
        EXACT: s.exact.enabled
          ? `on (${s.exact.ttlSeconds} s, ${int(s.exact.maxEntriesPerProcess)} per process)`
          : 'off',
        SEMANTIC: s.semantic.enabled ? (s.semantic.active ? 'on' : 'enabled, but no embedding model') : 'off',
        'EMBEDDING MODEL': s.semantic.embeddingModel ?? '-',
        THRESHOLD: s.semantic.threshold,
        'TTL (S)': int(s.semantic.ttlSeconds),
        'MAX ENTRIES': int(s.semantic.maxEntriesPerWorkspace),
        ENTRIES: int(s.semantic.entries),
      });
      if (s.semantic.byModel.length)
        printTable(
          ['MODEL', 'ENTRIES'],
          s.semantic.byModel.map((m) => [`${m.provider}/${m.model}`, int(m.entries)]),
        );
    });

  cmd
    .command('clear')
    .description("Delete this workspace's semantic cache entries (admin)")
    .option('--model <provider/model>', 'only the entries of this routed model')
    .action(async (o: { model?: string }, command: Command) => {
      const r = await cache(command).clear.mutate(o.model ? { model: o.model } : {});
      if (globalOptions(command).json) return printJson(r);
      printLine(
        `Deleted ${int(r.deleted)} semantic cache entr${r.deleted === 1 ? 'y' : 'ies'}${r.model ? ` of ${r.model}` : ''}.`,
      );
    });
}
