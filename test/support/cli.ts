import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../cli/index.js';

// Runs gatewayctl for the tests. Most tests call its entry in-process (`main` with the arguments,
// its output captured): the same code as the binary without most of a second of tsx start-up per
// run. The few that are about the process itself (signals, the binary) spawn the real one.

const BIN = fileURLToPath(new URL('../../bin/gatewayctl.js', import.meta.url));
/** The variables gatewayctl reads: each run sees exactly the ones it was given. */
const GLOBAL_VARIABLES = ['GATEWAY_URL', 'GATEWAY_TOKEN', 'GATEWAY_TIMEOUT'] as const;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Variables = Partial<Record<(typeof GLOBAL_VARIABLES)[number], string>>;

/** GATEWAY_URL and (when given) GATEWAY_TOKEN; GATEWAY_TIMEOUT as this process has it now. */
function variablesOf(vars: { url: string; token?: string }): Variables {
  return {
    GATEWAY_URL: vars.url,
    ...(vars.token ? { GATEWAY_TOKEN: vars.token } : {}),
    ...(process.env.GATEWAY_TIMEOUT !== undefined ? { GATEWAY_TIMEOUT: process.env.GATEWAY_TIMEOUT } : {}),
  };
}

/** Runs gatewayctl in-process with GATEWAY_URL and (when given) GATEWAY_TOKEN set; no token inherited. */
export function runCli(args: string[], vars: { url: string; token?: string }): Promise<CliResult> {
  return runCliWith(args, variablesOf(vars));
}

/**
 * Runs are queued: gatewayctl reads its variables from process.env, so each run has it to itself
 * (the variables are taken when the run is asked for, as a child's environment would be).
 */
let queue: Promise<unknown> = Promise.resolve();

/** Runs gatewayctl in-process with exactly these gateway variables (empty values kept). */
export function runCliWith(args: string[], vars: Variables): Promise<CliResult> {
  const run = queue.then(() => inProcess(args, vars));
  queue = run.catch(() => undefined);
  return run;
}

async function inProcess(args: string[], vars: Variables): Promise<CliResult> {
  const saved = GLOBAL_VARIABLES.map((name) => [name, process.env[name]] as const);
  for (const name of GLOBAL_VARIABLES) {
    if (vars[name] === undefined) delete process.env[name];
    else process.env[name] = vars[name];
  }
  let stdout = '';
  let stderr = '';
  try {
    const code = await main([process.execPath, 'gatewayctl', ...args], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The child's environment: this one without the gateway variables, then `vars`. */
export function childEnv(vars: Variables): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of GLOBAL_VARIABLES) delete env[name];
  return { ...env, ...vars };
}

/** Runs the real gatewayctl binary as a child process (most of a second of start-up each). */
export function runCliProcess(args: string[], vars: { url: string; token?: string }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: childEnv(variablesOf(vars)), timeout: 20_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The gatewayctl binary, for a test that spawns it itself. */
export const CLI_BIN = BIN;

/** Non-blank lines of an output. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}
