import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { expectTypedError } from '../../support/security.js';

// The judge configuration accepts only a grader the gateway can call: a chat model some provider
// serves. An unknown model is refused the way a chat call pinning it is (404 not_found_error).

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

const put = (body: Record<string, unknown>) =>
  c.env.http('PUT', '/v1/feedback/judge/config', { token: c.tenant.token, body });
const config = async () => (await c.env.http('GET', '/v1/feedback/judge/config', { token: c.tenant.token })).body;

describe('judge model validation', () => {
  it.each([
    ['nope/nope', 'an unknown provider and model'],
    ['openai/nope', 'a model the provider does not serve'],
  ])('refuses %s (%s) with 404 not_found_error, as the chat endpoint does, and keeps the config', async (model) => {
    await put({ enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 0.5 });
    const res = await put({ model });
    expectTypedError(res, 404, 'not_found_error');
    expect(res.body.error.message).toContain('model');

    // The chat endpoint answers the same model the same way.
    const chat = await c
      .openai()
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.APIError);
    expect((chat as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
    expect((chat as any).error?.type).toBe('not_found_error');

    expect(await config()).toMatchObject({ enabled: true, model: 'openai/gpt-4.1-nano', sampleRate: 0.5 });
  });

  it('refuses a model that is not a chat model (an embeddings model) with 400', async () => {
    const res = await put({ model: 'openai/text-embedding-3-small' });
    expectTypedError(res, 400, 'invalid_request_error');
    expect(res.body.error.message).toContain('text-embedding-3-small');
  });

  it('accepts a served chat model, and null for the cheapest available', async () => {
    expect((await put({ model: 'gemini/gemini-2.0-flash' })).body).toMatchObject({
      model: 'gemini/gemini-2.0-flash',
      effectiveModel: 'gemini/gemini-2.0-flash',
    });
    const cleared = await put({ model: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.model).toBeNull();
    expect(cleared.body.effectiveModel).toMatch(/\//);
  });
});
