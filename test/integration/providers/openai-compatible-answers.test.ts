import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdapter } from '../../../server/providers/factory.js';
import { closeHttp } from '../../../server/providers/http.js';
import { ProviderError, type ProviderAdapter } from '../../../server/providers/types.js';
import { callOptions as opts, failureOf as failure, streamed } from '../../support/adapter-calls.js';
import { StandIns } from '../../support/stand-in.js';

// OpenAI-compatible servers that answer outside OpenAI's format, each as its documentation shows,
// from a stand-in server: xAI's reasoning tokens beside completion_tokens, Mistral's and
// OpenRouter's "error" finish and error frames, Mistral's model_length finish.

const standIns = new StandIns();
let answer: { whole?: unknown; frames?: unknown[] } = {};
let adapter: ProviderAdapter;

beforeAll(async () => {
  const baseUrl = await standIns.startJson((body, _req, res) => {
    if (!body['stream']) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.whole));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // A stream that fails mid-answer ends without [DONE], as OpenRouter's does.
    for (const f of answer.frames ?? []) res.write(`data: ${typeof f === 'string' ? f : JSON.stringify(f)}\n\n`);
    res.end();
  });
  adapter = createAdapter({
    name: 'xai',
    family: 'openai-compatible',
    baseUrl,
    apiKey: 'xai-test-key-0123456789',
    builtinModels: ['grok-4'],
  });
});
afterAll(async () => {
  await closeHttp();
  await standIns.closeAll();
});

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
  id: 'gen-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices,
  ...extra,
});
const ask = { model: 'grok-4', messages: [{ role: 'user' as const, content: 'hi' }] };

const collect = () => streamed(adapter, ask);

describe('usage reported beside completion_tokens', () => {
  const xaiUsage = () => ({
    prompt_tokens: 663,
    completion_tokens: 50,
    total_tokens: 837,
    completion_tokens_details: { reasoning_tokens: 124 },
  });

  it("counts xAI's reasoning tokens as output, whole and streamed (they are billed)", async () => {
    answer = {
      whole: {
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'grok-4',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
        usage: xaiUsage(),
      },
    };
    expect((await adapter.chat(ask, opts())).usage).toMatchObject({
      prompt_tokens: 663,
      completion_tokens: 174,
      total_tokens: 837,
    });
    answer = {
      frames: [
        chunk([{ index: 0, delta: { content: 'Hi' }, finish_reason: null }]),
        chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
        chunk([], { usage: xaiUsage() }),
        '[DONE]',
      ],
    };
    const chunks = await collect();
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: 174, total_tokens: 837 });
  });

  it('leaves usage alone where completion_tokens already holds the reasoning (OpenAI, DeepSeek)', async () => {
    const openaiUsage = {
      prompt_tokens: 10,
      completion_tokens: 150,
      total_tokens: 160,
      completion_tokens_details: { reasoning_tokens: 100 },
    };
    answer = {
      whole: {
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'o3',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
        usage: openaiUsage,
      },
    };
    expect((await adapter.chat(ask, opts())).usage).toEqual(openaiUsage);
  });
});

describe("finish reasons outside OpenAI's set", () => {
  it('fails a stream whose finish is "error" or that sends an error frame with a choice, instead of passing it as an answer', async () => {
    answer = {
      frames: [
        chunk([{ index: 0, delta: { content: 'The answer is' }, finish_reason: null }]),
        chunk([{ index: 0, delta: { content: '' }, finish_reason: 'error' }]),
      ],
    };
    const mistral = await failure(collect());
    expect(mistral).toBeInstanceOf(ProviderError);
    expect(mistral.message).toContain('finish_reason "error"');
    answer = {
      frames: [
        chunk([{ index: 0, delta: { content: 'The answer is' }, finish_reason: null }]),
        chunk([{ index: 0, delta: { content: '' }, finish_reason: 'error' }], {
          error: { code: 'server_error', message: 'Provider disconnected' },
        }),
      ],
    };
    const openrouter = await failure(collect());
    expect(openrouter).toBeInstanceOf(ProviderError);
    expect(openrouter.message).toContain('Provider disconnected');
  });

  it('fails a whole answer whose finish is "error", and names model_length as length', async () => {
    const whole = (finish: string) => ({
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'mistral-large',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Partial' }, finish_reason: finish }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    answer = { whole: whole('error') };
    expect(await failure(adapter.chat(ask, opts()))).toMatchObject({ kind: 'parse', status: 200 });
    answer = { whole: whole('model_length') };
    expect((await adapter.chat(ask, opts())).choices[0]!.finish_reason).toBe('length');
    answer = {
      frames: [
        chunk([{ index: 0, delta: { content: 'Cut' }, finish_reason: null }]),
        chunk([{ index: 0, delta: {}, finish_reason: 'model_length' }]),
        '[DONE]',
      ],
    };
    const chunks = await collect();
    expect(chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean)).toEqual(['length']);
  });
});
