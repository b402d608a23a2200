import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRUCTURED_OUTPUT_RELIABLE } from '../../../server/providers/capabilities.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// The routing stages end to end: precedence and routedBy, task fields, structured-output narrowing,
// adaptive routing moving after feedback, exploration rate, and tenant isolation of routing state.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({
    env: { GATEWAY_EXPLORATION_RATE: '0', GATEWAY_ROUTING_SEED: '1', GATEWAY_MIN_SAMPLES: '5' },
  });
});
afterAll(() => c.close());

async function route(body: Record<string, unknown>, headers: Record<string, string> = {}, token = c.tenant.token) {
  const res = await c.env.http('POST', '/v1/chat/completions', {
    token,
    headers,
    body: { model: '', messages: [{ role: 'user', content: `hello ${Math.random()}` }], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body._gateway as { requestId: string; provider: string; model: string; routing: Record<string, unknown> };
}

describe('routing stages', () => {
  it('classifies an empty-model request (routedBy classification, task fields set)', async () => {
    const gw = await route({
      messages: [
        {
          role: 'user',
          content: 'Fix this:\n```python\ndef f(x):\n    return x +\n```\nSyntaxError: invalid syntax at line 2',
        },
      ],
    });
    expect(gw.routing).toMatchObject({
      routedBy: 'classification',
      taskType: 'coding',
      usedFallback: false,
      usedLlmFallback: false,
    });
    expect(['simple', 'medium', 'complex']).toContain(gw.routing.complexity);
  });

  it('classifies images as vision and routes them to a vision model', async () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const gw = await route({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: png } },
          ],
        },
      ],
    });
    expect(gw.routing.taskType).toBe('vision');
  });

  it('honours routing_hint and complexity_hint (routedBy routing-hint)', async () => {
    const gw = await route({ routing_hint: 'creative', complexity_hint: 'complex' });
    expect(gw.routing).toMatchObject({ routedBy: 'routing-hint', taskType: 'creative', complexity: 'complex' });
  });

  it('honours the pre-label headers', async () => {
    const gw = await route({}, { 'x-gateway-task-type': 'summarization', 'x-gateway-complexity': 'simple' });
    expect(gw.routing).toMatchObject({ routedBy: 'routing-hint', taskType: 'summarization', complexity: 'simple' });
  });

  it.each([
    ['x-gateway-task-type', 'vision', ''],
    ['x-gateway-task-type', 'poetry', ''],
    ['x-gateway-complexity', 'hard', ''],
    ['x-gateway-task-type', 'vision', 'openai/gpt-4o-mini'],
    ['x-gateway-complexity', 'hard', 'openai/gpt-4o-mini'],
  ])(
    'refuses %s: %s with 400 (model %j), as the body refuses the same value in its hint field',
    async (header, value, model) => {
      const bodyField = header === 'x-gateway-task-type' ? 'routing_hint' : 'complexity_hint';
      const viaBody = await c
        .openai()
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], [bodyField]: value } as any)
        .catch((e: unknown) => e);
      const viaHeader = await c
        .openai()
        .chat.completions.create(
          { model, messages: [{ role: 'user', content: 'hi' }] },
          { headers: { [header]: value } },
        )
        .catch((e: unknown) => e);
      for (const err of [viaBody, viaHeader] as any[]) {
        expect(err?.status, String(err)).toBe(400);
        expect(err.error?.type).toBe('invalid_request_error');
      }
      expect((viaHeader as any).error.message).toContain(header);
    },
  );

  it('takes the pre-label headers regardless of case and surrounding blanks', async () => {
    const gw = await route({}, { 'x-gateway-task-type': ' QA ', 'x-gateway-complexity': 'Complex' });
    expect(gw.routing).toMatchObject({ routedBy: 'routing-hint', taskType: 'qa', complexity: 'complex' });
  });

  it('takes one hinted dimension and classifies the other', async () => {
    const gw = await route({ routing_hint: 'qa' });
    expect(gw.routing).toMatchObject({ routedBy: 'routing-hint', taskType: 'qa' });
    expect(gw.routing.complexity).not.toBeNull();
  });

  it('ignores hints when the model is pinned (user-override, null task fields)', async () => {
    const gw = await route(
      { model: 'gemini/gemini-2.5-flash', routing_hint: 'coding', complexity_hint: 'complex' },
      { 'x-gateway-task-type': 'qa' },
    );
    expect(gw.routing).toMatchObject({ routedBy: 'user-override', taskType: null, complexity: null });
    expect(gw.model).toBe('gemini-2.5-flash');
  });

  it('sends simple asks to cheaper models than complex ones', async () => {
    const simple = await route({ routing_hint: 'qa', complexity_hint: 'simple' });
    const complex = await route({ routing_hint: 'coding', complexity_hint: 'complex' });
    const { priceFor } = await import('../../../server/providers/pricing.js');
    expect(priceFor(simple.model)!.input).toBeLessThan(priceFor(complex.model)!.input);
  });
});

