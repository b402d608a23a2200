import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Runs the real gatewayctl binary as a child process. Each spawn costs most of a second (tsx
// start-up), so tests check as much as they reasonably can per run.

const BIN = fileURLToPath(new URL('../../bin/gatewayctl.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs gatewayctl with GATEWAY_URL and (when given) GATEWAY_TOKEN set; no token inherited. */
export function runCli(args: string[], vars: { url: string; token?: string }): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, GATEWAY_URL: vars.url };
  delete childEnv.GATEWAY_TOKEN;
  if (vars.token) childEnv.GATEWAY_TOKEN = vars.token;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: childEnv, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Non-blank lines of an output. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}
