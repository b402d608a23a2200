import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { RouterOutputs } from '../../sdk/index.js';
import { CliError, clientFor, globalOptions } from '../client.js';
import { printJson, printLine, printTable, shortDate } from '../output.js';

type Template = RouterOutputs['prompts']['list']['items'][number];
type Version = RouterOutputs['prompts']['get']['versions'][number];

const HEAD = ['ID', 'NAME', 'PUBLISHED VERSION', 'DESCRIPTION', 'CREATED'];
const VERSION_HEAD = ['ID', 'VERSION', 'STATUS', 'VARIABLES', 'NOTE', 'CREATED'];

function row(t: Template): string[] {
  return [t.id, t.name, t.publishedVersionId ?? '-', t.description ?? '-', shortDate(t.createdAt)];
}

function versionRow(v: Version): string[] {
  return [v.id, String(v.version), v.status, v.variables.join(', ') || '-', v.note ?? '-', shortDate(v.createdAt)];
}

/** A JSON file holding an array of chat messages. */
export async function readMessages(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${path} is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new CliError(`${path} must hold a JSON array of chat messages`);
  return parsed;
}

export function registerPromptsCommand(program: Command): void {
  const prompts = program
    .command('prompts')
    .description('Prompt templates and their versions (messages with {{variables}})');

  prompts
    .command('create <name>')
    .description('Create a template; with --file its messages become version 1, published')
    .option('--file <path>', 'JSON array of chat messages')
    .option('--description <text>', 'what the prompt is for')
    .action(async (name: string, opts: { file?: string; description?: string }, command: Command) => {
      const messages = opts.file ? await readMessages(opts.file) : undefined;
      const created = await clientFor(command).prompts.create.mutate({
        name,
        ...(messages ? { messages } : {}),
        ...(opts.description ? { description: opts.description } : {}),
      });
      if (globalOptions(command).json) return printJson(created);
      printTable(HEAD, [row(created)]);
    });

  prompts
    .command('version <templateId>')
    .description('Add a version (a draft: publish it, or roll it out as a canary)')
    .requiredOption('--file <path>', 'JSON array of chat messages')
    .option('--note <text>', 'what changed')
    .option('--publish', 'publish it at once')
    .action(async (templateId: string, opts: { file: string; note?: string; publish?: boolean }, command: Command) => {
      const client = clientFor(command);
      const version = await client.prompts.createVersion.mutate({
        id: templateId,
        messages: await readMessages(opts.file),
        ...(opts.note ? { note: opts.note } : {}),
      });
      const published = opts.publish
        ? await client.prompts.publish.mutate({ id: templateId, versionId: version.id })
        : undefined;
      if (globalOptions(command).json) return printJson(published ? { version, template: published } : version);
      printTable(VERSION_HEAD, [versionRow({ ...version, status: published ? 'published' : version.status })]);
    });

  prompts
    .command('publish <templateId> <versionId>')
    .description('Make a version the published one (what resolves answer with)')
    .action(async (templateId: string, versionId: string, _opts: unknown, command: Command) => {
      const template = await clientFor(command).prompts.publish.mutate({ id: templateId, versionId });
      if (globalOptions(command).json) return printJson(template);
      printLine(`Template ${template.id} (${template.name}) now publishes ${versionId}.`);
    });

  prompts
    .command('list')
    .description('List templates')
    .action(async (_opts, command: Command) => {
      const result = await clientFor(command).prompts.list.query();
      if (globalOptions(command).json) return printJson(result);
      printTable(HEAD, result.items.map(row));
    });

  prompts
    .command('show <templateId>')
    .description('Show a template and its versions')
    .action(async (id: string, _opts: unknown, command: Command) => {
      const template = await clientFor(command).prompts.get.query({ id });
      if (globalOptions(command).json) return printJson(template);
      printTable(HEAD, [row(template)]);
      printTable(VERSION_HEAD, template.versions.map(versionRow));
    });
}
