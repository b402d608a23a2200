import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../../server/providers/anthropic/request.js';
import { toGeminiRequest } from '../../server/providers/gemini/request.js';
import { ProviderError, type ChatMessage, type ChatRequest } from '../../server/providers/types.js';

// System, developer and assistant messages reach Anthropic and Gemini as text: what else they hold
// is refused, never dropped; an assistant's `refusal` part is its text. And tool ids Anthropic must
// clean stay distinct.

const translators = {
  anthropic: (req: ChatRequest) => toAnthropicRequest(req).body,
  gemini: (req: ChatRequest) => toGeminiRequest(req),
};
const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };

function refusal(translate: (req: ChatRequest) => unknown, messages: ChatMessage[]): ProviderError {
  try {
    translate({ model: 'm', messages });
  } catch (e) {
    return e as ProviderError;
  }
  throw new Error('not refused');
}

describe.each(Object.entries(translators))('%s', (provider, translate) => {
  it('refuses an image in a system or developer message instead of dropping it', () => {
    for (const role of ['system', 'developer'] as const) {
      const err = refusal(translate, [
        { role, content: [{ type: 'text', text: 'Describe the reference image.' }, image] as never },
        { role: 'user', content: 'Go.' },
      ]);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({ kind: 'request', status: 0 });
      expect(err.message).toMatch(
        new RegExp(
          `^${role} message content: ${provider === 'anthropic' ? 'Anthropic' : 'Gemini'} takes text only in ${role} messages, not 'image_url' parts`,
        ),
      );
    }
  });

  it('sends an assistant refusal part as its text, keeping the turn', () => {
    const body = translate({
      model: 'm',
      messages: [
        { role: 'user', content: 'Help me with something bad.' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] as never },
        { role: 'user', content: 'Then something good.' },
      ],
    });
    expect(JSON.stringify(body)).toContain('I cannot help with that.');
    const turns =
      provider === 'anthropic'
        ? (body as { messages: unknown[] }).messages
        : (body as { contents: unknown[] }).contents;
    expect(turns).toHaveLength(3);
  });

  it('refuses an assistant part it cannot send', () => {
    const err = refusal(translate, [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: [image] as never },
      { role: 'user', content: 'And?' },
    ]);
    expect(err.message).toMatch(/^assistant message content: .* not 'image_url' parts/);
  });
});

describe('anthropic tool ids', () => {
  it('keeps ids that differ only in characters Anthropic refuses apart, a call and its result agreeing', () => {
    const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'f', arguments: '{}' } });
    const body = toAnthropicRequest({
      model: 'claude-sonnet-4-5',
      tools: [{ type: 'function', function: { name: 'f' } }],
      messages: [
        { role: 'user', content: 'Twice.' },
        { role: 'assistant', content: null, tool_calls: [call('call.1'), call('call:1'), call('toolu_ok-1')] },
        { role: 'tool', tool_call_id: 'call.1', content: 'a' },
        { role: 'tool', tool_call_id: 'call:1', content: 'b' },
        { role: 'tool', tool_call_id: 'toolu_ok-1', content: 'c' },
      ],
    }).body;
    const blocks = (body.messages as Array<{ content: Array<Record<string, string>> }>).flatMap((m) =>
      Array.isArray(m.content) ? m.content : [],
    );
    const uses = blocks.filter((b) => b['type'] === 'tool_use').map((b) => b['id']!);
    const results = blocks.filter((b) => b['type'] === 'tool_result').map((b) => b['tool_use_id']!);
    expect(new Set(uses).size).toBe(3);
    expect(results).toEqual(uses);
    expect(uses.every((id) => /^[a-zA-Z0-9_-]+$/.test(id))).toBe(true);
    // A valid id goes as it is.
    expect(uses[2]).toBe('toolu_ok-1');
  });
});

describe('tool_choice allowed_tools', () => {
  const fn = (name: string) => ({
    type: 'function' as const,
    function: { name, parameters: { type: 'object', properties: {} } },
  });
  const req = (mode: string, names: string[]): ChatRequest => ({
    model: 'm',
    messages: [{ role: 'user', content: 'Weather?' }],
    tools: [fn('get_weather'), fn('delete_all')],
    tool_choice: {
      type: 'allowed_tools',
      allowed_tools: { mode, tools: names.map((name) => ({ type: 'function', function: { name } })) },
    },
  });

  it('sends Anthropic only the allowed tools, with the plain choice', () => {
    const required = toAnthropicRequest(req('required', ['get_weather'])).body;
    expect((required.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['get_weather']);
    expect(required.tool_choice).toEqual({ type: 'any' });
    const auto = toAnthropicRequest(req('auto', ['get_weather'])).body;
    expect((auto.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['get_weather']);
    expect(auto.tool_choice).toEqual({ type: 'auto' });
  });

  it('sends Gemini only the allowed declarations, with the plain mode', () => {
    const required = toGeminiRequest(req('required', ['get_weather']));
    expect(required.tools![0]!.functionDeclarations.map((d) => d['name'])).toEqual(['get_weather']);
    expect(required.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(toGeminiRequest(req('auto', ['get_weather'])).toolConfig).toEqual({
      functionCallingConfig: { mode: 'AUTO' },
    });
  });

  it('refuses an unknown mode or a list naming none of the tools', () => {
    for (const translate of Object.values(translators)) {
      expect(refusalOf(() => translate(req('sometimes', ['get_weather']))).message).toMatch(
        /mode must be 'auto' or 'required'/,
      );
      expect(refusalOf(() => translate(req('auto', ['nope']))).message).toMatch(/at least one function of `tools`/);
    }
  });
});

function refusalOf(run: () => unknown): ProviderError {
  try {
    run();
  } catch (e) {
    return e as ProviderError;
  }
  throw new Error('not refused');
}

describe('fields that ask for another kind of answer, and top_k', () => {
  const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

  it('refuses audio output and web search, which would come back as plain text', () => {
    for (const [provider, translate] of Object.entries(translators)) {
      const who = provider === 'anthropic' ? 'Anthropic' : 'Gemini';
      expect(
        refusalOf(() => translate({ ...base, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }))
          .message,
      ).toBe(`modalities/audio: ${who} answers in text only through this endpoint; leave out "audio"`);
      expect(refusalOf(() => translate({ ...base, web_search_options: {} })).message).toMatch(
        new RegExp(`^web_search_options: ${who} has no web search`),
      );
      // Text only, asked explicitly, is what they give.
      expect(() => translate({ ...base, modalities: ['text'] })).not.toThrow();
    }
  });

  it('passes top_k on as each provider names it', () => {
    expect(toAnthropicRequest({ ...base, top_k: 40 }).body['top_k']).toBe(40);
    expect(toGeminiRequest({ ...base, top_k: 40 }).generationConfig).toEqual({ topK: 40 });
  });
});