describe('structured-output narrowing', () => {
  it.each([
    ['json_object response_format', { response_format: { type: 'json_object' } }],
    [
      'json_schema response_format',
      { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } },
    ],
    [
      'a non-empty tools array',
      { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] },
    ],
    ['requires_structured_output: true', { requires_structured_output: true }],
  ])('restricts candidates to STRUCTURED_OUTPUT_RELIABLE for %s', async (_name, extra) => {
    for (const complexity of ['simple', 'medium', 'complex']) {
      const gw = await route({ ...extra, routing_hint: 'general', complexity_hint: complexity });
      expect(STRUCTURED_OUTPUT_RELIABLE).toContain(gw.model);
    }
  });

  it('an explicit requires_structured_output: false overrides detection', async () => {
    const models = new Set<string>();
    for (const complexity of ['simple', 'medium', 'complex'] as const) {
      models.add(
        (
          await route({
            response_format: { type: 'json_object' },
            requires_structured_output: false,
            routing_hint: 'qa',
            complexity_hint: complexity,
          })
        ).model,
      );
    }
    // Without narrowing the cheapest models are eligible again, and they are not all on the list.
    expect([...models].some((m) => !STRUCTURED_OUTPUT_RELIABLE.includes(m))).toBe(true);
  });
});

describe("the judge's default grader", () => {
  it('is the cheapest model that reasons when every model available does (as most current ones do), not none', async () => {
    const { cheapestTarget } = await import('../../../server/gateway/routing/targets.js');
    const reasoning = await startChatEnv({
      sim: {
        models: {
          openai: ['gpt-5-mini', 'gpt-5-nano'],
          anthropic: ['claude-haiku-5-5'],
          gemini: ['gemini-3.5-flash-lite'],
        },
      },
    });
    try {
      expect(cheapestTarget(reasoning.env.services.dataPlane.registry)).toBe('openai/gpt-5-nano');
    } finally {
      await reasoning.close();
    }
  });
});

describe('models that are not for chat', () => {
  it("are never routed to, explored or made the judge's cheapest grader, but stay pinnable", async () => {
    // What a real models endpoint lists beside the chat models (OpenAI's, here).
    const notChat = [
      'text-embedding-3-small',
      'tts-1',
      'whisper-1',
      'dall-e-3',
      'omni-moderation-latest',
      'gpt-4o-transcribe',
      'gpt-4o-realtime-preview',
    ];
    const { DEFAULT_MODELS } = await import('../../../server/simulator/index.js');
    const { cheapestTarget } = await import('../../../server/gateway/routing/targets.js');
    const wide = await startChatEnv({
      sim: { models: { openai: [...DEFAULT_MODELS.openai, 'gpt-5-nano', ...notChat] } },
      env: { GATEWAY_EXPLORATION_RATE: '1', GATEWAY_ROUTING_SEED: '3' },
    });
    try {
      const picks = new Set<string>();
      for (let i = 0; i < 60; i++) {
        const res = await wide.env.http('POST', '/v1/chat/completions', {
          token: wide.tenant.token,
          body: {
            model: '',
            messages: [{ role: 'user', content: `x ${i}` }],
            routing_hint: 'general',
            complexity_hint: (['simple', 'medium', 'complex'] as const)[i % 3],
          },
        });
        expect(res.status).toBe(200);
        expect(res.body._gateway.routing.routedBy).toBe('exploration');
        picks.add(res.body._gateway.model);
      }
      expect(picks.size).toBeGreaterThan(3);
      expect([...picks].filter((m) => notChat.includes(m))).toEqual([]);
      expect(notChat.map((m) => `openai/${m}`)).not.toContain(cheapestTarget(wide.env.services.dataPlane.registry));
      // gpt-5-nano has the lowest list price here, but it reasons before it answers: no grader.
      expect(cheapestTarget(wide.env.services.dataPlane.registry)).toBe('openai/gpt-4.1-nano');

      const listed = await wide.env.http('GET', '/v1/models', { token: wide.tenant.token });
      expect(listed.body.data.map((m: { id: string }) => m.id)).toContain('openai/text-embedding-3-small');
      const pinned = await wide.env.http('POST', '/v1/chat/completions', {
        token: wide.tenant.token,
        body: { model: 'openai/tts-1', messages: [{ role: 'user', content: 'pinned' }] },
      });
      expect(pinned.body._gateway.model).toBe('tts-1');
    } finally {
      await wide.close();
    }
  });
});

