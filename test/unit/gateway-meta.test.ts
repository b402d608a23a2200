import { describe, expect, it } from 'vitest';
import type { CallMeta } from '../../server/gateway/types.js';
import { gatewayHeaders, jsonWithGateway } from '../../server/http/gateway-meta.js';
import { forgetRawJson, keepRawJson } from '../../server/providers/raw-json.js';

describe('jsonWithGateway', () => {
  const meta: CallMeta = {
    requestId: 'req_1',
    provider: 'openai',
    model: 'gpt-4o-mini',
    latencyMs: 12.3,
    cached: false,
    cacheType: null,
    cost: 0.000123,
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    routing: {
      taskType: null,
      complexity: null,
      routedBy: 'user-override',
      usedFallback: false,
      usedLlmFallback: false,
    },
    errors: [],
    upstreamMs: 10.456,
  };

  it('appends _gateway as the last field without changing the answer object', () => {
    const answer = { id: 'c1', choices: [{ index: 0 }] };
    const parsed = JSON.parse(jsonWithGateway(answer, meta));
    expect(Object.keys(parsed)).toEqual(['id', 'choices', '_gateway']);
    expect(parsed._gateway).toMatchObject({
      requestId: 'req_1',
      cost: 0.000123,
      routing: { routedBy: 'user-override' },
    });
    expect(parsed._gateway).not.toHaveProperty('cacheType');
    expect(parsed._gateway).not.toHaveProperty('upstreamMs');
    expect(answer).not.toHaveProperty('_gateway');
  });

  it('sends an answer that carries its upstream JSON text on as that text, and re-encodes it once forgotten', () => {
    const raw = '{"id": "c1", "created": 1.0, "choices": [{"index": 0}]}\n';
    const answer = keepRawJson(JSON.parse(raw) as object, raw);
    const text = jsonWithGateway(answer, meta);
    expect(text.startsWith('{"id": "c1", "created": 1.0, "choices": [{"index": 0}],"_gateway":{')).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(['id', 'created', 'choices', '_gateway']);
    expect(JSON.stringify(answer)).toBe('{"id":"c1","created":1,"choices":[{"index":0}]}');

    forgetRawJson(answer);
    expect(
      jsonWithGateway(answer, meta).startsWith('{"id":"c1","created":1,"choices":[{"index":0}],"_gateway":{'),
    ).toBe(true);
  });

  it('encodes an empty upstream object rather than splicing into it', () => {
    const parsed = JSON.parse(jsonWithGateway(keepRawJson({}, '{ }'), meta));
    expect(Object.keys(parsed)).toEqual(['_gateway']);
  });

  it('shows cacheType on cache hits, and handles an empty object', () => {
    const parsed = JSON.parse(jsonWithGateway({}, { ...meta, cached: true, cacheType: 'exact' }));
    expect(parsed._gateway.cacheType).toBe('exact');
  });
});

describe('gatewayHeaders', () => {
  const meta = {
    requestId: 'req_1',
    provider: 'openai',
    model: 'gpt-4o-mini',
    cacheType: null,
    errors: [],
    upstreamMs: 10.456,
  };

  it("splits the time so far into the providers' share and the gateway's own (Server-Timing, ms)", () => {
    expect(gatewayHeaders(meta, 10.9)['server-timing']).toBe('upstream;dur=10.46, gateway;dur=0.44');
    // A cache hit waited on no provider.
    expect(gatewayHeaders({ ...meta, upstreamMs: 0 }, 0.2)['server-timing']).toBe(
      'upstream;dur=0.00, gateway;dur=0.20',
    );
  });

  it("sends cost and latency only when they are known (not on a live stream's head), latency as _gateway has it", () => {
    const head = gatewayHeaders(meta, 11);
    expect(head).not.toHaveProperty('x-gateway-cost');
    expect(head).not.toHaveProperty('x-gateway-latency');
    const whole = gatewayHeaders({ ...meta, cost: 0.0000315, latencyMs: 412.3 }, 412.5);
    expect(whole).toMatchObject({ 'x-gateway-cost': '0.00003150', 'x-gateway-latency': '412.3' });
  });

  it("percent-encodes a provider or model name Node would refuse in a header (a provider's odd model id)", () => {
    const odd = gatewayHeaders({ ...meta, model: 'evil\u20acmodel\r\nx-injected: yes' }, 1);
    expect(odd['x-gateway-model']).toBe(encodeURIComponent('evil\u20acmodel\r\nx-injected: yes'));
    expect(gatewayHeaders(meta, 1)['x-gateway-model']).toBe(meta.model);
  });
});
