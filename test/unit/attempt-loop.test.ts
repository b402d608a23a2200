import { describe, expect, it } from 'vitest';
import { costRow, ZERO_USAGE } from '../../server/gateway/accounting.js';
import { runAttempts, type AttemptConsumer, type AttemptLoopDeps } from '../../server/gateway/attempt-loop.js';
import { ClientClosedError } from '../../server/gateway/attempts.js';
import { CircuitBreakers } from '../../server/gateway/breaker.js';
import { CallState, type PlannedCall } from '../../server/gateway/call-state.js';
import type { CostLogRow, LogWriter, RequestLogRow } from '../../server/gateway/log-writer.js';
import { isPrimary, withFallback } from '../../server/gateway/target-role.js';
import type { ChatCall, RoutingDecision, Target } from '../../server/gateway/types.js';
import { GatewayError } from '../../server/lib/errors.js';
import { Cancellation } from '../../server/lib/cancel-signal.js';
import type { ProviderRegistry } from '../../server/providers/registry.js';
import { ProviderError } from '../../server/providers/types.js';

// The one attempt loop, driven by a consumer that stands in for a whole answer or a stream: the
// loop alone decides what a failed attempt means, and writes only into the call's CallState.

const openai: Target = { provider: 'openai', model: 'gpt-4o-mini' };
const gemini: Target = { provider: 'gemini', model: 'gemini-2.0-flash' };
const decision: RoutingDecision = {
  ...openai,
  routedBy: 'classification',
  taskType: 'qa',
  complexity: 'simple',
  usedFallback: false,
  usedLlmFallback: true,
};

function setup(signal = new Cancellation()) {
  const call: ChatCall = Object.freeze({
    requestId: 'req_1',
    tenantId: 't',
    tokenId: null,
    body: { model: '', messages: [{ role: 'user' as const, content: 'hi' }] },
    messages: [{ role: 'user' as const, content: 'hi' }],
    headerHints: {},
    signal,
    startedAt: 0,
    createdAt: new Date(),
  });
  const classifierCost = costRow(call, openai, { prompt_tokens: 30, completion_tokens: 2, total_tokens: 32 }, 'ok');
  const plan: PlannedCall = Object.freeze({
    decision,
    candidates: [openai, gemini],
    cacheKey: null,
    costs: Object.freeze([classifierCost]),
  });
  const rows: Array<{ request: RequestLogRow; costs: CostLogRow[] }> = [];
  const writer = {
    write: (request: RequestLogRow, costs: CostLogRow[]) => rows.push({ request, costs: [...costs] }),
    writeCosts: () => undefined,
  } as unknown as LogWriter;
  const deps: AttemptLoopDeps = {
    registry: { get: () => ({ adapter: {} }) } as unknown as ProviderRegistry,
    breakers: new CircuitBreakers(),
    upstreamTimeoutMs: 1_000,
  };
  const state = new CallState(call, plan, false, writer);
  return { call, plan, state, deps, rows, classifierCost };
}

/** A consumer whose attempts fail as `failures` says (by provider) and otherwise answer with the target's name. */
function consumer(failures: Record<string, Error>, opened: string[]): AttemptConsumer<string, string> {
  return {
    streamed: false,
    cached: () => 'cached',
    open: async (_adapter, target) => {
      opened.push(target.provider);
      const failure = failures[target.provider];
      if (failure) throw failure;
      return target.provider;
    },
    serve: async (answer, target, state) => {
      state.addCost(target, ZERO_USAGE, 'ok');
      state.logServed(withFallback(state.plan.decision, !isPrimary(state.plan.decision, target)), target, ZERO_USAGE);
      return answer;
    },
  };
}

const unavailable = (provider: string) =>
  new ProviderError({ provider, status: 503, retryable: true, message: 'overloaded', kind: 'http' });

describe('runAttempts', () => {
  it("falls back past a failing target; the call's row marks the fallback and pays routing's cost first", async () => {
    const { state, deps, rows, classifierCost, plan } = setup();
    const opened: string[] = [];
    await expect(runAttempts(deps, state, consumer({ openai: unavailable('openai') }, opened))).resolves.toBe('gemini');
    expect(opened).toEqual(['openai', 'gemini']);
    expect(state.errors).toMatchObject([{ provider: 'openai', status: 503, kind: 'http' }]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.request).toMatchObject({ provider: 'gemini', usedFallback: true, status: 'ok' });
    expect(rows[0]!.costs.map((c) => [c.provider, c.status])).toEqual([
      ['openai', 'ok'],
      ['openai', 'error'],
      ['gemini', 'ok'],
    ]);
    expect(rows[0]!.costs[0]).toBe(classifierCost);
    // The plan's own list is left as routing returned it.
    expect(plan.costs).toHaveLength(1);
  });

  it('stops at a refusal of the routed target: 400, logged against it, no fallback tried', async () => {
    const { state, deps, rows } = setup();
    const opened: string[] = [];
    const refused = new ProviderError({
      provider: 'openai',
      status: 400,
      retryable: false,
      message: 'bad',
      kind: 'http',
    });
    const err = await runAttempts(deps, state, consumer({ openai: refused }, opened)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).type).toBe('invalid_request_error');
    expect(opened).toEqual(['openai']);
    expect(rows[0]!.request).toMatchObject({ provider: 'openai', status: 'error', errorType: 'invalid_request_error' });
  });

  it('answers 502 with every attempt when all fail, the row naming the last target tried', async () => {
    const { state, deps, rows } = setup();
    const failures = { openai: unavailable('openai'), gemini: unavailable('gemini') };
    const err = await runAttempts(deps, state, consumer(failures, [])).catch((e: unknown) => e);
    expect((err as GatewayError).type).toBe('provider_error');
    expect(state.errors.map((e) => e.provider)).toEqual(['openai', 'gemini']);
    expect(rows[0]!.request).toMatchObject({ provider: 'gemini', usedFallback: false, status: 'error' });
  });

  it('ends the call as client_closed when the client left during an attempt', async () => {
    const signal = new Cancellation();
    const { state, deps, rows } = setup(signal);
    const leaving: AttemptConsumer<string, string> = {
      ...consumer({}, []),
      open: async () => {
        signal.abort();
        throw new Error('aborted');
      },
    };
    await expect(runAttempts(deps, state, leaving)).rejects.toBeInstanceOf(ClientClosedError);
    expect(rows[0]!.request).toMatchObject({ provider: 'openai', status: 'client_closed', errorType: 'client_closed' });
    expect(state.errors).toEqual([]);
  });
});
