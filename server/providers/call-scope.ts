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
  /** The consumer, not the upstream, is being waited for: the deadline does not count that time. */
  private paused = false;

  constructor(
    private readonly callerSignal: CancelSignal,
    timeoutMs: number,
  ) {
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

  /**
   * For a stream: the consumer has an event and the upstream is not being waited for (the
   * gateway's client may be reading slowly). Cheap: no timer is touched.
   */
  pause(): void {
    this.paused = true;
  }

  /**
   * For a stream: the consumer waits for the upstream again, which has `timeoutMs` from now to send
   * its next event. So a stream's bound is on each wait for the provider (its first event, then the
   * gaps between events), not on the whole answer, which a slow reader or a long generation can make
   * as long as it likes without the provider being at fault.
   */
  resume(): void {
    this.paused = false;
    // refresh() re-arms the same timer, also one that already fired while paused.
    this.timer?.refresh();
  }

  private readonly onTimeout = (): void => {
    if (this.paused) return;
    this.timedOut = true;
    this.abort(new Error(`upstream call exceeded ${this.timeoutMs} ms`));
  };

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.callerSignal.removeEventListener('abort', this.onCallerAbort);
  }
}
