import { InvalidArgumentError, type Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { orDash, printJson, printLine, printTable, yesNo } from '../output.js';

type CustomProvider = RouterOutputs['customProviders']['list']['items'][number];

interface ModelSpec {
  id: string;
  inputPerMillionUsd?: number;
  outputPerMillionUsd?: number;
}

/** `id` or `id:input:output` (USD per million tokens); repeatable. */
function collectModel(value: string, previous: ModelSpec[] = []): ModelSpec[] {
  const [id, input, output, ...rest] = value.split(':');
  const price = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));
  const spec: ModelSpec = { id: id ?? '' };
  const i = price(input);
  const o = price(output);
  if (!spec.id || rest.length > 0 || [i, o].some((n) => n !== undefined && !(n >= 0)))
    throw new InvalidArgumentError('Expected a model id, or id:input:output with USD per million tokens.');
  if (i !== undefined) spec.inputPerMillionUsd = i;
  if (o !== undefined) spec.outputPerMillionUsd = o;
  return [...previous, spec];
}

function printProviders(items: CustomProvider[]): void {
  printTable(
    ['ID', 'NAME', 'FAMILY', 'BASE URL', 'KEY', 'ACTIVE', 'MODELS'],
    items.map((p) => [
      p.id,
      p.name,
      p.family,
      p.baseUrl,
      orDash(p.maskedKey),
      yesNo(p.active),
      p.servedModels.join(', ') || '-',
    ]),
  );
  for (const p of items) if (p.discoveryError) printLine(`${p.name}: ${p.discoveryError}`);
}

/** `gatewayctl providers custom|add|update|remove`: the workspace's own providers. */
export function registerCustomProviderCommands(providers: Command): void {
  providers
    .command('custom')
    .description("List the workspace's own providers (needs an admin token)")
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).customProviders.list.query();
      if (globalOptions(command).json) return printJson(result);
      printProviders(result.items);
    });

  providers
    .command('add <name> <baseUrl>')
    .description('Add an OpenAI-, Anthropic- or Gemini-format endpoint as a provider of this workspace')
    .option('--family <family>', 'openai-compatible (default), anthropic or gemini')
    .option('--key <key>', 'its API key (stored encrypted)')
    .option('--model <id[:input:output]>', 'a model it serves, with USD per million tokens (repeatable)', collectModel)
    .option('--discover', 'ask its models endpoint for the models it serves')
    .action(
      async (
        name: string,
        baseUrl: string,
        opts: {
          family?: 'openai-compatible' | 'anthropic' | 'gemini';
          key?: string;
          model?: ModelSpec[];
          discover?: boolean;
        },
        command: Command,
      ) => {
        const made = await clientFor(command).customProviders.create.mutate({
          name,
          baseUrl,
          ...(opts.family ? { family: opts.family } : {}),
          ...(opts.key ? { key: opts.key } : {}),
          models: opts.model ?? [],
          discover: opts.discover === true,
        });
        if (globalOptions(command).json) return printJson(made);
        printProviders([made]);
      },
    );

  providers
    .command('update <id>')
    .description("Change a custom provider's address, key or models")
    .option('--base-url <url>', 'its new address')
    .option('--key <key>', 'its new API key ("none" removes it)')
    .option('--model <id[:input:output]>', 'the models it serves, replacing the list (repeatable)', collectModel)
    .option('--discover', 'ask its models endpoint')
    .option('--no-discover', 'serve the listed models only')
    .action(
      async (
        id: string,
        opts: { baseUrl?: string; key?: string; model?: ModelSpec[]; discover?: boolean },
        command: Command,
      ) => {
        const updated = await clientFor(command).customProviders.update.mutate({
          id,
          ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
          ...(opts.key ? { key: opts.key === 'none' ? null : opts.key } : {}),
          ...(opts.model ? { models: opts.model } : {}),
          ...(opts.discover !== undefined ? { discover: opts.discover } : {}),
        });
        if (globalOptions(command).json) return printJson(updated);
        printProviders([updated]);
      },
    );

  providers
    .command('remove <id>')
    .description('Delete a custom provider')
    .action(async (id: string, _opts, command: Command) => {
      const result = await clientFor(command).customProviders.remove.mutate({ id });
      if (globalOptions(command).json) return printJson(result);
      printLine(`Deleted ${id}.`);
    });
}
