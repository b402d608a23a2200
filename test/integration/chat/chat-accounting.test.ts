import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classify, LOW_CONFIDENCE } from '../../../server/gateway/classifier/index.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// What a call is charged and logged: a request row for every call past authentication (calls that
// fail before any provider is chosen included), a cost row for every real upstream call (the LLM
// classifier's too), and `_gateway.cost` / X-Gateway-Cost as the sum of the call's cost rows.

let c: ChatEnv;
beforeAll(async () => {
  // Few models, none of them structured-output reliable (so a JSON request has no capable model),
  // and an LLM classifier consulted for prompts the in-process classifier is unsure about.
  c = await startChatEnv({
    sim: {
      models: { openai: ['gpt-4.1-nano', 'o3-mini'], anthropic: [], gemini: ['gemini-2.0-flash'] },
      replies: [{ whenContains: 'Classification:', reply: 'qa/simple' }],
    },
    env: { ANTHROPIC_API_KEY: '', GATEWAY_CLASSIFIER_MODEL: 'openai/gpt-4.1-nano', GATEWAY_EXPLORATION_RATE: '0' },
  });
});
afterAll(() => c.close());

/**
 * A prompt the in-process classifier is unsure about: the LLM classifier is asked. One word, made
 * unique by its question marks (a number would read as code to the classifier).
 */
const UNSURE = 'hmm';
let n = 0;
const unsure = () => `${UNSURE}${'?'.repeat(++n)}`;

interface CostRow {
  provider: string;
  model: string;
  cost: number;
  status: string;
  token_id: string | null;
}
const costRows = (id: string) =>
  c.query<CostRow>(
    'select provider, model, cost::float8 cost, status, token_id from cost_logs where request_id = $1 order by id',
    [id],
  );
const sumOf = (rows: CostRow[]) => Math.round(rows.reduce((s, r) => s + r.cost, 0) * 1e12) / 1e12;

async function failed(body: Record<string, unknown>): Promise<APIError> {
  const err = await c
    .openai()
    .chat.completions.create(body as never)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(APIError);
  return err as APIError;
}

const requestIdOf = (err: APIError | undefined) => err?.headers?.get('x-gateway-request-id') ?? '';

async function requestRow(id: string) {
  await c.waitForCount('select count(*) n from requests where id = $1', [id], 1);
  const [row] = await c.query('select * from requests where id = $1', [id]);
  return row;
}

describe("the classifier's cost in what the call reports", () => {
  it("is part of _gateway.cost and X-Gateway-Cost, which equal the sum of the call's cost rows", async () => {
    expect(classify([{ role: 'user', content: unsure() }]).taskConfidence).toBeLessThan(LOW_CONFIDENCE);
    const { data, response } = await c
      .openai()
      .chat.completions.create({ model: '', messages: [{ role: 'user', content: unsure() }], temperature: 0.5 })
      .withResponse();
    const gw = (data as any)._gateway;
    expect(gw.routing.usedLlmFallback).toBe(true);

    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [gw.requestId], 2);
    const rows = await costRows(gw.requestId);
    expect(rows.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(rows[0]!.cost).toBeGreaterThan(0);
    expect(rows[1]!.cost).toBeGreaterThan(0);
    expect(gw.cost).toBeCloseTo(sumOf(rows), 12);
    expect(Number(response.headers.get('x-gateway-cost'))).toBeCloseTo(sumOf(rows), 8);
  });

  it('is in the last frame of a stream', async () => {
    const stream = await c.openai().chat.completions.create({
      model: '',
      messages: [{ role: 'user', content: unsure() }],
      temperature: 0.5,
      stream: true,
    });
    let last: any;
    for await (const chunk of stream) last = chunk;
    const gw = last._gateway;
    expect(gw.routing.usedLlmFallback).toBe(true);
    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [gw.requestId], 2);
    expect(gw.cost).toBeCloseTo(sumOf(await costRows(gw.requestId)), 12);
  });

  it('is what a cache hit costs: the classifier ran, the provider did not', async () => {
    const content = unsure();
    const first: any = await c.openai().chat.completions.create({ model: '', messages: [{ role: 'user', content }] });
    expect(first._gateway.cached).toBe(false);
    const { data, response } = await c
      .openai()
      .chat.completions.create({ model: '', messages: [{ role: 'user', content }] })
      .withResponse();
    const gw = (data as any)._gateway;
    expect(response.headers.get('x-gateway-cache')).toBe('exact');
    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [gw.requestId], 1);
    const rows = await costRows(gw.requestId);
    expect(rows[0]).toMatchObject({ provider: 'openai', model: 'gpt-4.1-nano' });
    expect(gw.cost).toBeGreaterThan(0);
    expect(gw.cost).toBeCloseTo(sumOf(rows), 12);
  });
});

