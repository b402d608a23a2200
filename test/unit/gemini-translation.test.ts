import { describe, expect, it } from 'vitest';
import {
  requiresThoughtSignatures,
  SKIP_THOUGHT_SIGNATURE,
  toGeminiRequest,
} from '../../server/providers/gemini/request.js';
import {
  fromGeminiResponse,
  mapFinishReason,
  type GeminiPart,
  type GeminiResponse,
} from '../../server/providers/gemini/response.js';
import { GeminiStreamTranslator } from '../../server/providers/gemini/stream.js';
import { ProviderError, type ChatChunk, type ChatMessage } from '../../server/providers/types.js';
import { translateGeminiStream } from '../support/gemini-stream.js';

// Thought signatures carried through OpenAI tool calls, and finish reasons, in both directions and
// in both answer shapes (whole and streamed).

const stream = (frames: unknown[], model = 'gemini-3-pro-preview'): ChatChunk[] => translateGeminiStream(frames, model);

const SIG_A = 'CiQBjz1rX0signatureA==';
const SIG_B = 'CiQBjz1rX0signatureB==';

/** Two sequential steps of one turn, each with parallel calls: as Gemini 3 answers, only each step's first call is signed. */
const signedAnswer: GeminiResponse = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { functionCall: { name: 'check_flight', args: { flight: 'AA100' } }, thoughtSignature: SIG_A },
          { functionCall: { name: 'check_hotel', args: { city: 'Paris' } } },
        ],
      },
      finishReason: 'STOP',
    },
  ],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 30, totalTokenCount: 44 },
  modelVersion: 'gemini-3-pro-preview',
};

describe('gemini thought signatures: answers', () => {
  it('puts each functionCall part signature on its tool call as extra_content.google.thought_signature', () => {
    const c = fromGeminiResponse(signedAnswer, 'gemini-3-pro-preview');
    const calls = c.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      type: 'function',
      function: { name: 'check_flight' },
      extra_content: { google: { thought_signature: SIG_A } },
    });
    expect(calls[1]).not.toHaveProperty('extra_content');
    expect(c.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('streams the signature on the tool-call delta', () => {
    const chunks = stream([signedAnswer]);
    const calls = chunks[0]!.choices[0]!.delta.tool_calls!;
    expect(calls[0]).toMatchObject({
      index: 0,
      function: { name: 'check_flight' },
      extra_content: { google: { thought_signature: SIG_A } },
    });
    expect(calls[1]).toMatchObject({ index: 1, function: { name: 'check_hotel' } });
    expect(calls[1]).not.toHaveProperty('extra_content');
  });

  it('still leaves thought text out of the content', () => {
    const c = fromGeminiResponse(
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { text: 'planning...', thought: true },
                { text: 'Done.', thoughtSignature: SIG_B },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      },
      'gemini-3-pro-preview',
    );
    expect(c.choices[0]!.message).toEqual({ role: 'assistant', content: 'Done.', refusal: null });
  });
});

describe('gemini thought signatures: requests', () => {
  const history = (calls: NonNullable<ChatMessage['tool_calls']>): ChatMessage[] => [
    { role: 'user', content: 'Book my trip' },
    { role: 'assistant', content: null, tool_calls: calls },
    ...calls.map((tc) => ({ role: 'tool' as const, tool_call_id: tc.id, content: '{"ok":true}' })),
  ];
  const call = (id: string, name: string, signature?: string) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: '{}' },
    ...(signature ? { extra_content: { google: { thought_signature: signature } } } : {}),
  });

  it('puts a tool call signature back on its functionCall part, as received', () => {
    const body = toGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: history([call('c1', 'check_flight', SIG_A), call('c2', 'check_hotel')]),
    });
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { id: 'c1', name: 'check_flight', args: {} }, thoughtSignature: SIG_A },
        { functionCall: { id: 'c2', name: 'check_hotel', args: {} } },
      ],
    });
  });

  it('round-trips what the answer translation produced', () => {
    const answer = fromGeminiResponse(signedAnswer, 'gemini-3-pro-preview');
    const body = toGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: history(answer.choices[0]!.message.tool_calls!),
    });
    expect(body.contents[1]!.parts[0]).toMatchObject({ thoughtSignature: SIG_A });
    expect(body.contents[1]!.parts[1]).not.toHaveProperty('thoughtSignature');
  });

  it('signs the first call of an unsigned step with the documented placeholder for Gemini 3', () => {
    const body = toGeminiRequest({
      model: 'models/gemini-3-flash-preview',
      messages: history([call('toolu_1', 'check_flight'), call('toolu_2', 'check_hotel')]),
    });
    expect(SKIP_THOUGHT_SIGNATURE).toBe('skip_thought_signature_validator');
    expect(body.contents[1]!.parts[0]).toEqual({
      functionCall: { id: 'toolu_1', name: 'check_flight', args: {} },
      thoughtSignature: SKIP_THOUGHT_SIGNATURE,
    });
    expect(body.contents[1]!.parts[1]).toEqual({ functionCall: { id: 'toolu_2', name: 'check_hotel', args: {} } });
  });

  it('sends no placeholder to models that do not validate signatures', () => {
    const body = toGeminiRequest({ model: 'gemini-2.5-flash', messages: history([call('c1', 'check_flight')]) });
    expect(body.contents[1]!.parts[0]).toEqual({ functionCall: { id: 'c1', name: 'check_flight', args: {} } });
    // A known signature is still passed back: 2.5 thinking models use it too.
    const signed = toGeminiRequest({
      model: 'gemini-2.5-flash',
      messages: history([call('c1', 'check_flight', SIG_B)]),
    });
    expect(signed.contents[1]!.parts[0]).toMatchObject({ thoughtSignature: SIG_B });
  });

  it('ignores malformed extra_content', () => {
    const odd = { ...call('c1', 'f'), extra_content: { google: { thought_signature: 42 } } };
    const body = toGeminiRequest({ model: 'gemini-2.5-pro', messages: history([odd as never]) });
    expect(body.contents[1]!.parts[0]).toEqual({ functionCall: { id: 'c1', name: 'f', args: {} } });
  });

  it('knows which models validate signatures', () => {
    for (const m of ['gemini-3-pro-preview', 'gemini-3-flash-preview', 'models/gemini-3.1-pro-preview', 'gemini-4-pro'])
      expect(requiresThoughtSignatures(m)).toBe(true);
    for (const m of ['gemini-2.5-pro', 'gemini-2.0-flash', 'models/gemini-1.5-flash', 'gemma-3-27b-it', 'learnlm-2.0'])
      expect(requiresThoughtSignatures(m)).toBe(false);
  });
});