describe('no capable provider', () => {
  it('answers 502 no_capable_provider when no registered model is structured-output reliable; a pinned model bypasses it', async () => {
    const narrow = await startChatEnv({
      sim: { models: { openai: ['gpt-4.1-nano', 'o3-mini'], anthropic: [], gemini: ['gemini-2.0-flash'] } },
      env: { ANTHROPIC_API_KEY: '' },
    });
    try {
      const res = await narrow.env.http('POST', '/v1/chat/completions', {
        token: narrow.tenant.token,
        body: {
          model: '',
          messages: [{ role: 'user', content: 'json please' }],
          response_format: { type: 'json_object' },
        },
      });
      expectTypedError(res, 502, 'no_capable_provider');
      const pinned = await narrow.env.http('POST', '/v1/chat/completions', {
        token: narrow.tenant.token,
        body: {
          model: 'openai/gpt-4.1-nano',
          messages: [{ role: 'user', content: 'json please' }],
          response_format: { type: 'json_object' },
        },
      });
      expect(pinned.status).toBe(200);
    } finally {
      await narrow.close();
    }
  });
});

describe('adaptive routing', () => {
  it('moves away from a model with poor feedback and toward one with good feedback, per tenant', async () => {
    const t = await c.env.createTenant();
    const other = await c.env.createTenant();
    const cell = { routing_hint: 'qa', complexity_hint: 'medium' };
    const first = await route(cell, {}, t.token);
    expect(first.routing.routedBy).toBe('routing-hint');
    const initial = `${first.provider}/${first.model}`;

    // Poor scores for the initial pick (MIN_SAMPLES is 5 here): it keeps the traffic until then.
    for (let i = 0; i < 5; i++) {
      const gw = await route({ ...cell, model: '' }, {}, t.token);
      expect(`${gw.provider}/${gw.model}`).toBe(initial);
      await c.env.http('POST', '/v1/feedback', { token: t.token, body: { requestId: gw.requestId, score: 1 } });
    }
    const after = await route(cell, {}, t.token);
    expect(after.routing.routedBy).toBe('adaptive');
    expect(`${after.provider}/${after.model}`).not.toBe(initial);

    // The other tenant's routing did not move.
    const theirs = await route(cell, {}, other.token);
    expect(`${theirs.provider}/${theirs.model}`).toBe(initial);
    expect(theirs.routing.routedBy).toBe('routing-hint');
  });

  it('skips feedback of requests without a cell (user overrides)', async () => {
    const t = await c.env.createTenant();
    const cell = { routing_hint: 'creative', complexity_hint: 'simple' };
    const initial = await route(cell, {}, t.token);
    for (let i = 0; i < 6; i++) {
      const pinned = await route({ model: `${initial.provider}/${initial.model}` }, {}, t.token);
      await c.env.http('POST', '/v1/feedback', { token: t.token, body: { requestId: pinned.requestId, score: 1 } });
    }
    const after = await route(cell, {}, t.token);
    expect(after.routing.routedBy).toBe('routing-hint');
    expect(`${after.provider}/${after.model}`).toBe(`${initial.provider}/${initial.model}`);
  });
});

describe('exploration', () => {
  it('samples a non-top candidate at the configured rate (seeded)', async () => {
    const explore = await startChatEnv({ env: { GATEWAY_EXPLORATION_RATE: '0.25', GATEWAY_ROUTING_SEED: '99' } });
    try {
      let explored = 0;
      const N = 300;
      const picks = new Set<string>();
      // Ten at a time: each routing decision draws from the seeded generator at once when its
      // request arrives, so the draws, and the count, are the same as one by one.
      const ask = (i: number) =>
        explore.env.http('POST', '/v1/chat/completions', {
          token: explore.tenant.token,
          body: {
            model: '',
            messages: [{ role: 'user', content: `x ${i}` }],
            routing_hint: 'general',
            complexity_hint: 'simple',
          },
        });
      for (let i = 0; i < N; i += 10) {
        const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => ask(i + k)));
        for (const res of batch)
          if (res.body._gateway.routing.routedBy === 'exploration') {
            explored++;
            picks.add(res.body._gateway.model);
          }
      }
      // 0.25 of 300 is 75 (sd 7.5); seeded, so no flake; the band is 4 sd wide either way.
      expect(explored).toBeGreaterThan(45);
      expect(explored).toBeLessThan(105);
      expect(picks.size).toBeGreaterThan(1);
    } finally {
      await explore.close();
    }
  });
});

