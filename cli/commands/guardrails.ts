import { Option, type Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { printJson, printLine, printTable, shortDate, yesNo } from '../output.js';

type Rule = RouterOutputs['guardrails']['list']['items'][number];
type Action = Rule['action'];

const ACTIONS = Object.keys({ block: 1, flag: 1 } satisfies Record<Action, 1>);
const HEAD = ['ID', 'NAME', 'GROUP', 'TYPE', 'ACTION', 'ENABLED', 'PATTERN'];
const PATTERN_CHARS = 60;

function row(r: Rule): string[] {
  const pattern = r.pattern.length > PATTERN_CHARS ? `${r.pattern.slice(0, PATTERN_CHARS - 1)}…` : r.pattern;
  return [r.id, r.name, r.group, r.type, r.action, yesNo(r.enabled), pattern];
}

interface CreateOptions {
  pattern: string;
  action: Action;
  group?: string;
  disabled?: boolean;
}

export function registerGuardrailsCommand(program: Command): void {
  const guardrails = program
    .command('guardrails')
    .description('Guardrail rules: the built-in jailbreak rules and custom regex rules, block or flag');

  guardrails
    .command('list')
    .description('List the rules (the first listing adds the four built-in rules, disabled)')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).guardrails.list.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(HEAD, result.items.map(row));
    });

  const setEnabled = (enabled: boolean) => async (id: string, _opts: unknown, command: Command) => {
    const updated = await clientFor(command).guardrails.update.mutate({ id, enabled });
    if (globalOptions(command).json) return printJson(updated);
    printLine(`Rule ${updated.id} (${updated.name}) ${enabled ? 'enabled' : 'disabled'}, action ${updated.action}.`);
  };
  guardrails
    .command('enable <id>')
    .description('Enable a rule; --action sets what it does')
    .addOption(new Option('--action <action>', 'block or flag').choices(ACTIONS))
    .action(async (id: string, opts: { action?: Action }, command: Command) => {
      if (opts.action) await clientFor(command).guardrails.update.mutate({ id, action: opts.action });
      await setEnabled(true)(id, opts, command);
    });
  guardrails.command('disable <id>').description('Disable a rule').action(setEnabled(false));

  guardrails
    .command('create <name>')
    .description('Create a custom regex rule (enabled unless --disabled)')
    .requiredOption('--pattern <regex>', 'regular expression, matched case-insensitively')
    .addOption(new Option('--action <action>', 'block or flag').choices(ACTIONS).default('block'))
    .option('--group <group>', 'group name (default Custom)')
    .option('--disabled', 'create it disabled')
    .action(async (name: string, opts: CreateOptions, command: Command) => {
      const created = await clientFor(command).guardrails.create.mutate({
        name,
        pattern: opts.pattern,
        action: opts.action,
        enabled: !opts.disabled,
        ...(opts.group ? { group: opts.group } : {}),
      });
      if (globalOptions(command).json) return printJson(created);
      printTable(HEAD, [row(created)]);
    });

  guardrails
    .command('delete <id>')
    .description('Delete a custom rule (built-in rules are disabled, not deleted)')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const deleted = await clientFor(command).guardrails.remove.mutate({ id });
      if (globalOptions(command).json) return printJson(deleted);
      printLine(`Rule ${deleted.id} deleted.`);
    });

  guardrails
    .command('reset <id>')
    .description('Reset a built-in rule to its shipped pattern and action')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const reset = await clientFor(command).guardrails.reset.mutate({ id });
      if (globalOptions(command).json) return printJson(reset);
      printLine(`Rule ${reset.id} (${reset.name}) reset.`);
    });

  guardrails
    .command('logs')
    .description('Recent violations, newest first')
    .option('--limit <n>', 'how many (1-500)', (v) => Number(v), 50)
    .option('--rule <id>', 'only this rule')
    .option('--cursor <cursor>', 'the next page, from a previous --json answer')
    .action(async (opts: { limit: number; rule?: string; cursor?: string }, command: Command) => {
      const page = await clientFor(command).guardrails.logs.query({
        limit: opts.limit,
        ...(opts.rule ? { ruleId: opts.rule } : {}),
        ...(opts.cursor ? { cursor: opts.cursor } : {}),
      });
      if (globalOptions(command).json) return printJson(page);
      printTable(
        ['TIME', 'RULE', 'ACTION', 'ENDPOINT', 'REQUEST', 'MATCHED'],
        page.items.map((l) => [
          shortDate(l.createdAt, { seconds: true }),
          l.ruleName,
          l.action,
          l.endpoint,
          l.requestId,
          l.snippet,
        ]),
      );
      if (page.nextCursor) printLine(`More: --cursor ${page.nextCursor}`);
    });
}
