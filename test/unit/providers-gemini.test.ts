import { describe, expect, it } from 'vitest';
import { toGeminiRequest } from '../../server/providers/gemini/request.js';
import { fromGeminiResponse, mapFinishReason, type GeminiResponse } from '../../server/providers/gemini/response.js';
import { GeminiStreamTranslator } from '../../server/providers/gemini/stream.js';
import { ProviderError, type ChatChunk } from '../../server/providers/types.js';
import { translateGeminiStream } from '../support/gemini-stream.js';

const run = (frames: unknown[]): ChatChunk[] => translateGeminiStream(frames);

describe('gemini request translation', () => {
  it('maps system instruction, roles and merges consecutive turns', () => {
    const body = toGeminiRequest({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'You are a cat.' },
        { role: 'user', content: 'Hello' },
        { role: 'user', content: 'Are you there?' },
        { role: 'assistant', content: 'Meow.' },
        { role: 'user', content: 'Good cat.' },
      ],
      temperature: 0.7,
      top_p: 0.9,
      max_tokens: 256,
      stop: ['END'],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are a cat.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hello' }, { text: 'Are you there?' }] },
      { role: 'model', parts: [{ text: 'Meow.' }] },
      { role: 'user', parts: [{ text: 'Good cat.' }] },
    ]);
    expect(body.generationConfig).toEqual({
      temperature: 0.7,
      topP: 0.9,
      maxOutputTokens: 256,
      stopSequences: ['END'],
    });
  });

  it('maps images to inlineData and fileData', () => {
    const body = toGeminiRequest({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(body.contents[0]!.parts).toEqual([
      { text: 'Describe' },
      { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.png' } },
    ]);
  });

  it('maps tools, tool calls and tool results (function name looked up by call id)', () => {
    const params = { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] };
    const body = toGeminiRequest({
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"location":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '{"temp":21}' },
        { role: 'tool', tool_call_id: 'call_b', content: '10:00' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: params } },
        { type: 'function', function: { name: 'get_time' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather', parametersJsonSchema: params },
          { name: 'get_time' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { id: 'call_a', name: 'get_weather', args: { location: 'Paris' } } },
        { functionCall: { id: 'call_b', name: 'get_time', args: { location: 'Rome' } } },
      ],
    });
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_a', name: 'get_weather', response: { temp: 21 } } },
        { functionResponse: { id: 'call_b', name: 'get_time', response: { result: '10:00' } } },
      ],
    });
  });

  it("pairs parallel results with their calls by id and puts them in the calls' order, whatever order they came in", () => {
    const call = (id: string, city: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'get', arguments: JSON.stringify({ city }) },
    });
    const body = toGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: [
        { role: 'user', content: 'Paris and London?' },
        { role: 'assistant', content: null, tool_calls: [call('fc_abc', 'Paris'), call('fc_def', 'London')] },
        { role: 'tool', tool_call_id: 'fc_def', content: '{"t":12}' },
        { role: 'tool', tool_call_id: 'fc_abc', content: '{"t":20}' },
        { role: 'tool', tool_call_id: 'unknown', name: 'get', content: '{"t":0}' },
        { role: 'user', content: 'Which is warmer?' },
      ],
    });
    expect(body.contents[1]!.parts.map((p) => (p['functionCall'] as { id: string }).id)).toEqual(['fc_abc', 'fc_def']);
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'fc_abc', name: 'get', response: { t: 20 } } },
        { functionResponse: { id: 'fc_def', name: 'get', response: { t: 12 } } },
        // A result for no known call keeps its place after them, without an id.
        { functionResponse: { name: 'get', response: { t: 0 } } },
        { text: 'Which is warmer?' },
      ],
    });
  });

  it('maps tool_choice strings', () => {
    const base = {
      model: 'm',
      messages: [{ role: 'user' as const, content: 'x' }],
      tools: [{ type: 'function' as const, function: { name: 'f' } }],
    };
    expect(toGeminiRequest({ ...base, tool_choice: 'auto' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'AUTO' },
    });
    expect(toGeminiRequest({ ...base, tool_choice: 'none' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'NONE' },
    });
    expect(toGeminiRequest({ ...base, tool_choice: 'required' }).toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY' },
    });
  });

  it('maps JSON mode and response schema', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(
      toGeminiRequest({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_object' },
      }).generationConfig,
    ).toEqual({ responseMimeType: 'application/json' });
    expect(
      toGeminiRequest({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'n', schema } },
      }).generationConfig,
    ).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
  });
});

