import { AsyncLocalStorage } from 'node:async_hooks';

// Where gatewayctl writes and the exit code it ends with. A run from the command line (bin.ts)
// uses the process's own streams; `main` can also run inside another program (the tests call it
// in-process), with its output captured: every write and exit code goes through here.

export interface CliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

interface Run extends CliStreams {
  exitCode: number;
}

const runs = new AsyncLocalStorage<Run>();

const processRun: Run = {
  stdout: process.stdout,
  stderr: process.stderr,
  get exitCode() {
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  },
  set exitCode(code: number) {
    process.exitCode = code;
  },
};

function current(): Run {
  return runs.getStore() ?? processRun;
}

export function writeOut(text: string): void {
  current().stdout.write(text);
}

export function writeErr(text: string): void {
  current().stderr.write(text);
}

/** Sets the code the run ends with (the command still finishes). */
export function setExitCode(code: number): void {
  current().exitCode = code;
}

/** Runs `fn` with its output sent to `streams`; resolves to the exit code it set (0 if none). */
export async function withStreams(streams: CliStreams, fn: () => Promise<void>): Promise<number> {
  const run: Run = { ...streams, exitCode: 0 };
  await runs.run(run, fn);
  return run.exitCode;
}
