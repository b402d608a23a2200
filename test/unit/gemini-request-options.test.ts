// OpenAI request fields and content shapes against the Gemini translation: n and logprobs are
// mapped both ways, media Gemini cannot take is refused before anything is sent (a 'request'
// ProviderError, which the gateway answers with 400 invalid_request_error), and streams with
// several candidates, several parts or no candidates are translated faithfully.
import { describe, expect, it } from 'vitest';
import { fetchesAnyUrl, toGeminiRequest } from '../../server/providers/gemini/request.js';
import { fromGeminiResponse } from '../../server/providers/gemini/response.js';
import { GeminiStreamTranslator } from '../../server/providers/gemini/stream.js';
import { ProviderError, type ChatRequest, type ContentPart } from '../../server/providers/types.js';
import { translateGeminiStream } from '../support/gemini-stream.js';

const user = (content: ContentPart[], model = 'gemini-2.5-flash'): ChatRequest => ({
  model,
  messages: [{ role: 'user', content }],
});
const image = (url: string): ContentPart => ({ type: 'image_url', image_url: { url } });

function refusal(req: ChatRequest): ProviderError {
  try {
    toGeminiRequest(req, 'vertex-gemini');
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    const err = e as ProviderError;
    expect(err.kind).toBe('request');
    expect(err.retryable).toBe(false);
    expect(err.provider).toBe('vertex-gemini');
    return err;
  }
  throw new Error('expected the request to be refused');
}

