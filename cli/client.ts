import type { Command } from 'commander';
import { createGatewayClient, type GatewayClient } from '../sdk/index.js';

/** Global options shared by every command (declared on the root program in index.ts). */
export interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
  /** Seconds to wait for an answer (--timeout, GATEWAY_TIMEOUT); unset: the command's default. */
  timeout?: number;
}

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

// A gateway that accepts the connection but never answers would otherwise hang the CLI forever.
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** A problem the user can fix from the command line; printed as one line, exit code 1. */
export class CliError extends Error {}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** The seconds a command waits for an answer: --timeout, or the default unless the command waits as long as it takes. */
function timeoutSecondsOf(command: Command, { untimed = false } = {}): number | undefined {
  return globalOptions(command).timeout ?? (untimed ? undefined : DEFAULT_TIMEOUT_SECONDS);
}

/**
 * The SDK client for the gateway named by the global options. Commands that need an API token
 * fail here with a hint rather than sending an unauthenticated call. `untimed` commands (a job
 * run waits for the job) wait as long as it takes unless --timeout is given.
 */
export function clientFor(
  command: Command,
  { auth = true, untimed = false }: { auth?: boolean; untimed?: boolean } = {},
): GatewayClient {
  const { url, token } = globalOptions(command);
  if (auth && !token) throw new CliError('no API token: pass --token <token> or set GATEWAY_TOKEN');
  const seconds = timeoutSecondsOf(command, { untimed });
  return createGatewayClient({
    baseUrl: url,
    ...(token ? { token } : {}),
    ...(seconds ? { timeoutMs: seconds * 1000 } : {}),
  });
}
