// Mistral refuses (422) any field it does not define, Groq (400) a few OpenAI fields. The adapter
// sends each only the fields it takes (accepted-fields.ts): OpenAI names it knows by another name
// are renamed, hints it lacks are left out, and what would change the answer (logprobs it cannot
// return, more choices than it gives) is refused.
import { describe, expect, it } from 'vitest';
import { withAcceptedFields } from '../../server/providers/openai-compatible/accepted-fields.js';
import { GROQ_FIELDS } from '../../server/providers/openai-compatible/vendors/groq.js';
import { MISTRAL_FIELDS } from '../../server/providers/openai-compatible/vendors/mistral.js';
import { ProviderError, type ChatRequest } from '../../server/providers/types.js';

describe('Mistral accepted fields', () => {
  it('keeps its own fields, renames max_completion_tokens and seed, and leaves out the rest, in a copy', () => {
    const req: ChatRequest = {
      model: 'mistral-small-latest',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.3,
      top_p: 0.9,
      max_completion_tokens: 200,
      seed: 7,
      stop: ['END'],
      n: 1,
      presence_penalty: 0.1,
      response_format: { type: 'json_object' },
      parallel_tool_calls: false,
      user: 'u-1',
      store: false,
      metadata: { a: '1' },
      logit_bias: { '1': 2 },
      service_tier: 'auto',
      logprobs: false,
      top_logprobs: 0,
      reasoning_effort: 'low',
    };
    const copy = structuredClone(req);
    expect(withAcceptedFields(req, MISTRAL_FIELDS, 'mistral')).toEqual({
      model: 'mistral-small-latest',
      messages: req.messages,
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 200,
      random_seed: 7,
      stop: ['END'],
      n: 1,
      presence_penalty: 0.1,
      response_format: { type: 'json_object' },
      parallel_tool_calls: false,
      // Kept here; mistralReasoningEffort (vendors/mistral.ts) sends or drops it per model.
      reasoning_effort: 'low',
    });
    expect(req).toEqual(copy);
  });

  it('keeps the caller own name when both are set', () => {
    const out = withAcceptedFields(
      { model: 'm', messages: [], max_tokens: 50, max_completion_tokens: 200, random_seed: 1, seed: 2 },
      MISTRAL_FIELDS,
      'mistral',
    );
    expect(out).toEqual({ model: 'm', messages: [], max_tokens: 50, random_seed: 1 });
  });

  it('leaves out message fields it does not define', () => {
    const out = withAcceptedFields(
      {
        model: 'm',
        messages: [
          { role: 'system', content: 'be brief', name: 'ops' },
          { role: 'user', content: 'hi', name: 'ana' },
          {
            role: 'assistant',
            content: null,
            refusal: null,
            annotations: [],
            tool_calls: [{ id: 'D681PevKs', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', content: '42', tool_call_id: 'D681PevKs', name: 'f' },
        ],
      },
      MISTRAL_FIELDS,
      'mistral',
    );
    expect(out.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'D681PevKs', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', content: '42', tool_call_id: 'D681PevKs', name: 'f' },
    ]);
  });

  it('sends tool-call ids minted elsewhere as the 9 letters or digits Mistral takes, a call and its result alike', () => {
    const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'f', arguments: '{}' } });
    const out = withAcceptedFields(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'twice' },
          { role: 'assistant', content: null, tool_calls: [call('call_PTLP8xhu3uwZk4l3nlnrrJha'), call('toolu_01A')] },
          { role: 'tool', content: 'a', tool_call_id: 'call_PTLP8xhu3uwZk4l3nlnrrJha' },
          { role: 'tool', content: 'b', tool_call_id: 'toolu_01A' },
        ],
      },
      MISTRAL_FIELDS,
      'mistral',
    );
    const ids = out.messages[1]!.tool_calls!.map((c) => c.id);
    expect(ids.every((id) => /^[a-zA-Z0-9]{9}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(out.messages.slice(2).map((m) => m.tool_call_id)).toEqual(ids);
  });

  it('refuses logprobs, which it cannot return', () => {
    let err: unknown;
    try {
      withAcceptedFields({ model: 'm', messages: [], logprobs: true }, MISTRAL_FIELDS, 'mistral');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'request', message: 'logprobs: mistral does not return log probabilities' });
  });
});

describe('Groq accepted fields', () => {
  it('leaves out logit_bias, top_logprobs, logprobs: false and message names, and keeps everything else', () => {
    const req: ChatRequest = {
      model: 'llama-3.3-70b-versatile',
      messages: [
        { role: 'system', content: 'be brief', name: 'ops' },
        { role: 'user', content: 'hi', name: 'ana' },
      ],
      logit_bias: { '1': 2 },
      logprobs: false,
      top_logprobs: 0,
      n: 1,
      max_completion_tokens: 100,
      seed: 3,
      user: 'u',
      reasoning_format: 'hidden',
      temperature: 0.4,
    };
    expect(withAcceptedFields(req, GROQ_FIELDS, 'groq')).toEqual({
      model: 'llama-3.3-70b-versatile',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      n: 1,
      max_completion_tokens: 100,
      seed: 3,
      user: 'u',
      reasoning_format: 'hidden',
      temperature: 0.4,
    });
  });

  it('leaves out the reasoning_content an assistant turn from DeepSeek carries back, which Groq refuses', () => {
    const out = withAcceptedFields(
      {
        model: 'llama-3.3-70b-versatile',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'Hello', reasoning_content: 'The user greets me.' } as never,
          { role: 'user', content: 'and?' },
        ],
      },
      GROQ_FIELDS,
      'groq',
    );
    expect(out.messages[1]).toEqual({ role: 'assistant', content: 'Hello' });
  });

  it('refuses logprobs and n > 1', () => {
    for (const [extra, message] of [
      [{ logprobs: true }, 'logprobs: groq does not return log probabilities'],
      [{ n: 2 }, 'n: groq returns at most 1 choice per request'],
    ] as const) {
      let err: unknown;
      try {
        withAcceptedFields({ model: 'm', messages: [], ...extra }, GROQ_FIELDS, 'groq');
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ kind: 'request', message });
    }
  });
});
