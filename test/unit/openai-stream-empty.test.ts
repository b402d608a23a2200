import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cancellation } from '../../server/lib/cancel-signal.js';
import { OpenAICompatibleAdapter } from '../../server/providers/openai-compatible/adapter.js';
import { OpenAIStreamNormalizer } from '../../server/providers/openai-compatible/stream.js';
import { ProviderError, type ChatChunk } from '../../server/providers/types.js';
import { startSimulator, type Simulator } from '../../server/simulator/index.js';

// An OpenAI-format stream that ends without any answer in it is a broken answer, not an empty
// one: the adapter throws a retryable ProviderError before yielding anything, so the core falls back.

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
const ev = (obj: unknown) => ({ data: typeof obj === 'string' ? obj : JSON.stringify(obj) });

describe('OpenAIStreamNormalizer on a stream without an answer', () => {
  it('refuses a stream of one chunk without choices, then [DONE]', () => {
    const norm = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
    expect(norm.push(ev({ id: 'x', object: 'chat.completion', created: 0 }))).toBeUndefined();
    expect(norm.push(ev('[DONE]'))).toBeUndefined();
    expect(() => norm.end()).toThrow(/without an answer/);
  });

  it('refuses a stream that only opened (role-only chunk), then [DONE]', () => {
    const norm = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
    norm.push(ev({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
    norm.push(ev('[DONE]'));
    expect(() => norm.end()).toThrow(ProviderError);
  });

  it('still accepts an empty answer that says it finished, or reports usage', () => {
    const finished = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
    expect(finished.push(ev({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }))).toBeDefined();
    finished.push(ev('[DONE]'));
    expect(finished.end()).toBeUndefined();

    const usageOnly = new OpenAIStreamNormalizer('openai', 'gpt-4o-mini');
    expect(
      usageOnly.push(ev({ ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 } })),
    ).toBeDefined();
    usageOnly.push(ev('[DONE]'));
    expect(usageOnly.end()).toBeUndefined();
  });
});

describe('OpenAICompatibleAdapter.chatStream against a stream without choices', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 1 });
  });
  afterAll(() => sim.close());

  it('throws a retryable ProviderError before yielding anything', async () => {
    sim.setFaults([{ format: 'openai', endpoint: 'stream', malformedAnswer: 'no-choices' }]);
    const adapter = new OpenAICompatibleAdapter({
      name: 'openai',
      family: 'openai-compatible',
      baseUrl: sim.baseUrls.openai,
      apiKey: 'sk-test',
      builtinModels: [],
    });
    const yielded: ChatChunk[] = [];
    let failure: unknown;
    try {
      for await (const chunk of adapter.chatStream(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        { signal: new Cancellation(), timeoutMs: 5_000 },
      )) {
        yielded.push(chunk);
      }
    } catch (err) {
      failure = err;
    }
    expect(yielded).toEqual([]);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ provider: 'openai', retryable: true, kind: 'stream' });
  });
});