describe('gemini media', () => {
  it('sends base64 data URLs inline with a clean media type', () => {
    const body = toGeminiRequest(
      user([image('data:image/jpg;base64,/9j/'), image('data:image/HEIC;foo=bar;base64,AAAA')]),
    );
    expect(body.contents[0]!.parts).toEqual([
      { inlineData: { mimeType: 'image/jpeg', data: '/9j/' } },
      { inlineData: { mimeType: 'image/heic', data: 'AAAA' } },
    ]);
  });

  it('refuses data URLs that are not base64 and URLs Gemini cannot fetch', () => {
    expect(refusal(user([image('data:image/png,rawbytes')])).message).toMatch(/base64/);
    expect(refusal(user([image('gs://bucket/cat.png')])).message).toMatch(/http\(s\) URL/);
  });

  it('lets 2.5 and later models fetch any http(s) URL, and earlier ones only Files API and YouTube URIs', () => {
    expect(
      toGeminiRequest(user([image('https://example.com/a.webp')], 'gemini-3-pro-preview')).contents[0]!.parts,
    ).toEqual([{ fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/a.webp' } }]);
    expect(refusal(user([image('https://example.com/a.png')], 'gemini-2.0-flash')).message).toMatch(
      /cannot fetch images from URLs.*base64 data URL/,
    );
    expect(refusal(user([image('https://example.com/a.png')], 'models/gemini-1.5-pro')).message).toMatch(
      /cannot fetch/,
    );
    const files = 'https://generativelanguage.googleapis.com/v1beta/files/abc123';
    // Files API and YouTube URIs name files whose type Gemini knows (videos, PDFs): not labelled as images.
    expect(toGeminiRequest(user([image(files)], 'gemini-2.0-flash')).contents[0]!.parts[0]).toEqual({
      fileData: { fileUri: files },
    });
    const video = 'https://www.youtube.com/watch?v=9hE5-98ZeCg';
    expect(toGeminiRequest(user([image(video)], 'gemini-2.0-flash')).contents[0]!.parts[0]).toEqual({
      fileData: { fileUri: video },
    });
    expect(fetchesAnyUrl('gemini-2.5-flash-lite')).toBe(true);
    expect(fetchesAnyUrl('gemini-flash-latest')).toBe(true);
    expect(fetchesAnyUrl('gemini-2.0-flash-001')).toBe(false);
  });

  it('sends input_audio and base64 files inline, and refuses file ids and unknown parts', () => {
    const body = toGeminiRequest(
      user([
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
      ]),
    );
    expect(body.contents[0]!.parts).toEqual([
      { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
    ]);
    expect(refusal(user([{ type: 'input_audio', input_audio: { format: 'wav' } }])).message).toMatch(/input_audio/);
    expect(refusal(user([{ type: 'file', file: { file_id: 'file-abc' } }])).message).toMatch(/file_id/);
    expect(refusal(user([{ type: 'video_url', video_url: { url: 'https://x/y.mp4' } }])).message).toMatch(/video_url/);
  });

  it('refuses a conversation with nothing but system text, which Gemini would refuse as empty', () => {
    expect(
      refusal({ model: 'gemini-2.5-flash', messages: [{ role: 'system', content: 'Be brief.' }] }).message,
    ).toMatch(/at least one/);
  });
});

describe('gemini n and logprobs: requests', () => {
  const base: ChatRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };

  it('maps n to candidateCount and logprobs/top_logprobs to responseLogprobs/logprobs', () => {
    expect(toGeminiRequest({ ...base, n: 3, logprobs: true, top_logprobs: 2 }).generationConfig).toEqual({
      candidateCount: 3,
      responseLogprobs: true,
      logprobs: 2,
    });
    expect(toGeminiRequest({ ...base, n: 1, logprobs: false, top_logprobs: 0 }).generationConfig).toBeUndefined();
  });

  it('drops hints Gemini lacks', () => {
    const body = toGeminiRequest({
      ...base,
      user: 'u-1',
      parallel_tool_calls: false,
      logit_bias: { '1': 1 },
      service_tier: 'auto',
    });
    expect(Object.keys(body)).toEqual(['contents']);
  });
});

describe('gemini n and logprobs: answers', () => {
  const logprobsResult = {
    chosenCandidates: [
      { token: 'Hé', tokenId: 5, logProbability: -0.1 },
      { token: '!', tokenId: 6, logProbability: -0.5 },
    ],
    topCandidates: [
      {
        candidates: [
          { token: 'Hé', tokenId: 5, logProbability: -0.1 },
          { token: 'Hi', tokenId: 7, logProbability: -2.4 },
        ],
      },
      { candidates: [{ token: '!', tokenId: 6, logProbability: -0.5 }] },
    ],
  };

  it('gives every candidate as a choice, by index, with its finish reason', () => {
    const c = fromGeminiResponse(
      {
        candidates: [
          { index: 1, content: { parts: [{ text: 'Second' }] }, finishReason: 'MAX_TOKENS' },
          { index: 0, content: { parts: [{ text: 'First' }] }, finishReason: 'STOP' },
        ],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 6, totalTokenCount: 10 },
      },
      'gemini-2.5-flash',
    );
    expect(c.choices.map((ch) => [ch.index, ch.message.content, ch.finish_reason])).toEqual([
      [0, 'First', 'stop'],
      [1, 'Second', 'length'],
    ]);
    expect(c.usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
  });

  it('maps logprobsResult to OpenAI logprobs.content', () => {
    const c = fromGeminiResponse(
      { candidates: [{ index: 0, content: { parts: [{ text: 'Hé!' }] }, finishReason: 'STOP', logprobsResult }] },
      'gemini-2.5-flash',
    );
    expect(c.choices[0]!.logprobs).toEqual({
      refusal: null,
      content: [
        {
          token: 'Hé',
          logprob: -0.1,
          bytes: [72, 195, 169],
          top_logprobs: [
            { token: 'Hé', logprob: -0.1, bytes: [72, 195, 169] },
            { token: 'Hi', logprob: -2.4, bytes: [72, 105] },
          ],
        },
        { token: '!', logprob: -0.5, bytes: [33], top_logprobs: [{ token: '!', logprob: -0.5, bytes: [33] }] },
      ],
    });
  });

  it('streams several candidates as choices of their own, each with its role once, and ends when all have finished', () => {
    const frame = (a: string, b: string, finish?: string) => ({
      candidates: [
        { index: 0, content: { parts: [{ text: a }] }, ...(finish ? { finishReason: finish } : {}) },
        { index: 1, content: { parts: [{ text: b }] }, ...(finish ? { finishReason: finish } : {}) },
      ],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 },
    });
    const chunks = translateGeminiStream([frame('A', 'B'), frame('a', 'b', 'STOP')]);
    expect(chunks[0]!.choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: 'A' }, finish_reason: null },
      { index: 1, delta: { role: 'assistant', content: 'B' }, finish_reason: null },
    ]);
    expect(chunks[1]!.choices).toEqual([
      { index: 0, delta: { content: 'a' }, finish_reason: null },
      { index: 1, delta: { content: 'b' }, finish_reason: null },
    ]);
    expect(chunks[2]!.choices).toEqual([
      { index: 0, delta: {}, finish_reason: 'stop' },
      { index: 1, delta: {}, finish_reason: 'stop' },
    ]);
    expect(chunks[3]!.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it('reports a stream as cut when one candidate never finished', () => {
    const tr = new GeminiStreamTranslator('gemini', 'gemini-2.5-flash');
    tr.push({
      data: JSON.stringify({
        candidates: [
          { index: 0, content: { parts: [{ text: 'A' }] }, finishReason: 'STOP' },
          { index: 1, content: { parts: [{ text: 'B' }] } },
        ],
      }),
    });
    expect(() => tr.end()).toThrow(/without a finishReason/);
  });

  it('streams logprobs with the text they belong to, after a role-only opening', () => {
    const chunks = translateGeminiStream([
      { candidates: [{ index: 0, content: { parts: [{ text: 'Hé!' }] }, finishReason: 'STOP', logprobsResult }] },
    ]);
    // The OpenAI SDKs' stream helpers take the logprobs of a choice's opening chunk twice.
    expect(chunks[0]!.choices).toEqual([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    const choice = chunks[1]!.choices[0] as { delta: unknown; logprobs?: { content: Array<{ token: string }> } };
    expect(choice.delta).toEqual({ content: 'Hé!' });
    expect(choice.logprobs?.content.map((t) => t.token)).toEqual(['Hé', '!']);
    // A first frame without text (a function call) opens with content null, as its whole answer has.
    const call = translateGeminiStream([
      {
        candidates: [
          {
            index: 0,
            content: { parts: [{ functionCall: { name: 'f', args: {} } }] },
            finishReason: 'STOP',
            logprobsResult,
          },
        ],
      },
    ]);
    expect(call[0]!.choices).toEqual([{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }]);
  });
});

describe('gemini usage', () => {
  it('reports cached content (already inside promptTokenCount) and thinking as OpenAI details, counting neither twice', () => {
    const c = fromGeminiResponse(
      {
        candidates: [{ index: 0, content: { parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
        usageMetadata: {
          promptTokenCount: 1000,
          cachedContentTokenCount: 800,
          candidatesTokenCount: 10,
          thoughtsTokenCount: 90,
          totalTokenCount: 1100,
        },
      },
      'gemini-2.5-flash',
    );
    expect(c.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 100,
      total_tokens: 1100,
      prompt_tokens_details: { cached_tokens: 800 },
      completion_tokens_details: { reasoning_tokens: 90 },
    });
  });
});

describe('gemini tool results', () => {
  it('refuses media in a tool result, which a functionResponse cannot carry', () => {
    const req: ChatRequest = {
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'screenshot?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
        },
        {
          role: 'tool',
          tool_call_id: 'c1',
          content: [{ type: 'text', text: 'here' }, image('data:image/png;base64,iVBO')],
        },
      ],
    };
    expect(refusal(req).message).toMatch(/text tool results only.*image_url/);
  });

  it('sends several results of one turn, text-part arrays included, as one user turn of functionResponses in order', () => {
    const body = toGeminiRequest({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'Paris and Oslo?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'b', type: 'function', function: { name: 'time', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '{"c":18}' },
        {
          role: 'tool',
          tool_call_id: 'b',
          content: [
            { type: 'text', text: '12:' },
            { type: 'text', text: '00' },
          ],
        },
      ],
    });
    expect(body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'a', name: 'weather', args: { city: 'Paris' } } },
          { functionCall: { id: 'b', name: 'time', args: { city: 'Oslo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'a', name: 'weather', response: { c: 18 } } },
          { functionResponse: { id: 'b', name: 'time', response: { result: '12:00' } } },
        ],
      },
    ]);
  });
});

describe('gemini streams: parts, blocks and safety', () => {
  it('joins several text parts of one frame and keeps a function call of the same frame', () => {
    const chunks = translateGeminiStream([
      {
        candidates: [
          {
            index: 0,
            content: {
              parts: [{ text: 'Let me ' }, { text: 'check.' }, { functionCall: { name: 'lookup', args: { q: 1 } } }],
            },
            finishReason: 'STOP',
          },
        ],
      },
    ]);
    const delta = chunks[0]!.choices[0]!.delta;
    expect(delta.content).toBe('Let me check.');
    expect(delta.tool_calls?.map((t) => [t.index, t.function?.name, t.function?.arguments])).toEqual([
      [0, 'lookup', '{"q":1}'],
    ]);
    // The frame's finish follows in a chunk of its own, as OpenAI sends it.
    expect(chunks[0]!.choices[0]!.finish_reason).toBeNull();
    expect(chunks[1]!.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
  });

  it('ends a blocked prompt (no candidates) and a safety stop without content as content_filter', () => {
    const blocked = translateGeminiStream([
      { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } },
    ]);
    expect(blocked[0]!.choices).toEqual([{ index: 0, delta: { role: 'assistant' }, finish_reason: 'content_filter' }]);
    expect(blocked[1]!.usage).toEqual({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 });
    const safety = translateGeminiStream([{ candidates: [{ index: 0, finishReason: 'SAFETY', safetyRatings: [] }] }]);
    expect(safety[0]!.choices).toEqual([{ index: 0, delta: { role: 'assistant' }, finish_reason: 'content_filter' }]);
  });

  it('takes a trailing usage-only frame as the final usage', () => {
    const chunks = translateGeminiStream([
      {
        candidates: [{ index: 0, content: { parts: [{ text: 'Hi' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1, totalTokenCount: 3 },
      },
      { usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1, thoughtsTokenCount: 5, totalTokenCount: 8 } },
    ]);
    expect(chunks.at(-1)!.usage).toEqual({
      prompt_tokens: 2,
      completion_tokens: 6,
      total_tokens: 8,
      completion_tokens_details: { reasoning_tokens: 5 },
    });
  });
});
