// OpenAI request fields and content shapes Anthropic cannot take are refused before anything is
// sent (a 'request' ProviderError, which the gateway answers with 400 invalid_request_error);
// the shapes it can take are translated to what its API documents.
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../../server/providers/anthropic/request.js';
import { AnthropicStreamTranslator } from '../../server/providers/anthropic/stream.js';
import { ProviderError, type ChatChunk, type ChatRequest, type ContentPart } from '../../server/providers/types.js';

const user = (content: ContentPart[]): ChatRequest => ({
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content }],
});
const image = (url: string): ContentPart => ({ type: 'image_url', image_url: { url } });

function refusal(req: ChatRequest): ProviderError {
  try {
    toAnthropicRequest(req, 'anthropic-eu');
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    const err = e as ProviderError;
    expect(err.kind).toBe('request');
    expect(err.retryable).toBe(false);
    expect(err.provider).toBe('anthropic-eu');
    return err;
  }
  throw new Error('expected the request to be refused');
}

describe('anthropic images', () => {
  it('sends image/jpg, a common misspelling Anthropic refuses, as image/jpeg, and drops media type parameters', () => {
    const { body } = toAnthropicRequest(
      user([image('data:image/jpg;base64,/9j/4AAQ'), image('data:IMAGE/PNG;charset=binary;base64,iVBO')]),
    );
    expect(body.messages[0]!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
    ]);
  });

  it('refuses base64 images of a type Anthropic does not read', () => {
    expect(refusal(user([image('data:image/bmp;base64,Qk0=')])).message).toMatch(
      /image\/bmp.*not supported by Anthropic/,
    );
    expect(refusal(user([image('data:image/svg+xml;base64,PHN2Zz4=')])).message).toMatch(/image\/svg\+xml/);
  });

  it('refuses data URLs that are not base64 and URLs Anthropic cannot fetch', () => {
    expect(refusal(user([image('data:image/png,rawbytes')])).message).toMatch(/base64/);
    expect(refusal(user([image('ftp://example.com/cat.png')])).message).toMatch(/http\(s\) URL/);
    expect(refusal(user([image('/tmp/cat.png')])).message).toMatch(/http\(s\) URL/);
  });

  it('passes http(s) URLs on for Anthropic to fetch', () => {
    const { body } = toAnthropicRequest(user([image('HTTPS://example.com/cat')]));
    expect(body.messages[0]!.content).toEqual([
      { type: 'image', source: { type: 'url', url: 'HTTPS://example.com/cat' } },
    ]);
  });
});

describe('anthropic content parts other than text and images', () => {
  it('sends base64 PDFs as documents and base64 images in file parts as images', () => {
    const { body } = toAnthropicRequest(
      user([
        { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
        { type: 'file', file: { filename: 'b.png', file_data: 'data:image/png;base64,iVBO' } },
      ]),
    );
    expect(body.messages[0]!.content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
    ]);
  });

  it('refuses what it would otherwise drop without a word: file ids, other file types, audio, unknown parts', () => {
    expect(refusal(user([{ type: 'file', file: { file_id: 'file-abc' } }])).message).toMatch(/file_id/);
    expect(refusal(user([{ type: 'file', file: { file_data: 'data:text/csv;base64,YSxi' } }])).message).toMatch(
      /text\/csv/,
    );
    expect(refusal(user([{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }])).message).toMatch(
      /input_audio/,
    );
    expect(
      refusal(
        user([
          { type: 'text', text: 'hi' },
          { type: 'video_url', video_url: { url: 'https://x/y.mp4' } },
        ]),
      ).message,
    ).toMatch(/video_url/);
  });

  it('applies the same rules inside tool results', () => {
    const req: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: [image('data:image/tiff;base64,SUkq')] },
      ],
    };
    expect(refusal(req).message).toMatch(/image\/tiff/);
  });
});

