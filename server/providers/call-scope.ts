import { Cancellation, type CancelSignal } from '../lib/cancel-signal.js';

// One upstream call's lifetime: merges the caller's signal with the call's overall deadline into
// the single signal the upstream exchange listens to (upstream-exchange.ts), and remembers which
// of the two fired so errors can be classified. It is a Cancellation, not an AbortController (see
// lib/cancel-signal.ts), with one timer: cheaper than AbortSignal.any/AbortSignal.timeout on the
// hot path.

export class CallScope extends Cancellation {
  timedOut = false;
  callerAborted = false;
  readonly timeoutMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly callerSignal: CancelSignal, timeoutMs: number) {
    super();
    this.timeoutMs = timeoutMs;
    if (callerSignal.aborted) {
      this.callerAborted = true;
      this.abort(callerSignal.reason);
      return;
    }
    callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(this.onTimeout, timeoutMs);
    }
  }

  private readonly onCallerAbort = (): void => {
    this.callerAborted = true;
    this.abort(this.callerSignal.reason);
  };

  private readonly onTimeout = (): void => {
    this.timedOut = true;
    this.abort(new Error(`upstream call exceeded ${this.timeoutMs} ms`));
  };

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.callerSignal.removeEventListener('abort', this.onCallerAbort);
  }
}
