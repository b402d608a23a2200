// One upstream call's lifetime: merges the caller's AbortSignal with the call's overall deadline
// into a single signal for undici, and remembers which of the two fired so errors can be classified.
// A plain controller + one timer is cheaper than AbortSignal.any/AbortSignal.timeout on the hot path.

export class CallScope {
  readonly controller = new AbortController();
  timedOut = false;
  callerAborted = false;
  readonly timeoutMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly callerSignal: AbortSignal, timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    if (callerSignal.aborted) {
      this.callerAborted = true;
      this.controller.abort(callerSignal.reason);
      return;
    }
    callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(this.onTimeout, timeoutMs);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private readonly onCallerAbort = (): void => {
    this.callerAborted = true;
    this.controller.abort(this.callerSignal.reason);
  };

  private readonly onTimeout = (): void => {
    this.timedOut = true;
    this.controller.abort(new Error(`upstream call exceeded ${this.timeoutMs} ms`));
  };

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.callerSignal.removeEventListener('abort', this.onCallerAbort);
  }
}
