import { spawn, type ChildProcess } from 'node:child_process';

// Runs the real entry point (`npm start` does the same) as a child process.

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startServerProcess(env: Record<string, string | undefined>, entry = 'server/main.ts'): ServerProcess {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) childEnv[k] = v;
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          const m = out.match(pattern);
          if (m) return resolve(m);
          if (child.exitCode !== null)
            return reject(new Error(`process exited (${child.exitCode}) before ${pattern}:\n${out}`));
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}:\n${out}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The environment of a gateway process in front of one OpenAI-format upstream (the simulator):
 * single workspace with a known admin token, no jobs, no built-in simulator, quiet logs.
 */
export function gatewayProcessEnv(
  databaseUrl: string,
  openaiBaseUrl: string,
  adminToken: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    GATEWAY_MODE: 'single',
    GATEWAY_ADMIN_TOKEN: adminToken,
    GATEWAY_SIMULATOR: 'off',
    GATEWAY_JOBS: 'off',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: openaiBaseUrl,
    OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}
