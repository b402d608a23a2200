import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router.js';

type RouterOutputs = inferRouterOutputs<AppRouter>;

// Waiting on an eval run: the run executes in the background on the gateway, and its detail
// (GET /v1/evals/runs/{id}, `evals.getRun`) updates as each batch of cases finishes.

export type EvalRunDetail = RouterOutputs['evals']['getRun'];

/** A run in one of these states is over: its results and aggregate no longer change. */
export const FINISHED_RUN_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export interface WatchEvalRunOptions {
  /** Time between two looks at the run, ms (default 1000). */
  intervalMs?: number;
  /** Called with the run each time it is read, the last time once it is over. */
  onProgress?: (run: EvalRunDetail) => void;
  signal?: AbortSignal;
}

interface RunReader {
  evals: { getRun: { query(input: { id: string }, opts?: { signal?: AbortSignal }): Promise<EvalRunDetail> } };
}

/** Polls a run until it is completed, failed or cancelled, and resolves with its final detail. */
export async function watchEvalRun(
  client: RunReader,
  runId: string,
  { intervalMs = 1_000, onProgress, signal }: WatchEvalRunOptions = {},
): Promise<EvalRunDetail> {
  for (;;) {
    signal?.throwIfAborted();
    const run = await client.evals.getRun.query({ id: runId }, signal ? { signal } : undefined);
    onProgress?.(run);
    if (FINISHED_RUN_STATES.has(run.status)) return run;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, intervalMs);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }
}
