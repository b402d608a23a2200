import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { startTestEnv } from '../../support/harness.js';
import { expectTypedError } from '../../support/security.js';

// GET /metrics (Prometheus text) after real calls through the official openai client: each counter
// against what the calls' own answers said (usage, cost, cache, fallback).

const METRICS_TOKEN = 'metrics-token-0123456789';
let c: ChatEnv;

beforeAll(async () => {
  c = await startChatEnv({ groq: true, env: { GATEWAY_METRICS_TOKEN: METRICS_TOKEN } });
}, 60_000);
afterAll(() => c?.close());

async function scrape(): Promise<string> {
  const res = await fetch(`${c.env.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one series, `name{labels}` exactly as exposed (labels in declaration order). */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const user = (content: string) => [{ role: 'user' as const, content }];

describe('GET /metrics', () => {
  it('asks for GATEWAY_METRICS_TOKEN when one is set', async () => {
    expectTypedError(await c.env.http('GET', '/metrics'), 401, 'auth_error');
    expectTypedError(await c.env.http('GET', '/metrics', { token: c.tenant.token }), 401, 'auth_error');
    expect((await c.env.http('GET', '/metrics', { token: METRICS_TOKEN })).status).toBe(200);
    const post = await c.env.http('POST', '/metrics', { token: METRICS_TOKEN, body: {} });
    expectTypedError(post, 405, 'invalid_request_error');
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('counts calls, upstream calls, tokens, cost, cache hits, fallbacks and error answers', async () => {
    const before = await scrape();
    const series = {
      miss: 'gateway_requests_total{provider="openai",model="gpt-4o-mini",status="ok",cache="miss",endpoint="chat"}',
      hit: 'gateway_requests_total{provider="openai",model="gpt-4o-mini",status="ok",cache="exact",endpoint="chat"}',
      calls: 'gateway_upstream_calls_total{provider="openai",model="gpt-4o-mini",status="ok"}',
      input: 'gateway_upstream_tokens_total{provider="openai",model="gpt-4o-mini",direction="input"}',
      output: 'gateway_upstream_tokens_total{provider="openai",model="gpt-4o-mini",direction="output"}',
      cost: 'gateway_upstream_cost_usd_total{provider="openai",model="gpt-4o-mini"}',
      saved: 'gateway_cache_tokens_saved_total{direction="output"}',
      duration: 'gateway_request_duration_seconds_count{provider="openai",streamed="false",endpoint="chat"}',
      failed: 'gateway_upstream_calls_total{provider="openai",model="gpt-4.1-mini",status="error"}',
      fallback: 'gateway_fallback_requests_total{provider="groq"}',
      auth: 'gateway_error_responses_total{type="auth_error"}',
      invalid: 'gateway_error_responses_total{type="invalid_request_error"}',
    };
    const base = Object.fromEntries(Object.entries(series).map(([k, s]) => [k, value(before, s)])) as Record<
      keyof typeof series,
      number
    >;

    // The same cacheable request twice: a miss that goes upstream, then an exact hit.
    const first: any = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: user('metrics, please') });
    const second: any = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: user('metrics, please') });
    expect(first._gateway.cached).toBe(false);
    expect(second._gateway.cached).toBe(true);
    // A fallback: openai answers 503 once, groq serves the same model.
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', status: 503, times: 1 }]);
    const fell: any = await c.openai().chat.completions.create({ model: 'gpt-4.1-mini', messages: user('fall back') });
    expect(fell._gateway.routing.usedFallback).toBe(true);
    // Two error answers before any row: a bad token and an empty message list.
    await expect(
      c.openai('gw_not_a_token').chat.completions.create({ model: 'openai/gpt-4o-mini', messages: user('x') }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      c.openai().chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [] }),
    ).rejects.toMatchObject({ status: 400 });

    const after = await scrape();
    const delta = (k: keyof typeof series) => value(after, series[k]) - base[k];
    expect(delta('miss')).toBe(1);
    expect(delta('hit')).toBe(1);
    expect(delta('calls')).toBe(1);
    expect(delta('input')).toBe(first.usage.prompt_tokens);
    expect(delta('output')).toBe(first.usage.completion_tokens);
    expect(delta('cost')).toBeCloseTo(first._gateway.cost, 12);
    expect(delta('saved')).toBe(second.usage.completion_tokens);
    expect(delta('duration')).toBe(1);
    expect(delta('failed')).toBe(1);
    expect(delta('fallback')).toBe(1);
    expect(delta('auth')).toBe(1);
    expect(delta('invalid')).toBe(1);
    // Live state and Node's own metrics are there too.
    expect(after).toMatch(/^gateway_log_queue_rows\{table="requests"\} \d+$/m);
    expect(after).toMatch(/^gateway_log_rows_written_total\{table="requests"\} \d+$/m);
    expect(after).toMatch(/^gateway_provider_breaker_state\{provider="openai",state="closed"\} 1$/m);
    // A provider that never failed has its series too (closed), not none.
    expect(after).toMatch(/^gateway_provider_breaker_state\{provider="gemini",state="closed"\} 1$/m);
    expect(after).toMatch(/^gateway_provider_breaker_state\{provider="gemini",state="open"\} 0$/m);
    expect(after).toMatch(/^process_cpu_seconds_total \d/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    // No tenant or token id anywhere.
    expect(after).not.toContain(c.tenant.tenantId);
  });

  it('counts failed upstream attempts, those without an answer too, and a stream broken after it began as an error', async () => {
    const series = {
      reset: 'gateway_upstream_failures_total{provider="openai",model="gpt-4.1-mini",kind="connection",status="0"}',
      unavailable: 'gateway_upstream_failures_total{provider="openai",model="gpt-4.1-mini",kind="http",status="503"}',
      cut: 'gateway_upstream_failures_total{provider="openai",model="gpt-4o-mini",kind="stream",status="0"}',
      brokenStream: 'gateway_error_responses_total{type="provider_error"}',
    };
    const before = await scrape();
    // A reset and a 503, each served by groq after openai failed.
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', resetConnection: true, times: 1 }]);
    expect(
      ((await c.openai().chat.completions.create({ model: 'gpt-4.1-mini', messages: user('reset') })) as any)._gateway
        .routing.usedFallback,
    ).toBe(true);
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4.1-mini', status: 503, times: 1 }]);
    expect(
      ((await c.openai().chat.completions.create({ model: 'gpt-4.1-mini', messages: user('unavailable') })) as any)
        ._gateway.routing.usedFallback,
    ).toBe(true);
    // A stream cut after three content chunks: the client gets an error event.
    c.sim.setFaults([{ format: 'openai', model: 'gpt-4o-mini', cutStreamAfterChunks: 3, times: 1 }]);
    const stream = await c.openai().chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: user('cut me'),
      temperature: 0.5,
      stream: true,
    });
    await expect(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
    ).rejects.toThrow(/broke after it started/);
    c.sim.setFaults([]);

    const after = await scrape();
    const delta = (k: keyof typeof series) => value(after, series[k]) - value(before, series[k]);
    expect(delta('reset')).toBe(1);
    expect(delta('unavailable')).toBe(1);
    expect(delta('cut')).toBe(1);
    expect(delta('brokenStream')).toBe(1);
  });

  it('tells embeddings calls from chat calls (endpoint label), in the count and the duration', async () => {
    const series = {
      calls:
        'gateway_requests_total{provider="openai",model="text-embedding-3-small",status="ok",cache="miss",endpoint="embeddings"}',
      duration: 'gateway_request_duration_seconds_count{provider="openai",streamed="false",endpoint="embeddings"}',
    };
    const before = await scrape();
    await c.openai().embeddings.create({ model: 'openai/text-embedding-3-small', input: 'metrics' });
    const after = await scrape();
    expect(value(after, series.calls) - value(before, series.calls)).toBe(1);
    expect(value(after, series.duration) - value(before, series.duration)).toBe(1);
  });

  it('is absent with GATEWAY_METRICS=off', async () => {
    const env = await startTestEnv({ env: { GATEWAY_METRICS: 'off' } });
    try {
      expectTypedError(await env.http('GET', '/metrics'), 404, 'not_found_error');
      expect(env.services.metrics).toBeNull();
    } finally {
      await env.close();
    }
  });
});
