import type { ServerResponse } from 'node:http';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { openaiFormatStandIn, type OpenAIFormatStandIn, type Refusal } from '../../support/openai-format-stand-in.js';
import { StandIns } from '../../support/stand-in.js';

// Mistral's reasoning, through the official OpenAI client, against a stand-in answering as
// Mistral documents: `reasoning_effort` reaches the models that take it as the values they take
// ("none"/"high" for Small 4 and Medium 3.5, "low"/"medium"/"high" for Large 4), and no other
// model gets it (Mistral answers 422 to a field it does not take). A thinking answer's content is
// a list of thinking and text chunks; streamed, the thinking comes as such lists and the answer
// as strings. The client gets OpenAI's shape: the text as its content string, the thinking as
// reasoning_content.

const standIns = new StandIns();
let c: ChatEnv;
let mistral: OpenAIFormatStandIn;

const TWO_LEVELS = new Set(['mistral-medium-3-5', 'mistral-small-latest']);
const THINKING = 'The user asks 17 x 23. 17 x 20 = 340, 17 x 3 = 51, so 391.';
const thinkingChunk = (text: string) => ({ type: 'thinking', thinking: [{ type: 'text', text }] });
const usage = { prompt_tokens: 14, completion_tokens: 40, total_tokens: 54 };

/** Mistral's 422 for a field or value the model does not take. */
function check(body: Record<string, unknown>): Refusal {
  const model = String(body['model']);
  const effort = body['reasoning_effort'];
  if (effort === undefined) return undefined;
  const allowed = TWO_LEVELS.has(model)
    ? ['none', 'high']
    : model === 'mistral-large-4'
      ? ['low', 'medium', 'high']
      : [];
  if (allowed.includes(String(effort))) return undefined;
  const message = allowed.length
    ? `reasoning_effort: Input should be ${allowed.map((a) => `'${a}'`).join(' or ')}`
    : 'reasoning_effort: Extra inputs are not permitted';
  return [422, { object: 'error', message, type: 'invalid_request_error', param: null, code: null }];
}

/** Whether the model thinks for this request (Large 4 always, the others at "high"). */
const thinks = (body: Record<string, unknown>): boolean =>
  body['model'] === 'mistral-large-4' || body['reasoning_effort'] === 'high';

/** Mistral's answer: a thinking model's content as thinking and text chunks; streamed, the thinking as such lists, the text as strings. */
function answer(body: Record<string, unknown>, res: ServerResponse): void {
  const base = { id: 'cmpl-7f3a', created: 1764000000, model: body['model'] };
  if (body['stream'] !== true) {
    const content = thinks(body) ? [thinkingChunk(THINKING), { type: 'text', text: '391' }] : '391';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content, tool_calls: null, prefix: false }, finish_reason: 'stop' },
        ],
        usage,
      }),
    );
    return;
  }
  const frame = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame({ role: 'assistant', content: '' }));
  if (thinks(body)) {
    res.write(frame({ content: [thinkingChunk(THINKING.slice(0, 20))] }));
    res.write(frame({ content: [thinkingChunk(THINKING.slice(20))] }));
  }
  res.write(frame({ content: '39' }));
  res.write(frame({ content: '1' }, 'stop', { usage }));
  res.end('data: [DONE]\n\n');
}

beforeAll(async () => {
  mistral = await openaiFormatStandIn(
    standIns,
    ['mistral-medium-3-5', 'mistral-small-latest', 'mistral-large-4', 'mistral-small-2506'],
    check,
    answer,
  );
  c = await startChatEnv({ env: { MISTRAL_API_KEY: 'mistral-test-key', MISTRAL_BASE_URL: `${mistral.base}/v1` } });
});
afterAll(async () => {
  await c?.close();
  await standIns.closeAll();
});
beforeEach(() => {
  mistral.received.length = 0;
});

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is 17 times 23?' }];
const lastSent = () => mistral.last();

describe('reasoning on Mistral', () => {
  it("answers a thinking model in OpenAI's shape: the text as content, the thinking as reasoning_content", async () => {
    const res = await c
      .openai()
      .chat.completions.create({ model: 'mistral/mistral-medium-3-5', messages, reasoning_effort: 'medium' });
    expect(lastSent()['reasoning_effort']).toBe('high');
    const message = res.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(message.content).toBe('391');
    expect(message.reasoning_content).toBe(THINKING);
    expect(res.usage).toMatchObject(usage);

    // The answer goes back as the client got it (Mistral's `tool_calls: null` and `prefix` included);
    // Mistral is sent neither the thinking nor a null it would refuse.
    expect(message.tool_calls).toBeNull();
    await c.openai().chat.completions.create({
      model: 'mistral/mistral-medium-3-5',
      messages: [
        ...messages,
        message as OpenAI.ChatCompletionMessageParam,
        { role: 'user', content: 'And 18 times 23?' },
      ],
    });
    expect((lastSent()['messages'] as unknown[])[1]).toEqual({ role: 'assistant', content: '391', prefix: false });
  });

  it('streams the thinking as reasoning_content deltas and the text as content', async () => {
    const stream = await c.openai().chat.completions.create({
      model: 'mistral/mistral-large-4',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let thinking = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: unknown; reasoning_content?: string } | undefined;
      if (delta?.content !== undefined && delta.content !== null) {
        expect(typeof delta.content).toBe('string');
        text += delta.content as string;
      }
      thinking += delta?.reasoning_content ?? '';
    }
    expect(text).toBe('391');
    expect(thinking).toBe(THINKING);
    expect(lastSent()).not.toHaveProperty('reasoning_effort');
  });

  it('sends each model the efforts it takes, and none to a model that takes none', async () => {
    const sentFor = async (model: string, effort: string): Promise<unknown> => {
      await c
        .openai()
        .chat.completions.create({ model: `mistral/${model}`, messages, reasoning_effort: effort as 'low' });
      return lastSent()['reasoning_effort'];
    };
    expect(await sentFor('mistral-small-latest', 'minimal')).toBe('none');
    expect(await sentFor('mistral-small-latest', 'low')).toBe('high');
    expect(await sentFor('mistral-large-4', 'none')).toBe('low');
    expect(await sentFor('mistral-large-4', 'medium')).toBe('medium');
    expect(await sentFor('mistral-large-4', 'xhigh')).toBe('high');
    expect(await sentFor('mistral-small-2506', 'high')).toBeUndefined();
    // An answer without thinking stays as it came.
    const plain = await c
      .openai()
      .chat.completions.create({ model: 'mistral/mistral-small-latest', messages, reasoning_effort: 'none' });
    expect(plain.choices[0]!.message.content).toBe('391');
    expect(plain.choices[0]!.message).not.toHaveProperty('reasoning_content');
  });

  it('refuses an effort OpenAI does not have with a 400, sending nothing', async () => {
    await expect(
      c
        .openai()
        .chat.completions.create({ model: 'mistral/mistral-medium-3-5', messages, reasoning_effort: 'max' as 'high' }),
    ).rejects.toMatchObject({ status: 400, error: { type: 'invalid_request_error' } });
    expect(mistral.received).toEqual([]);
  });
});