describe('gemini finish reasons', () => {
  const answer = (finishReason: string, parts: GeminiPart[]): GeminiResponse => ({
    candidates: [{ content: { role: 'model', parts }, finishReason }],
  });

  it('maps every documented value', () => {
    expect(mapFinishReason(undefined)).toBeNull();
    expect(mapFinishReason('')).toBeNull();
    expect(mapFinishReason('STOP')).toBe('stop');
    expect(mapFinishReason('MAX_TOKENS')).toBe('length');
    for (const r of [
      'SAFETY',
      'RECITATION',
      'LANGUAGE',
      'BLOCKLIST',
      'PROHIBITED_CONTENT',
      'SPII',
      'IMAGE_SAFETY',
      'IMAGE_PROHIBITED_CONTENT',
      'IMAGE_RECITATION',
    ]) {
      expect(mapFinishReason(r), r).toBe('content_filter');
    }
    for (const r of [
      'FINISH_REASON_UNSPECIFIED',
      'OTHER',
      'IMAGE_OTHER',
      'NO_IMAGE',
      'MALFORMED_FUNCTION_CALL',
      'UNEXPECTED_TOOL_CALL',
      'TOO_MANY_TOOL_CALLS',
      'MISSING_THOUGHT_SIGNATURE',
      'SOMETHING_NEW',
    ]) {
      expect(mapFinishReason(r), r).toBe('stop');
    }
  });

  it('gives tool_calls for a failed tool turn only when calls are present (whole answers)', () => {
    for (const reason of ['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']) {
      const empty = fromGeminiResponse(answer(reason, []), 'gemini-2.5-flash');
      expect(empty.choices[0]!.finish_reason, reason).toBe('stop');
      expect(empty.choices[0]!.message.tool_calls).toBeUndefined();
    }
    const withCall = fromGeminiResponse(
      answer('UNEXPECTED_TOOL_CALL', [{ functionCall: { name: 'f', args: {} } }]),
      'gemini-2.5-flash',
    );
    expect(withCall.choices[0]!.finish_reason).toBe('tool_calls');
    expect(withCall.choices[0]!.message.tool_calls).toHaveLength(1);
    // A cut or filtered answer keeps its reason even with a call in it.
    expect(
      fromGeminiResponse(answer('MAX_TOKENS', [{ functionCall: { name: 'f', args: {} } }]), 'm').choices[0]!
        .finish_reason,
    ).toBe('length');
    expect(fromGeminiResponse(answer('SAFETY', []), 'm').choices[0]!.finish_reason).toBe('content_filter');
  });

  it('gives tool_calls for a failed tool turn only when calls are present (streams)', () => {
    const empty = stream(
      [
        { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me check' }] } }] },
        { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] },
      ],
      'gemini-2.5-flash',
    );
    expect(empty.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    expect(empty.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false);

    const withCall = stream(
      [
        { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] } }] },
        { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'UNEXPECTED_TOOL_CALL' }] },
      ],
      'gemini-2.5-flash',
    );
    expect(withCall.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
  });
});

describe('gemini stream error frames', () => {
  function errorOf(frame: unknown, secrets: string[] = []): ProviderError {
    const tr = new GeminiStreamTranslator('gemini', 'gemini-2.5-flash', secrets);
    try {
      tr.push({ data: JSON.stringify(frame) });
    } catch (e) {
      expect(e).toBeInstanceOf(ProviderError);
      return e as ProviderError;
    }
    throw new Error('expected a ProviderError');
  }

  it('reports a refused key as an authentication failure', () => {
    const e = errorOf({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
        ],
      },
    });
    expect(e).toMatchObject({ status: 401, retryable: false, kind: 'http' });
    expect(e.message).toContain('API key not valid');
    expect(
      errorOf({ error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } }).status,
    ).toBe(400);
  });

  it('keeps the provider message but never the key', () => {
    const key = 'AIzaSyD-secret-key-0123456789';
    const e = errorOf({ error: { code: 403, message: `Key ${key} lacks permission`, status: 'PERMISSION_DENIED' } }, [
      key,
    ]);
    expect(e.message).toContain('lacks permission');
    expect(e.message).not.toContain(key);
  });
});