describe('gemini response translation', () => {
  // Shaped like the generateContent REST example.
  const response: GeminiResponse = {
    candidates: [
      {
        content: { parts: [{ text: 'AI learns patterns from data.' }], role: 'model' },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 7, totalTokenCount: 40, thoughtsTokenCount: 25 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mAitaJeXL8yx',
  };

  it('maps text, finish reason and usage (thinking counts as completion)', () => {
    const c = fromGeminiResponse(response, 'gemini-2.5-flash');
    expect(c.id).toBe('chatcmpl-mAitaJeXL8yx');
    expect(c.model).toBe('gemini-2.5-flash');
    expect(c.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'AI learns patterns from data.', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    });
    expect(c.usage).toEqual({
      prompt_tokens: 8,
      completion_tokens: 32,
      total_tokens: 40,
      completion_tokens_details: { reasoning_tokens: 25 },
    });
  });

  it('maps function calls to tool_calls with fresh ids', () => {
    const c = fromGeminiResponse(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris' } } }] },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25 },
      },
      'gemini-2.5-pro',
    );
    expect(c.model).toBe('gemini-2.5-pro');
    expect(c.choices[0]!.finish_reason).toBe('tool_calls');
    expect(c.choices[0]!.message.content).toBeNull();
    const tc = c.choices[0]!.message.tool_calls!;
    expect(tc).toHaveLength(1);
    expect(tc[0]!.id).toMatch(/^call_/);
    expect(tc[0]!.function).toEqual({ name: 'get_weather', arguments: '{"location":"Paris"}' });
  });

  it('maps a blocked prompt to content_filter', () => {
    const c = fromGeminiResponse(
      { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } },
      'm',
    );
    expect(c.choices[0]!.finish_reason).toBe('content_filter');
    expect(c.choices[0]!.message.content).toBeNull();
  });

  it('maps finish reasons', () => {
    expect(mapFinishReason('STOP')).toBe('stop');
    expect(mapFinishReason('MAX_TOKENS')).toBe('length');
    for (const r of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII'])
      expect(mapFinishReason(r)).toBe('content_filter');
  });
});

describe('gemini stream translation', () => {
  it('translates text frames with cumulative usage into chunks and a final usage chunk', () => {
    const chunks = run([
      {
        candidates: [{ content: { parts: [{ text: 'The' }], role: 'model' }, index: 0 }],
        usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'r1',
      },
      {
        candidates: [{ content: { parts: [{ text: ' answer' }], role: 'model' }, index: 0 }],
        usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 2, totalTokenCount: 11 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'r1',
      },
      {
        candidates: [{ content: { parts: [{ text: ' is 42.' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 5, totalTokenCount: 14 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'r1',
      },
    ]);
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: 'The' },
      { content: ' answer' },
      { content: ' is 42.' },
      {},
      undefined,
    ]);
    // The last frame's finish comes in a chunk of its own, as OpenAI sends it.
    expect(chunks[2]!.choices[0]!.finish_reason).toBeNull();
    expect(chunks[3]!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks[4]!.choices).toEqual([]);
    expect(chunks[4]!.usage).toEqual({ prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 });
    expect(chunks.every((c) => c.id === 'chatcmpl-r1')).toBe(true);
  });

  it('translates a function call frame into one complete tool-call delta', () => {
    const chunks = run([
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris' } } }] },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 6, totalTokenCount: 36 },
      },
    ]);
    const d = chunks[0]!.choices[0]!.delta;
    expect(d.role).toBe('assistant');
    expect(d.tool_calls).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
      },
    ]);
    expect(chunks[0]!.choices[0]!.finish_reason).toBeNull();
    expect(chunks[1]!.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
    expect(chunks[2]!.usage).toEqual({ prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 });
  });

  it('skips thought parts', () => {
    const chunks = run([
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'thinking...', thought: true }, { text: 'Hi' }] },
            finishReason: 'STOP',
          },
        ],
      },
    ]);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: 'Hi' });
  });

  it('reports a stream without finishReason as cut, and error frames as ProviderErrors', () => {
    const tr = new GeminiStreamTranslator('gemini', 'm');
    tr.push({ data: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'a' }] } }] }) });
    expect(() => tr.end()).toThrow(ProviderError);
    const tr2 = new GeminiStreamTranslator('gemini', 'm');
    try {
      tr2.push({
        data: JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }),
      });
      expect.unreachable();
    } catch (e) {
      expect((e as ProviderError).status).toBe(503);
      expect((e as ProviderError).retryable).toBe(true);
      expect((e as ProviderError).message).toContain('overloaded');
    }
  });
});
