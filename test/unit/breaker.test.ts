import { describe, expect, it } from 'vitest';
import { classifyFailure, ClientClosedError } from '../../server/gateway/attempts.js';
import { CircuitBreakers } from '../../server/gateway/breaker.js';
import { ChatPipeline, type PipelineOptions } from '../../server/gateway/pipeline.js';
import { Cancellation } from '../../server/lib/cancel-signal.js';
import { ProviderError } from '../../server/providers/types.js';

// The circuit breaker's state machine: open -> due for a probe -> one probe claimed -> success
// closes, failure reopens, an end without a verdict releases the probe for the next request.

const LEASE_MS = 1_000;

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** A breaker with `provider` opened by a Retry-After of `ms`. */
function openedFor(ms: number) {
  const time = clock();
  const breakers = new CircuitBreakers({ now: time.now, baseCooldownMs: 5_000 });
  breakers.failure('gemini', ms);
  return { breakers, time };
}

describe('CircuitBreakers', () => {
  it('denies an open circuit until it is due, then lets exactly one probe through', () => {
    const { breakers, time } = openedFor(3_000);
    expect(breakers.state('gemini')).toBe('open');
    expect(breakers.mayTry('gemini')).toBe(false);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('denied');

    time.advance(3_500);
    expect(breakers.state('gemini')).toBe('half-open');
    expect(breakers.mayTry('gemini')).toBe(true);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
    // The probe is in flight: nobody else is sent, nor listed.
    expect(breakers.claim('gemini', LEASE_MS)).toBe('denied');
    expect(breakers.mayTry('gemini')).toBe(false);
  });

  it('counts each opening once, however many failures keep it open, a failed probe reopening it included', () => {
    const time = clock();
    const breakers = new CircuitBreakers({ now: time.now, baseCooldownMs: 5_000 });
    for (let i = 0; i < 4; i++) breakers.failure('openai');
    expect(breakers.openings.get('openai')).toBeUndefined();
    for (let i = 0; i < 3; i++) breakers.failure('openai');
    expect(breakers.openings.get('openai')).toBe(1);
    time.advance(5_500);
    expect(breakers.claim('openai', LEASE_MS)).toBe('probe');
    breakers.failure('openai');
    expect(breakers.openings.get('openai')).toBe(2);
  });

  it("closes on the probe's success", () => {
    const { breakers, time } = openedFor(3_000);
    time.advance(3_500);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
    breakers.success('gemini');
    expect(breakers.state('gemini')).toBe('closed');
    expect(breakers.claim('gemini', LEASE_MS)).toBe('free');
    expect(breakers.claim('gemini', LEASE_MS)).toBe('free');
  });

  it("reopens on the probe's failure, with the cool-down", () => {
    const { breakers, time } = openedFor(3_000);
    time.advance(3_500);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
    breakers.failure('gemini');
    expect(breakers.state('gemini')).toBe('open');
    time.advance(4_999);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('denied');
    time.advance(1);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
  });

  it('lets the next request probe once a probe is released without a verdict', () => {
    const { breakers, time } = openedFor(3_000);
    time.advance(3_500);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
    breakers.release('gemini');
    expect(breakers.state('gemini')).toBe('half-open');
    expect(breakers.snapshot().gemini?.consecutiveFailures).toBe(1);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
  });

  it('lets the next request probe once a probe that never reported has outlived its lease', () => {
    const { breakers, time } = openedFor(3_000);
    time.advance(3_500);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
    time.advance(LEASE_MS - 1);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('denied');
    time.advance(1);
    expect(breakers.mayTry('gemini')).toBe(true);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
  });

  it('opens for the base cool-down however many failures of requests already sent follow; only a failed probe doubles it', () => {
    const time = clock();
    const breakers = new CircuitBreakers({ now: time.now, baseCooldownMs: 10_000, maxCooldownMs: 300_000 });
    // Twenty calls in flight when the provider starts failing: the fifth failure opens the circuit.
    for (let i = 0; i < 20; i++) breakers.failure('openai');
    expect(breakers.snapshot().openai).toMatchObject({
      state: 'open',
      consecutiveFailures: 20,
      openUntil: new Date(time.now() + 10_000).toISOString(),
    });
    time.advance(10_000);
    // Due for a probe; a late failure of an earlier request reopens it for the same cool-down.
    breakers.failure('openai');
    expect(breakers.snapshot().openai!.openUntil).toBe(new Date(time.now() + 10_000).toISOString());
    time.advance(10_000);
    expect(breakers.claim('openai', LEASE_MS)).toBe('probe');
    breakers.failure('openai');
    expect(breakers.snapshot().openai!.openUntil).toBe(new Date(time.now() + 20_000).toISOString());
  });

  it('does not claim the probe for a candidate that is only listed', () => {
    const { breakers, time } = openedFor(3_000);
    time.advance(3_500);
    const pipeline = new ChatPipeline({ breakers, upstreamTimeoutMs: LEASE_MS } as PipelineOptions);
    const openai = { provider: 'openai', model: 'gpt-4o-mini' };
    const gemini = { provider: 'gemini', model: 'gemini-2.5-flash' };
    for (let i = 0; i < 3; i++) expect(pipeline.ordered([openai, gemini])).toEqual([openai, gemini]);
    // openai served the call: gemini, never tried, is still free to be probed.
    expect(pipeline.permit(openai, false)).toBe('free');
    expect(pipeline.permit(gemini, false)).toBe('probe');
    expect(pipeline.permit(gemini, false)).toBe('denied');
    // With nothing else left and nothing tried, the last candidate goes out anyway, unclaimed.
    expect(pipeline.permit(gemini, true)).toBe('free');
  });
});

describe('a probe that ends without a verdict', () => {
  const gemini = { provider: 'gemini', model: 'gemini-2.5-flash' };
  const due = () => {
    const { breakers, time } = openedFor(3_000);
    time.advance(3_500);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
    return breakers;
  };

  it('is released when the client went away', () => {
    const breakers = due();
    const gone = new Cancellation();
    gone.abort();
    const err = new ProviderError({
      provider: 'gemini',
      status: 0,
      retryable: true,
      kind: 'connection',
      message: 'aborted',
    });
    expect(() => classifyFailure(err, gemini, breakers, gone, 'probe')).toThrow(ClientClosedError);
    expect(breakers.snapshot().gemini?.consecutiveFailures).toBe(1);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
  });

  it('is released when the provider refused the request itself', () => {
    const breakers = due();
    const err = new ProviderError({
      provider: 'gemini',
      status: 400,
      retryable: false,
      kind: 'http',
      message: 'bad request',
    });
    expect(classifyFailure(err, gemini, breakers, new Cancellation(), 'probe')).toMatchObject({ fallBack: false });
    expect(breakers.snapshot().gemini?.consecutiveFailures).toBe(1);
    expect(breakers.claim('gemini', LEASE_MS)).toBe('probe');
  });

  it('reopens the circuit when the provider failed', () => {
    const breakers = due();
    const err = new ProviderError({
      provider: 'gemini',
      status: 503,
      retryable: true,
      kind: 'http',
      message: 'unavailable',
    });
    expect(classifyFailure(err, gemini, breakers, new Cancellation(), 'probe')).toMatchObject({ fallBack: true });
    expect(breakers.state('gemini')).toBe('open');
  });
});