describe('LLM classification fallback', () => {
  it("asks GATEWAY_CLASSIFIER_MODEL when the classifier is unsure, and logs that call's cost on the request", async () => {
    const { classify, LOW_CONFIDENCE } = await import('../../../server/gateway/classifier/index.js');
    const unsure = 'hmm';
    expect(classify([{ role: 'user', content: unsure }]).taskConfidence).toBeLessThan(LOW_CONFIDENCE);
    const llm = await startChatEnv({
      env: { GATEWAY_CLASSIFIER_MODEL: 'openai/gpt-4.1-nano', GATEWAY_EXPLORATION_RATE: '0' },
      sim: { replies: [{ whenContains: 'Classification:', reply: 'creative/complex' }] },
    });
    try {
      const res = await llm.env.http('POST', '/v1/chat/completions', {
        token: llm.tenant.token,
        body: { model: '', messages: [{ role: 'user', content: unsure }] },
      });
      expect(res.body._gateway.routing).toMatchObject({
        routedBy: 'classification',
        taskType: 'creative',
        complexity: 'complex',
        usedLlmFallback: true,
      });
      await llm.waitForCount(
        'select count(*) n from cost_logs where request_id = $1',
        [res.body._gateway.requestId],
        2,
      );
      const [row] = await llm.query('select used_llm_fallback from requests where id = $1', [
        res.body._gateway.requestId,
      ]);
      expect(row.used_llm_fallback).toBe(true);

      // A confident classification never calls the model.
      const sure = await llm.env.http('POST', '/v1/chat/completions', {
        token: llm.tenant.token,
        body: { model: '', messages: [{ role: 'user', content: 'Write a haiku about autumn leaves' }] },
      });
      expect(sure.body._gateway.routing).toMatchObject({ taskType: 'creative', usedLlmFallback: false });

      // An answer that cannot be read leaves the in-process labels, but the model was consulted,
      // and paid for: the flag says so, as the cost does.
      llm.sim.configure({ replies: [{ whenContains: 'Classification:', reply: 'no idea, sorry' }] });
      const unread = await llm.env.http('POST', '/v1/chat/completions', {
        token: llm.tenant.token,
        body: { model: '', messages: [{ role: 'user', content: unsure }] },
      });
      expect(unread.body._gateway.routing).toMatchObject({ routedBy: 'classification', usedLlmFallback: true });
      await llm.waitForCount(
        'select count(*) n from cost_logs where request_id = $1',
        [unread.body._gateway.requestId],
        2,
      );
    } finally {
      await llm.close();
    }
  });
});

describe('A/B test precedence (abTestPreempts)', () => {
  async function setup(preempts: string) {
    const env = await startChatEnv({
      env: {
        GATEWAY_AB_TEST_PREEMPTS: preempts,
        GATEWAY_EXPLORATION_RATE: '0',
        GATEWAY_MIN_SAMPLES: '3',
        GATEWAY_ROUTING_SEED: '5',
      },
    });
    const t = env.tenant;
    const cell = { routing_hint: 'general', complexity_hint: 'medium' };
    const routeCell = async () =>
      (
        await env.env.http('POST', '/v1/chat/completions', {
          token: t.token,
          body: { model: '', messages: [{ role: 'user', content: `p ${Math.random()}` }], ...cell },
        })
      ).body._gateway;
    // Adaptive evidence on the cell: three scored requests routed by the router.
    for (let i = 0; i < 3; i++) {
      const gw = await routeCell();
      await env.env.http('POST', '/v1/feedback', { token: t.token, body: { requestId: gw.requestId, score: 4 } });
    }
    await env.env.http('POST', '/v1/ab-tests', {
      token: t.token,
      body: {
        name: 'precedence',
        variants: [
          { provider: 'openai', model: 'gpt-4o', weight: 1, taskType: 'general', complexity: 'medium' },
          { provider: 'anthropic', model: 'claude-sonnet-4-5', weight: 1, taskType: 'general', complexity: 'medium' },
        ],
      },
    });
    return { env, routeCell };
  }

  it('by default the active test wins over an adaptive router that has evidence', async () => {
    const { env, routeCell } = await setup('true');
    try {
      expect((await routeCell()).routing.routedBy).toBe('ab-test');
    } finally {
      await env.close();
    }
  });

  it('with GATEWAY_AB_TEST_PREEMPTS=false the adaptive router wins once it has evidence', async () => {
    const { env, routeCell } = await setup('false');
    try {
      expect((await routeCell()).routing.routedBy).toBe('adaptive');
      // A cell without evidence still goes to its test.
      await env.env.http('POST', '/v1/ab-tests', {
        token: env.tenant.token,
        body: {
          name: 'fresh cell',
          variants: [
            { provider: 'openai', model: 'gpt-4o', weight: 1, taskType: 'creative', complexity: 'complex' },
            { provider: 'gemini', model: 'gemini-2.5-pro', weight: 1, taskType: 'creative', complexity: 'complex' },
          ],
        },
      });
      const fresh = await env.env.http('POST', '/v1/chat/completions', {
        token: env.tenant.token,
        body: {
          model: '',
          messages: [{ role: 'user', content: 'x' }],
          routing_hint: 'creative',
          complexity_hint: 'complex',
        },
      });
      expect(fresh.body._gateway.routing.routedBy).toBe('ab-test');
    } finally {
      await env.close();
    }
  });
});
