import { Command, CommanderError, Option } from 'commander';
import { VERSION } from '../sdk/index.js';
import { DEFAULT_GATEWAY_URL, DEFAULT_TIMEOUT_SECONDS, globalOptions } from './client.js';
import { MAX_TIMEOUT_SECONDS, parseGatewayUrl, parseTimeoutSeconds } from './options.js';
import { describeError } from './errors.js';
import { printError } from './output.js';
import { setExitCode, withStreams, writeErr, writeOut, type CliStreams } from './io.js';
import { registerAbTestsCommand } from './commands/ab-tests.js';
import { registerAnalyticsCommand } from './commands/analytics.js';
import { registerAuditCommand } from './commands/audit.js';
import { registerCacheCommand } from './commands/cache.js';
import { registerFeedbackCommand } from './commands/feedback.js';
import { registerHealthCommand } from './commands/health.js';
import { registerProvidersCommand } from './commands/providers.js';
import { registerSchedulerCommand } from './commands/scheduler.js';
import { registerSpendCommand } from './commands/spend.js';
import { registerTailCommand } from './commands/tail.js';
import { registerTokensCommand } from './commands/tokens.js';
import { registerTeamCommand } from './commands/team.js';
import { registerGuardrailsCommand } from './commands/guardrails.js';
import { registerBudgetsCommand } from './commands/budgets.js';
import { registerEvalsCommand } from './commands/evals.js';
import { registerPromptsCommand } from './commands/prompts.js';
import { registerRolloutsCommand } from './commands/rollouts.js';
import { registerMigrationsCommand } from './commands/migrations.js';
import { registerRegressionCommand } from './commands/regression.js';
import { registerKeysCommand } from './commands/keys.js';
import { registerBillingCommand } from './commands/billing.js';

// gatewayctl: the command-line client. It talks to the gateway only through the public SDK,
// so anything it can do, a script using the SDK can do too.

/** Exit codes: 0 success, 1 the call failed (gateway error, unreachable, bad token), 2 usage error. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** The variables of the global options: an empty value (`NAME=`) counts as unset, as for the gateway's own. */
const ENVIRONMENT = ['GATEWAY_URL', 'GATEWAY_TOKEN', 'GATEWAY_TIMEOUT'] as const;

/**
 * Errors commander has already reported: it calls the exit callback only after printing its
 * message (or the help text). A CommanderError thrown by our own code (an InvalidArgumentError
 * from an action, a URL refused without being quoted) has not been printed yet.
 */
const reported = new WeakSet<Error>();

export function buildProgram(): Command {
  const program = new Command('gatewayctl')
    .description('Command-line client for the LLM gateway')
    .addOption(
      new Option('--url <url>', 'gateway base URL')
        .env('GATEWAY_URL')
        .default(DEFAULT_GATEWAY_URL)
        .argParser(parseGatewayUrl),
    )
    .addOption(new Option('--token <token>', 'API token (Bearer)').env('GATEWAY_TOKEN'))
    .option('--json', 'print the raw result as JSON (for scripts)')
    .addOption(
      new Option(
        '--timeout <seconds>',
        `give up when the gateway has not answered within this time (default: ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}; jobs run: no limit)`,
      )
        .env('GATEWAY_TIMEOUT')
        .argParser(parseTimeoutSeconds),
    )
    .version(VERSION, '-V, --version', 'print the gatewayctl version')
    // Set before the commands are added so every subcommand inherits them.
    .configureOutput({ writeOut, writeErr })
    .exitOverride((err) => {
      reported.add(err);
      throw err;
    })
    .showSuggestionAfterError();

  // One line per capability; each lives in its own file under commands/.
  registerHealthCommand(program);
  registerTokensCommand(program);
  registerTeamCommand(program);
  registerAuditCommand(program);
  registerSchedulerCommand(program);
  registerProvidersCommand(program);
  registerAbTestsCommand(program);
  registerFeedbackCommand(program);
  registerAnalyticsCommand(program);
  registerCacheCommand(program);
  registerSpendCommand(program);
  registerTailCommand(program);
  registerGuardrailsCommand(program);
  registerBudgetsCommand(program);
  registerEvalsCommand(program);
  registerPromptsCommand(program);
  registerRolloutsCommand(program);
  registerMigrationsCommand(program);
  registerRegressionCommand(program);
  registerKeysCommand(program);
  registerBillingCommand(program);
  return program;
}

/**
 * Runs gatewayctl on `argv` (as process.argv: node, script, then the arguments) and resolves to
 * its exit code. Output goes to the process's streams, or to `streams` when given (an in-process
 * run, as the tests make; bin.ts is the command-line entry).
 */
export async function main(argv: string[], streams?: CliStreams): Promise<number> {
  if (streams) return withStreams(streams, () => run(argv));
  await run(argv);
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}

async function run(argv: string[]): Promise<void> {
  for (const name of ENVIRONMENT) if (process.env[name]?.trim() === '') delete process.env[name];
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // A usage error: printed once, by commander or here.
      if (!reported.has(err)) printError(err.message.replace(/^error:\s*/, ''));
      setExitCode(err.exitCode === 0 ? 0 : EXIT_USAGE);
      return;
    }
    printError(describeError(err, globalOptions(program)));
    setExitCode(EXIT_FAILURE);
  }
}