describe('calls that fail before a provider is chosen', () => {
  it('log a request row for a pinned model no provider serves (404)', async () => {
    const err = await failed({
      model: 'openai/no-such-model',
      messages: [{ role: 'user', content: 'who serves this?' }],
    });
    expect(err.status).toBe(404);
    const id = requestIdOf(err);
    expect(await requestRow(id)).toMatchObject({
      status: 'error',
      error_type: 'not_found_error',
      routed_by: 'user-override',
      provider: null,
      model: null,
      used_fallback: false,
      cached: false,
      streamed: false,
      token_id: c.tenant.tokenId,
    });
  });

  it('log a request row for a streamed call to an unknown bare model', async () => {
    const err = await failed({
      model: 'nothing-serves-this',
      messages: [{ role: 'user', content: 'stream it' }],
      stream: true,
    });
    expect(err.status).toBe(404);
    const row = await requestRow(requestIdOf(err));
    expect(row).toMatchObject({ status: 'error', error_type: 'not_found_error', streamed: true, provider: null });
  });

  it("log a request row and the classifier's cost row for 502 no_capable_provider, and count that cost against the token", async () => {
    const token = await c.env.http('POST', '/v1/admin/tokens', {
      token: c.tenant.token,
      body: { name: 'json-caller', spendLimitUsd: 1 },
    });
    expect(token.status).toBe(200);
    const res = await c
      .openai(token.body.token)
      .chat.completions.create({
        model: '',
        messages: [{ role: 'user', content: unsure() }],
        response_format: { type: 'json_object' },
      })
      .then(
        () => undefined,
        (e: unknown) => e as APIError,
      );
    expect(res?.status).toBe(502);
    expect((res?.error as any)?.type).toBe('no_capable_provider');
    const id = requestIdOf(res);
    const logged = await requestRow(id);
    expect(logged).toMatchObject({
      status: 'error',
      error_type: 'no_capable_provider',
      routed_by: 'classification',
      provider: null,
      model: null,
      token_id: token.body.id,
      used_llm_fallback: true,
    });
    // The cell the classifier settled on is kept, so analytics can tell which kind of request found no model.
    expect(logged.task_type).toEqual(expect.any(String));
    expect(logged.complexity).toEqual(expect.any(String));

    await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [id], 1);
    const [row] = await costRows(id);
    expect(row).toMatchObject({ provider: 'openai', model: 'gpt-4.1-nano', status: 'ok', token_id: token.body.id });
    expect(row!.cost).toBeGreaterThan(0);
    // Counted in this process at once, not only once the row reaches token_spend: what the gate
    // reads for the token (its cached principal, which a refresh may have updated meanwhile, and
    // what this process counted on top) holds the cost either way.
    const principal = await c.env.services.auth.authenticate(`Bearer ${token.body.token}`);
    expect(c.env.services.auth.spentOf(principal)).toBeCloseTo(row!.cost, 12);
  });

  it('log a request row for 502 when no registered model can serve the request', async () => {
    // Only a model without vision: an image has nowhere to go.
    const blind = await startChatEnv({
      sim: { models: { openai: ['o3-mini'], anthropic: [], gemini: [] } },
      env: { ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' },
    });
    try {
      const png =
        'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
      const err = await blind
        .openai()
        .chat.completions.create({
          model: '',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                { type: 'image_url', image_url: { url: png } },
              ],
            },
          ],
          routing_hint: 'qa',
          complexity_hint: 'simple',
        } as never)
        .then(
          () => undefined,
          (e: unknown) => e as APIError,
        );
      expect(err?.status).toBe(502);
      await blind.waitForCount('select count(*) n from requests where id = $1', [requestIdOf(err)], 1);
      const [row] = await blind.query('select * from requests where id = $1', [requestIdOf(err)]);
      expect(row).toMatchObject({
        status: 'error',
        error_type: 'provider_error',
        routed_by: 'routing-hint',
        task_type: 'qa',
        complexity: 'simple',
        provider: null,
        model: null,
      });
    } finally {
      await blind.close();
    }
  });
});
