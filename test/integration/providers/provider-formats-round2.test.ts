// OpenAI request fields through the gateway to the Anthropic and Gemini translations, against the
// upstream simulator: what each provider can take is translated (n, logprobs and images on
// Gemini, image/jpg on Anthropic), and what it cannot is a 400 invalid_request_error sent before
// any upstream call, never a provider error or a silently different answer.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

async function refused(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(OpenAI.APIError);
    return e as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected the gateway to refuse the request');
}

/** Upstream calls the simulator has seen to a provider's path. */
const upstreamCalls = (path: string): number => c.sim.requests.filter((r) => r.path.includes(path)).length;

describe('anthropic', () => {
  it('takes a data:image/jpg URL (sent as image/jpeg, which Anthropic requires)', async () => {
    const res = await c.openai().chat.completions.create({
      model: 'anthropic/claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this jpg?' },
            { type: 'image_url', image_url: { url: `data:image/jpg;base64,${PNG}` } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBeTruthy();
  });

  it('refuses an image type Anthropic cannot read with 400 before calling it', async () => {
    const before = upstreamCalls('/v1/messages');
    const err = await refused(
      c.openai().chat.completions.create({
        model: 'anthropic/claude-sonnet-4-5',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/bmp;base64,${PNG}` } }] },
        ],
      }),
    );
    expect(err.status).toBe(400);
    expect((err.error as { type?: string }).type).toBe('invalid_request_error');
    expect(err.message).toMatch(/image\/bmp/);
    expect(upstreamCalls('/v1/messages')).toBe(before);
  });

  it('refuses n > 1 and logprobs with 400, whole and streamed', async () => {
    const messages = [{ role: 'user' as const, content: 'Two answers please' }];
    const whole = await refused(
      c.openai().chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages, n: 2 }),
    );
    expect(whole.status).toBe(400);
    expect(whole.message).toMatch(/\bn: /);
    const streamed = await refused(
      (async () => {
        const s = await c
          .openai()
          .chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages, logprobs: true, stream: true });
        for await (const _ of s) {
          /* drain */
        }
      })(),
    );
    expect(streamed.status).toBe(400);
    expect(streamed.message).toMatch(/logprobs/);
  });

  it('refuses a whitespace-only stop sequence with 400 before calling it; others stop the answer', async () => {
    const messages = [{ role: 'user' as const, content: 'One line please' }];
    const before = upstreamCalls('/v1/messages');
    const err = await refused(
      c.openai().chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages, stop: ['\n'] }),
    );
    expect(err.status).toBe(400);
    expect((err.error as { type?: string }).type).toBe('invalid_request_error');
    expect(err.message).toMatch(/whitespace only/);
    expect(upstreamCalls('/v1/messages')).toBe(before);
    // The simulator answers "... the quick brown fox ...": a stop sequence inside it ends the answer there.
    const free = await c.openai().chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages });
    expect(free.choices[0]!.message.content).toContain(' brown');
    const stopped = await c
      .openai()
      .chat.completions.create({ model: 'anthropic/claude-sonnet-4-5', messages, stop: [' brown'] });
    expect(stopped.choices[0]!.message.content).toBe(
      free.choices[0]!.message.content!.slice(0, free.choices[0]!.message.content!.indexOf(' brown')),
    );
  });

  it('the simulator refuses a whitespace-only stop sequence as Anthropic does', async () => {
    const res = await fetch(`${c.sim.baseUrls.anthropic}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        stop_sequences: ['\n\n'],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'stop_sequences: each stop sequence must contain non-whitespace',
      },
    });
  });
});

describe('gemini', () => {
  it('answers n = 2 with two choices, whole and streamed', async () => {
    const whole = await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Give me two takes' }],
      n: 2,
    });
    expect(whole.choices.map((ch) => ch.index)).toEqual([0, 1]);
    expect(whole.choices.every((ch) => ch.message.content && ch.finish_reason === 'stop')).toBe(true);

    const stream = await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Stream two takes' }],
      n: 2,
      stream: true,
    });
    const text: Record<number, string> = {};
    const finish: Record<number, string | null> = {};
    for await (const chunk of stream) {
      for (const ch of chunk.choices) {
        text[ch.index] = (text[ch.index] ?? '') + (ch.delta.content ?? '');
        if (ch.finish_reason) finish[ch.index] = ch.finish_reason;
      }
    }
    expect(Object.keys(text)).toEqual(['0', '1']);
    expect(text[0]).toBeTruthy();
    expect(text[1]).toBe(text[0]);
    expect(finish).toEqual({ 0: 'stop', 1: 'stop' });
  });

  it('returns logprobs when asked', async () => {
    const res = await c.openai().chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'How sure are you?' }],
      logprobs: true,
      top_logprobs: 2,
    });
    const content = res.choices[0]!.logprobs?.content ?? [];
    expect(content.length).toBeGreaterThan(0);
    expect(content.map((t) => t.token).join('')).toBe(res.choices[0]!.message.content);
    expect(content[0]!.top_logprobs).toHaveLength(2);
  });

  it('refuses an image URL a pre-2.5 model cannot fetch with 400, and sends it for a current one', async () => {
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'Describe' },
          { type: 'image_url' as const, image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
    ];
    const before = upstreamCalls('gemini-2.0-flash');
    const err = await refused(c.openai().chat.completions.create({ model: 'gemini/gemini-2.0-flash', messages }));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/cannot fetch images from URLs/);
    expect(upstreamCalls('gemini-2.0-flash')).toBe(before);

    const ok = await c.openai().chat.completions.create({ model: 'gemini/gemini-2.5-flash', messages });
    expect(ok.choices[0]!.message.content).toBeTruthy();
  });
});
