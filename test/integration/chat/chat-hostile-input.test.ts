import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// Input that once hurt more than the caller who sent it: a body nested so deep that serialising it
// for the upstream overflowed the stack (counted as a provider failure, so any token could open a
// provider's circuit for every tenant), and an OpenAI-format stream with no answer in it (taken
// as a successful empty answer). groq is a second OpenAI-format host serving the same model ids.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv({ groq: true });
});
afterAll(() => c.close());

const PROVIDERS = ['openai', 'groq', 'anthropic', 'gemini'];
const breakers = () => c.env.services.dataPlane.breakers;
const closeCircuits = () => {
  for (const p of PROVIDERS) breakers().success(p);
};
beforeEach(() => {
  c.sim.clearFaults();
  closeCircuits();
});

const DEPTH = 20_000;
/** JSON text of a value nested `depth` objects deep (20,000 levels is about 120 KB). */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const MESSAGES = '[{"role":"user","content":"hello"}]';

/** Bodies carrying the deep value where the gateway passes it through unexamined. */
const deepBodies: Record<string, string> = {
  metadata: `{"model":"gpt-4o-mini","messages":${MESSAGES},"metadata":${deepJson(DEPTH)}}`,
  tools: `{"model":"gpt-4o-mini","messages":${MESSAGES},"tools":[{"type":"function","function":{"name":"f","parameters":${deepJson(DEPTH)}}}]}`,
  response_format: `{"model":"gpt-4o-mini","messages":${MESSAGES},"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${deepJson(DEPTH)}}}}`,
  'a message field': `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hello","extra":${deepJson(DEPTH)}}]}`,
};

function postRaw(rawBody: string, headers: Record<string, string> = {}) {
  return c.env.http('POST', '/v1/chat/completions', {
    token: c.tenant.token,
    rawBody,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

describe('a body nested 20,000 levels deep', () => {
  it.each(Object.keys(deepBodies))(
    'in %s is refused with 400, cacheable or not, streamed or not, and no provider is blamed',
    async (where) => {
      c.sim.resetRequests();
      const body = deepBodies[where]!;
      const streamed = body.replace('{"model"', '{"stream":true,"model"');
      // More requests than it takes to open a circuit (3 failures), each refused before any upstream call.
      for (const [text, headers] of [
        [body, {}],
        [body, { 'x-gateway-no-cache': 'true' }],
        [body, {}],
        [streamed, {}],
      ] as const) {
        const res = await postRaw(text, headers);
        expectTypedError(res, 400, 'invalid_request_error');
        expect(res.body.error.message).toMatch(/nested more than 64 levels deep/);
      }
      expect(c.sim.requests).toHaveLength(0);

      const providers = await c.env.http('GET', '/v1/providers', { token: c.tenant.token });
      expect(providers.status).toBe(200);
      for (const p of providers.body.items) expect(p.circuit.state, p.name).toBe('closed');
      for (const [name, circuit] of Object.entries(breakers().snapshot()))
        expect(circuit.consecutiveFailures, name).toBe(0);
    },
  );

  it('leaves ordinary requests, JSON schemas included, served as before', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, address: { type: 'object', properties: { street: { type: 'string' } } } },
    };
    const res: any = await c.openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'still fine' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: schema } }],
      metadata: { team: 'search' },
    });
    expect(res._gateway.provider).toBe('openai');
    expect(res._gateway.routing.usedFallback).toBe(false);
  });
});

describe('an OpenAI-format stream without any answer (no choices, then [DONE])', () => {
  it("on the primary is the provider's fault: the next target serves", async () => {
    c.sim.setFaults([
      { format: 'openai', model: 'gpt-4.1-mini', endpoint: 'stream', malformedAnswer: 'no-choices', times: 1 },
    ]);
    const stream = await c.openai().chat.completions.create({
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user', content: 'empty stream' }],
      stream: true,
    });
    let text = '';
    let last: any;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    expect(text).not.toBe('');
    expect(last._gateway).toMatchObject({ provider: 'groq', model: 'gpt-4.1-mini', routing: { usedFallback: true } });
    expect(breakers().snapshot().openai?.consecutiveFailures).toBe(1);
  });

  it('from every candidate is 502 provider_error, with no ok row and no charge', async () => {
    c.sim.setFaults([{ endpoint: 'stream', malformedAnswer: 'no-choices' }]);
    const res = await postRaw(
      JSON.stringify({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'all empty' }], stream: true }),
    );
    expectTypedError(res, 502, 'provider_error');
    expect(res.body.error.attempts.length).toBeGreaterThanOrEqual(2);
    const id = res.headers.get('x-gateway-request-id');
    await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
    const [row] = await c.query('select status, error_type from requests where id = $1', [id]);
    expect(row).toEqual({ status: 'error', error_type: 'provider_error' });
    const [ok] = await c.query('select count(*)::int n from cost_logs where request_id = $1 and status = $2', [
      id,
      'ok',
    ]);
    expect(ok.n).toBe(0);
  });
});
