import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../../../server/simulator/config.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// reasoning_effort through the official OpenAI client to Gemini models, whole and streamed: it
// reaches the simulator (which checks thinkingConfig as Gemini does) as the model's thinking level
// or budget, and an effort OpenAI does not have is a 400 before anything is sent.

const GEMINI_3 = ['gemini-3.1-pro-preview', 'gemini-3-pro-preview', 'gemini-3.8-flash'];
let c: ChatEnv;

beforeAll(async () => {
  c = await startChatEnv({ sim: { models: { gemini: [...DEFAULT_MODELS.gemini, ...GEMINI_3] } } });
  c.sim.configure({ chunkDelayMs: 0 });
});
afterAll(() => c?.close());

const messages = [{ role: 'user' as const, content: 'Think it through: what is 17 times 23?' }];
const generateCalls = () =>
  c.sim.requests.filter((r) => r.path.includes(':generateContent') || r.path.includes(':streamGenerateContent'));
/** The generationConfig of the last generate request the simulator received. */
const lastConfig = (): Record<string, unknown> | undefined => {
  const calls = generateCalls();
  return (calls[calls.length - 1]!.body as { generationConfig?: Record<string, unknown> }).generationConfig;
};

describe('reasoning_effort on Gemini', () => {
  it('the simulator refuses a thinking level on Gemini 2.5 and a level a model lacks, as Gemini does', async () => {
    const send = (model: string, thinkingConfig: unknown) =>
      fetch(`${c.sim.baseUrls.gemini}/models/${model}:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'gem-test-key' },
        body: JSON.stringify({
          contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
          generationConfig: { thinkingConfig },
        }),
      });
    expect((await send('gemini-2.5-flash', { thinkingLevel: 'low' })).status).toBe(400);
    expect((await send('gemini-3-pro-preview', { thinkingLevel: 'medium' })).status).toBe(400);
    expect((await send('gemini-2.5-pro', { thinkingBudget: 0 })).status).toBe(400);
    expect((await send('gemini-3-pro-preview', { thinkingLevel: 'high' })).status).toBe(200);
  });

  it("goes as the model's thinking level on Gemini 3, whole and streamed", async () => {
    const res = await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-3.1-pro-preview', messages, reasoning_effort: 'medium' });
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect(lastConfig()).toEqual({ thinkingConfig: { thinkingLevel: 'medium' } });

    // Gemini 3 Pro has no medium: its nearest, high.
    await c
      .openai()
      .chat.completions.create({ model: 'gemini/gemini-3-pro-preview', messages, reasoning_effort: 'medium' });
    expect(lastConfig()).toEqual({ thinkingConfig: { thinkingLevel: 'high' } });

    const stream = await c.openai().chat.completions.create({
      model: 'gemini/gemini-3.8-flash',
      messages,
      reasoning_effort: 'minimal',
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).not.toBe('');
    expect(lastConfig()).toEqual({ thinkingConfig: { thinkingLevel: 'minimal' } });
  });

  it('goes as a thinking budget on Gemini 2.5, and as nothing to a model that does not think', async () => {
    await c.openai().chat.completions.create({ model: 'gemini/gemini-2.5-pro', messages, reasoning_effort: 'none' });
    expect(lastConfig()).toEqual({ thinkingConfig: { thinkingBudget: 128 } });
    await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages,
      reasoning_effort: 'low',
      max_tokens: 2_000,
    });
    expect(lastConfig()).toEqual({ maxOutputTokens: 2_000, thinkingConfig: { thinkingBudget: 1_024 } });
    await c.openai().chat.completions.create({ model: 'gemini/gemini-2.0-flash', messages, reasoning_effort: 'high' });
    expect(lastConfig()).toBeUndefined();
  });

  it('refuses an effort OpenAI does not have with a 400, sending nothing', async () => {
    const before = generateCalls().length;
    await expect(
      c
        .openai()
        .chat.completions.create({ model: 'gemini/gemini-3.8-flash', messages, reasoning_effort: 'extreme' as 'high' }),
    ).rejects.toMatchObject({ status: 400, error: { type: 'invalid_request_error' } });
    expect(generateCalls().length).toBe(before);
  });
});
