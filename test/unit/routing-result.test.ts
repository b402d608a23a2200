import { describe, expect, it } from 'vitest';
import { costRow } from '../../server/gateway/accounting.js';
import { RoutingEngine, type LlmClassifier } from '../../server/gateway/routing/engine.js';
import { DEFAULT_POLICY } from '../../server/gateway/routing/scoring.js';
import type { RoutingState } from '../../server/gateway/routing/state.js';
import type { ChatCall, Target } from '../../server/gateway/types.js';
import { Cancellation } from '../../server/lib/cancel-signal.js';

// Routing returns what it decided (or why it could not), and what asking the LLM classifier cost,
// and never writes into the call: the call here is frozen, and a write would throw.

const model: Target = { provider: 'openai', model: 'gpt-4o-mini' };
const state = {
  cellQuality: () => undefined,
  activeAbTests: () => [],
  cellMigration: () => undefined,
} as unknown as RoutingState;

const call: ChatCall = Object.freeze({
  requestId: 'req_1',
  tenantId: 't',
  tokenId: null,
  body: { model: '', messages: [{ role: 'user' as const, content: 'hm' }] },
  messages: [{ role: 'user' as const, content: 'hm' }],
  headerHints: Object.freeze({}),
  signal: new Cancellation(),
  startedAt: 0,
  createdAt: new Date(),
});

function engine(llmClassify?: LlmClassifier) {
  return new RoutingEngine({
    state,
    // Unsure on both counts: the LLM classifier is asked when there is one.
    classify: () => ({ taskType: 'general', complexity: 'medium', taskConfidence: 0.1, complexityConfidence: 0.1 }),
    lowConfidence: 0.5,
    llmClassify,
    explorationRate: 0,
    abTestPreempts: true,
    policy: DEFAULT_POLICY,
    random: () => 0.5,
  });
}

const usage = { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 };
const asked: LlmClassifier = async (c) => ({
  labels: { taskType: 'coding', complexity: 'complex' },
  cost: costRow(c, model, usage, 'ok'),
});
const needs = { vision: false, tools: false, json: false, structured: false };

describe('RoutingEngine.route', () => {
  it("returns the decision with the LLM classifier's labels and its cost row", async () => {
    const routed = await engine(asked).route(call, needs, [model]);
    expect(routed.decision).toMatchObject({
      ...model,
      taskType: 'coding',
      complexity: 'complex',
      usedLlmFallback: true,
    });
    expect(routed.costs).toMatchObject([{ requestId: 'req_1', provider: 'openai', inputTokens: 40 }]);
  });

  it('returns the cell it settled on and the error when no target can serve, with what asking cost', async () => {
    // o3-mini takes no images.
    const routed = await engine(asked).route(call, { ...needs, vision: true }, [
      { provider: 'openai', model: 'o3-mini' },
    ]);
    expect(routed.decision).toBeNull();
    if (routed.decision !== null) return;
    expect(routed.error.type).toBe('provider_error');
    expect(routed.cell).toEqual({
      taskType: 'coding',
      complexity: 'complex',
      routedBy: 'classification',
      usedLlmFallback: true,
    });
    expect(routed.costs).toHaveLength(1);
  });

  it('keeps the in-process labels, and costs nothing, when the LLM classifier is not answered', async () => {
    const routed = await engine(async () => undefined).route(call, needs, [model]);
    expect(routed.decision).toMatchObject({ taskType: 'general', complexity: 'medium', usedLlmFallback: false });
    expect(routed.costs).toEqual([]);
  });
});
