import type { Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { clientFor, globalOptions } from '../client.js';
import { orDash, printJson, printLine, printTable, shortDate, yesNo } from '../output.js';

type ProviderKey = RouterOutputs['providerKeys']['list']['items'][number];

function printKeys(items: ProviderKey[]): void {
  printTable(
    ['ID', 'PROVIDER', 'KEY', 'BASE URL', 'VERIFIED', 'SEALED WITH', 'UPDATED'],
    items.map((k) => [
      k.id,
      k.provider,
      k.maskedKey,
      orDash(k.baseUrl),
      yesNo(k.verified),
      k.keyId,
      shortDate(k.updatedAt),
    ]),
  );
}

export function registerKeysCommand(program: Command): void {
  const keys = program
    .command('keys')
    .description("The workspace's own provider keys (used for its calls instead of the deployment's)");

  keys
    .command('list')
    .description('List the stored keys, masked')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).providerKeys.list.query();
      if (globalOptions(command).json) return printJson(result);
      printKeys(result.items);
    });

  keys
    .command('set <provider> <key>')
    .description(
      "Store the workspace's key for a built-in provider, replacing its earlier one (checked with the provider)",
    )
    .option('--base-url <url>', "another address for the provider (default: the deployment's)")
    .action(async (provider: string, key: string, opts: { baseUrl?: string }, command: Command) => {
      const made = await clientFor(command).providerKeys.create.mutate({
        provider,
        key,
        ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      });
      if (globalOptions(command).json) return printJson(made);
      printKeys([made]);
      if (!made.verified) printLine('The provider could not be asked: the key is stored unverified.');
    });

  keys
    .command('remove <id>')
    .description("Delete a stored key (the workspace's calls use the deployment's key again, where allowed)")
    .action(async (id: string, _opts, command: Command) => {
      const result = await clientFor(command).providerKeys.remove.mutate({ id });
      if (globalOptions(command).json) return printJson(result);
      printLine(`Deleted ${id}.`);
    });
}
