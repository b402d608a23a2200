import { InvalidArgumentError, type Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { parsePositiveInteger, parsePositiveNumber } from '../options.js';
import { orDash, printJson, printLine, printTable, shortDate, yesNo } from '../output.js';
import { usd } from '../usd.js';

type ApiToken = RouterOutputs['tokens']['list']['items'][number];

const HEAD = ['ID', 'NAME', 'PREFIX', 'ENABLED', 'ADMIN', 'SPENT', 'SPEND LIMIT', 'RATE LIMIT', 'CREATED', 'LAST USED'];

function row(t: ApiToken): string[] {
  return [
    t.id,
    t.name,
    t.prefix,
    yesNo(t.enabled),
    yesNo(t.admin),
    usd(t.spentUsd),
    orDash(t.spendLimitUsd, usd),
    orDash(t.rateLimitPerMinute, (v) => `${v}/min`),
    shortDate(t.createdAt),
    shortDate(t.lastUsedAt),
  ];
}

const NO_LIMIT = 'none';

/** A limit, or "none" to remove it (null to the API; commander would turn a parsed null into ''). */
function limitOrNone(parse: (value: string) => number) {
  return (value: string): number | typeof NO_LIMIT => {
    if (value.trim().toLowerCase() === NO_LIMIT) return NO_LIMIT;
    try {
      return parse(value);
    } catch (err) {
      throw new InvalidArgumentError(`${(err as Error).message.replace(/\.$/, '')}, or none to remove the limit.`);
    }
  };
}

interface UpdateOptions {
  name?: string;
  spendLimit?: number | typeof NO_LIMIT;
  rateLimit?: number | typeof NO_LIMIT;
}

interface CreateOptions {
  admin?: boolean;
  spendLimit?: number;
  rateLimit?: number;
}

export function registerTokensCommand(program: Command): void {
  const tokens = program.command('tokens').description('Manage API tokens (needs an admin token)');

  tokens
    .command('list')
    .description('List API tokens')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).tokens.list.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(HEAD, result.items.map(row));
    });

  tokens
    .command('create <name>')
    .description('Create an API token; its secret is shown only once')
    .option('--admin', 'allow the token to manage tokens and workspace configuration')
    .option('--spend-limit <usd>', 'spend cap in USD for calls made with this token', parsePositiveNumber)
    .option('--rate-limit <perMinute>', 'requests per minute for this token', parsePositiveInteger)
    .action(async (name: string, opts: CreateOptions, command: Command) => {
      const created = await clientFor(command).tokens.create.mutate({
        name,
        admin: opts.admin ?? false,
        spendLimitUsd: opts.spendLimit ?? null,
        rateLimitPerMinute: opts.rateLimit ?? null,
      });
      if (globalOptions(command).json) return printJson(created);
      printTable(HEAD, [row(created)]);
      printLine(`Secret: ${created.token}`);
      printLine('Store it now: the secret is shown only once and cannot be retrieved later.');
    });

  tokens
    .command('update <id>')
    .description(
      'Rename a token or change its limits; "none" removes a limit (e.g. to let a token that reached its spend limit call again)',
    )
    .option('--name <name>', 'the new name')
    .option('--spend-limit <usd|none>', 'spend cap in USD, or none', limitOrNone(parsePositiveNumber))
    .option('--rate-limit <perMinute|none>', 'requests per minute, or none', limitOrNone(parsePositiveInteger))
    .action(async (id: string, opts: UpdateOptions, command: Command) => {
      const changes = {
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.spendLimit !== undefined
          ? { spendLimitUsd: opts.spendLimit === NO_LIMIT ? null : opts.spendLimit }
          : {}),
        ...(opts.rateLimit !== undefined
          ? { rateLimitPerMinute: opts.rateLimit === NO_LIMIT ? null : opts.rateLimit }
          : {}),
      };
      if (Object.keys(changes).length === 0)
        command.error('error: nothing to change: pass --name, --spend-limit or --rate-limit');
      const updated = await clientFor(command).tokens.update.mutate({ id, ...changes });
      if (globalOptions(command).json) return printJson(updated);
      printTable(HEAD, [row(updated)]);
    });

  // enable/disable/delete share one shape: an id in, a confirmation line (or the JSON result) out.
  const setEnabled = (enabled: boolean) => async (id: string, _opts: unknown, command: Command) => {
    const updated = await clientFor(command).tokens.update.mutate({ id, enabled });
    if (globalOptions(command).json) return printJson(updated);
    printLine(`Token ${updated.id} (${updated.name}) ${enabled ? 'enabled' : 'disabled'}.`);
  };
  tokens.command('disable <id>').description('Disable a token; it is refused at once').action(setEnabled(false));
  tokens.command('enable <id>').description('Re-enable a disabled token').action(setEnabled(true));

  tokens
    .command('delete <id>')
    .description('Delete a token; it is refused at once')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const deleted = await clientFor(command).tokens.remove.mutate({ id });
      if (globalOptions(command).json) return printJson(deleted);
      printLine(`Token ${deleted.id} deleted.`);
    });
}
