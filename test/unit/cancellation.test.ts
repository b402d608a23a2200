import { describe, expect, it } from 'vitest';
import { jsonWithGateway } from '../../server/http/gateway-meta.js';
import type { CallMeta } from '../../server/gateway/types.js';
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

describe('jsonWithGateway', () => {
  const meta: CallMeta = {
    requestId: 'req_1', provider: 'openai', model: 'gpt-4o-mini', latencyMs: 12.3, cached: false, cacheType: null, cost: 0.000123,
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    routing: { taskType: null, complexity: null, routedBy: 'user-override', usedFallback: false, usedLlmFallback: false },
    errors: [],
  };

  it('appends _gateway as the last field without changing the answer object', () => {
    const answer = { id: 'c1', choices: [{ index: 0 }] };
    const parsed = JSON.parse(jsonWithGateway(answer, meta));
    expect(Object.keys(parsed)).toEqual(['id', 'choices', '_gateway']);
    expect(parsed._gateway).toMatchObject({ requestId: 'req_1', cost: 0.000123, routing: { routedBy: 'user-override' } });
    expect(parsed._gateway).not.toHaveProperty('cacheType');
    expect(answer).not.toHaveProperty('_gateway');
  });

  it('shows cacheType on cache hits, and handles an empty object', () => {
    const parsed = JSON.parse(jsonWithGateway({}, { ...meta, cached: true, cacheType: 'exact' }));
    expect(parsed._gateway.cacheType).toBe('exact');
  });
});
