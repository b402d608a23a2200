import type { Command } from 'commander';
import { createGatewayClient, type GatewayClient } from '../sdk/index.js';

/** Global options shared by every command (declared on the root program in index.ts). */
export interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
}

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

// A gateway that accepts the connection but never answers would otherwise hang the CLI forever.
const REQUEST_TIMEOUT_MS = 30_000;

/** A problem the user can fix from the command line; printed as one line, exit code 1. */
export class CliError extends Error {}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/**
 * The SDK client for the gateway named by the global options. Commands that need an API token
 * fail here with a hint rather than sending an unauthenticated call.
 */
export function clientFor(command: Command, { auth = true }: { auth?: boolean } = {}): GatewayClient {
  const { url, token } = globalOptions(command);
  if (auth && !token) throw new CliError('no API token: pass --token <token> or set GATEWAY_TOKEN');
  return createGatewayClient({
    baseUrl: url,
    ...(token ? { token } : {}),
    fetch: (input, init) => fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
}
