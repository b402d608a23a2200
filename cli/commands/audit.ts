import type { Command } from 'commander';
import type { RouterInputs, RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { parsePageSize } from '../options.js';
import { orDash, printJson, printLine, printTable, shortDate } from '../output.js';

type AuditPage = RouterOutputs['audit']['list'];

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** "enabled: true → false" for updates, the object's name for creates and deletes. */
function summarizeChange(before: unknown, after: unknown): string {
  const b = asRecord(before);
  const a = asRecord(after);
  const show = (v: unknown) => (v === undefined ? '-' : JSON.stringify(v));
  if (b && a) {
    const changed = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => show(b[k]) !== show(a[k]));
    return changed.map((k) => `${k}: ${show(b[k])} → ${show(a[k])}`).join(', ') || '-';
  }
  const only = a ?? b;
  return only && 'name' in only ? `name: ${show(only.name)}` : '-';
}

interface ListOptions {
  limit?: number;
  action?: string;
  targetType?: string;
  all?: boolean;
}

export function registerAuditCommand(program: Command): void {
  const audit = program.command('audit').description('Read the audit log of configuration changes');

  audit
    .command('list')
    .description('List audit log entries, newest first')
    .option('--limit <n>', 'entries to show, at most 500 (with --all: page size)', parsePageSize)
    .option('--action <action>', 'only this action, e.g. token.create')
    .option('--target-type <type>', 'only this target type, e.g. token')
    .option('--all', 'follow nextCursor until every matching entry is listed')
    .action(async (opts: ListOptions, command: Command) => {
      const client = clientFor(command);
      const input: RouterInputs['audit']['list'] = {
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        ...(opts.action !== undefined ? { action: opts.action } : {}),
        ...(opts.targetType !== undefined ? { targetType: opts.targetType } : {}),
      };
      let page: AuditPage = await client.audit.list.query(input);
      // With --all the pages are merged into one result of the same shape, so scripts handle
      // both modes alike (nextCursor is then null).
      const items = [...page.items];
      while (opts.all && page.nextCursor) {
        page = await client.audit.list.query({ ...input, cursor: page.nextCursor });
        items.push(...page.items);
      }
      const result: AuditPage = { items, nextCursor: page.nextCursor };

      if (globalOptions(command).json) return printJson(result);
      printTable(
        ['TIME (UTC)', 'ACTION', 'TARGET', 'ACTOR', 'CHANGE'],
        result.items.map((e) => [
          shortDate(e.createdAt, { seconds: true }),
          e.action,
          `${e.targetType} ${orDash(e.targetId)}`,
          e.actor.id ? `${e.actor.type} ${e.actor.id}` : e.actor.type,
          summarizeChange(e.before, e.after),
        ]),
      );
      if (result.nextCursor) printLine('More entries exist: pass --all to list them all.');
    });
}