describe('anthropic request options', () => {
  const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  it('refuses n > 1, since Anthropic answers with one choice', () => {
    expect(refusal({ ...base, n: 2 }).message).toMatch(/^n: /);
    expect(() => toAnthropicRequest({ ...base, n: 1 })).not.toThrow();
  });

  it('refuses logprobs, which Anthropic does not return', () => {
    expect(refusal({ ...base, logprobs: true, top_logprobs: 3 }).message).toMatch(/logprobs/);
    expect(() => toAnthropicRequest({ ...base, logprobs: false })).not.toThrow();
  });

  it('refuses a whitespace-only stop sequence, which Anthropic rejects, and sends the others as they are', () => {
    expect(refusal({ ...base, stop: ['END', '\n'] }).message).toBe(
      'stop: Anthropic does not accept a stop sequence of whitespace only ("\\n")',
    );
    expect(refusal({ ...base, stop: ' \t' }).message).toMatch(/whitespace only/);
    // An empty string stops nothing anywhere: left out.
    expect(toAnthropicRequest({ ...base, stop: ['', ' END', '\nHuman:'] }).body.stop_sequences).toEqual([
      ' END',
      '\nHuman:',
    ]);
  });

  it('drops optional hints Anthropic lacks instead of sending fields it would refuse', () => {
    const { body } = toAnthropicRequest({
      ...base,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.5,
      logit_bias: { '1': 2 },
      parallel_tool_calls: true,
      service_tier: 'auto',
    });
    for (const k of [
      'seed',
      'presence_penalty',
      'frequency_penalty',
      'logit_bias',
      'parallel_tool_calls',
      'service_tier',
      'n',
    ])
      expect(body).not.toHaveProperty(k);
  });

  it('refuses a conversation with nothing but system text, which Anthropic would refuse as empty', () => {
    expect(refusal({ model: 'm', messages: [{ role: 'system', content: 'Be brief.' }] }).message).toMatch(
      /at least one user or assistant message/,
    );
    expect(
      refusal({
        model: 'm',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: '' },
        ],
      }).message,
    ).toMatch(/at least one/);
  });
});

describe('anthropic tool turns', () => {
  it('keeps several calls and their results in order, in one alternating pair of turns', () => {
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'weather in Paris and Oslo?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call.b', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '18C' },
        {
          role: 'tool',
          tool_call_id: 'call.b',
          content: [
            { type: 'text', text: '9' },
            { type: 'text', text: 'C' },
          ],
        },
        { role: 'user', content: 'Which is warmer?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'weather in Paris and Oslo?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
          {
            type: 'tool_use',
            id: expect.stringMatching(/^call_b_[\w-]{10}$/),
            name: 'weather',
            input: { city: 'Oslo' },
          },
        ],
      },
      // Tool results first, then the user's text: the order Anthropic requires.
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '18C' },
          {
            type: 'tool_result',
            tool_use_id: expect.stringMatching(/^call_b_[\w-]{10}$/),
            content: [
              { type: 'text', text: '9' },
              { type: 'text', text: 'C' },
            ],
          },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });
});

describe('anthropic stream usage', () => {
  function usageOf(events: unknown[]): ChatChunk['usage'] {
    const tr = new AnthropicStreamTranslator('anthropic', 'claude-sonnet-4-5', false);
    let last: ChatChunk | undefined;
    for (const e of events) last = tr.push({ data: JSON.stringify(e) }) ?? last;
    tr.end();
    return last?.usage;
  }
  const start = (usage: unknown) => ({
    type: 'message_start',
    message: { id: 'msg_1', model: 'claude-sonnet-4-5', usage },
  });
  const text = [
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    { type: 'content_block_stop', index: 0 },
  ];
  const stop = (usage: unknown) => [
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage },
    { type: 'message_stop' },
  ];

  it('keeps the cache reads and writes of message_start when message_delta repeats only input_tokens', () => {
    const usage = usageOf([
      start({ input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 2000, output_tokens: 1 }),
      ...text,
      ...stop({ input_tokens: 12, output_tokens: 40 }),
    ]);
    expect(usage).toEqual({
      prompt_tokens: 2312,
      completion_tokens: 40,
      total_tokens: 2352,
      prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 300 },
    });
  });

  it('takes cumulative counts from message_delta, null counts included', () => {
    const usage = usageOf([
      start({ input_tokens: 0, output_tokens: 1 }),
      ...text,
      ...stop({ input_tokens: 20, cache_creation_input_tokens: null, cache_read_input_tokens: 100, output_tokens: 7 }),
    ]);
    expect(usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 7,
      total_tokens: 127,
      prompt_tokens_details: { cached_tokens: 100 },
    });
  });

  it('shows thinking as reasoning_content, ignores redacted thinking and ping events, and counts no answer text from them', () => {
    const tr = new AnthropicStreamTranslator('anthropic', 'claude-sonnet-4-5', false);
    const chunks: ChatChunk[] = [];
    const events = [
      start({ input_tokens: 5, output_tokens: 1 }),
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'xyz' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Answer' } },
      { type: 'content_block_stop', index: 2 },
      ...stop({ output_tokens: 30 }),
    ];
    for (const e of events) {
      const c = tr.push({ data: JSON.stringify(e) });
      if (c) chunks.push(c);
    }
    tr.end();
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? null)).toEqual([null, 'Answer', null, null]);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', reasoning_content: 'hmm' });
  });
});
