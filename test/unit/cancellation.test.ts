import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../server/lib/cancel-signal.js';
import { CallScope } from '../../server/providers/call-scope.js';

describe('Cancellation', () => {
  it('fires each listener once, with the reason set first', () => {
    const c = new Cancellation();
    const seen: unknown[] = [];
    c.addEventListener('abort', () => seen.push(c.reason));
    c.addEventListener('abort', () => seen.push('second'));
    c.abort('gone');
    c.abort('again');
    expect(c.aborted).toBe(true);
    expect(seen).toEqual(['gone', 'second']);
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const c = new Cancellation();
    let calls = 0;
    const listener = () => calls++;
    c.addEventListener('abort', listener);
    c.removeEventListener('abort', listener);
    c.abort();
    c.addEventListener('abort', listener);
    expect(calls).toBe(0);
    expect((c.reason as Error).name).toBe('AbortError');
  });
});

describe('CallScope', () => {
  it('aborts when the caller does, and says so', () => {
    const caller = new Cancellation();
    const scope = new CallScope(caller, 60_000);
    caller.abort('client went away');
    expect(scope.aborted).toBe(true);
    expect(scope.callerAborted).toBe(true);
    expect(scope.timedOut).toBe(false);
    expect(scope.reason).toBe('client went away');
    scope.dispose();
  });

  it('aborts at its deadline', async () => {
    const scope = new CallScope(new Cancellation(), 20);
    await new Promise<void>((resolve) => scope.addEventListener('abort', () => resolve()));
    expect(scope.timedOut).toBe(true);
    expect(String(scope.reason)).toContain('exceeded 20 ms');
  });

  it('starts aborted when the caller already is, and stops listening once disposed', () => {
    const gone = new Cancellation();
    gone.abort();
    expect(new CallScope(gone, 1_000).callerAborted).toBe(true);

    const caller = new Cancellation();
    const scope = new CallScope(caller, 60_000);
    scope.dispose();
    caller.abort();
    expect(scope.aborted).toBe(false);
  });

  it('accepts a real AbortSignal from callers outside the request path', () => {
    const controller = new AbortController();
    const scope = new CallScope(controller.signal, 60_000);
    controller.abort();
    expect(scope.callerAborted).toBe(true);
    scope.dispose();
  });
});
