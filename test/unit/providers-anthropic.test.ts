import { describe, expect, it } from 'vitest';
import { toAnthropicRequest, DEFAULT_MAX_TOKENS, JSON_TOOL_NAME } from '../../server/providers/anthropic/request.js';
import {
  fromAnthropicResponse,
  mapStopReason,
  type AnthropicResponse,
} from '../../server/providers/anthropic/response.js';
import { AnthropicStreamTranslator } from '../../server/providers/anthropic/stream.js';
import { ProviderError, type ChatChunk, type ChatRequest } from '../../server/providers/types.js';
import type { SseEvent } from '../../server/providers/http.js';

function sse(lines: string): SseEvent[] {
  // Parses a fixture written the way the provider docs print a stream.
  return lines
    .trim()
    .split(/\n\s*\n/)
    .map((block) => {
      const ev: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        const l = line.trim();
        if (l.startsWith('event:')) ev.event = l.slice(6).trim();
        else if (l.startsWith('data:')) ev.data = l.slice(5).trim();
      }
      return ev;
    });
}

function run(events: SseEvent[], jsonTool = false): ChatChunk[] {
  const tr = new AnthropicStreamTranslator('anthropic', 'claude-sonnet-4-5', jsonTool);
  const out: ChatChunk[] = [];
  for (const ev of events) {
    const c = tr.push(ev);
    if (c) out.push(c);
  }
  tr.end();
  return out;
}

describe('anthropic request translation', () => {
  it('hoists system and developer messages and defaults max_tokens', () => {
    const { body, jsonTool } = toAnthropicRequest({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(jsonTool).toBe(false);
    expect(body.system).toBe('You are terse.\n\nAnswer in English.');
    expect(body.messages).toEqual([{ role: 'user', content: 'Hello' }]);
    expect(body.max_tokens).toBe(DEFAULT_MAX_TOKENS);
    expect(DEFAULT_MAX_TOKENS).toBe(4096);
  });

  it('maps sampling parameters, stop sequences and user', () => {
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      temperature: 1.6,
      top_p: 0.5,
      max_completion_tokens: 100,
      max_tokens: 50,
      stop: 'END',
      user: 'u-1',
    });
    expect(body.temperature).toBe(1);
    expect(body.top_p).toBeUndefined();
    expect(body.max_tokens).toBe(100);
    expect(body.stop_sequences).toEqual(['END']);
    expect(body.metadata).toEqual({ user_id: 'u-1' });
    expect(toAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], top_p: 0.9 }).body.top_p).toBe(
      0.9,
    );
  });

  it('translates images: data URLs to base64 sources, http URLs to url sources', () => {
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(body.messages[0]!.content).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('translates tools, tool calls and tool results, merging the result turn', () => {
    const req: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: 'Weather in SF and NYC?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"New York, NY"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '15 degrees' },
        { role: 'tool', tool_call_id: 'call_2', content: '20 degrees' },
        { role: 'user', content: 'Thanks, summarise.' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Get the weather',
            parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    };
    const { body } = toAnthropicRequest(req);
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Get the weather',
        input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(body.messages).toHaveLength(3);
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'San Francisco, CA' } },
        { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { location: 'New York, NY' } },
      ],
    });
    expect(body.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: '15 degrees' },
        { type: 'tool_result', tool_use_id: 'call_2', content: '20 degrees' },
        { type: 'text', text: 'Thanks, summarise.' },
      ],
    });
  });

  it('maps every tool_choice form', () => {
    const base: ChatRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    expect(toAnthropicRequest({ ...base, tool_choice: 'auto' }).body.tool_choice).toEqual({ type: 'auto' });
    expect(toAnthropicRequest({ ...base, tool_choice: 'none' }).body.tool_choice).toEqual({ type: 'none' });
    expect(
      toAnthropicRequest({ ...base, tool_choice: { type: 'function', function: { name: 'f' } } }).body.tool_choice,
    ).toEqual({ type: 'tool', name: 'f' });
    expect(toAnthropicRequest(base).body.tool_choice).toBeUndefined();
    expect(toAnthropicRequest(base).body.tools?.[0]).toEqual({
      name: 'f',
      input_schema: { type: 'object', properties: {} },
    });
  });

  it('implements JSON schema mode as a forced tool', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const { body, jsonTool } = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema } },
    });
    expect(jsonTool).toBe(true);
    expect(body.tools).toEqual([expect.objectContaining({ name: JSON_TOOL_NAME, input_schema: schema })]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: JSON_TOOL_NAME });
  });

  it('falls back to a system instruction for JSON mode when the caller has tools', () => {
    const { body, jsonTool } = toAnthropicRequest({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be nice.' },
        { role: 'user', content: 'x' },
      ],
      tools: [{ type: 'function', function: { name: 'f' } }],
      response_format: { type: 'json_object' },
    });
    expect(jsonTool).toBe(false);
    expect(body.tools).toHaveLength(1);
    expect(body.system).toMatch(/^Be nice\.\n\n.*valid JSON object/s);
  });
});

describe('anthropic response translation', () => {
  // Shaped like the Messages API reference example.
  const textResponse: AnthropicResponse = {
    id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 2095, output_tokens: 503, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };

  it('maps text, stop reason and usage', () => {
    const c = fromAnthropicResponse(textResponse, false);
    expect(c.id).toBe('msg_013Zva2CMHLNnXjNJJKqJ2EF');
    expect(c.object).toBe('chat.completion');
    expect(c.model).toBe('claude-sonnet-4-5-20250929');
    expect(c.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Hi! My name is Claude.', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    });
    expect(c.usage).toEqual({ prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 });
  });

  it('counts cache reads and writes as prompt tokens', () => {
    const c = fromAnthropicResponse(
      {
        ...textResponse,
        usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 },
      },
      false,
    );
    expect(c.usage).toEqual({
      prompt_tokens: 1110,
      completion_tokens: 5,
      total_tokens: 1115,
      // The cache writes too, under OpenRouter's name for them.
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100 },
    });
  });

  it('maps tool_use blocks to tool_calls', () => {
    const c = fromAnthropicResponse(
      {
        ...textResponse,
        content: [
          { type: 'text', text: "I'll check the weather." },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            input: { location: 'San Francisco, CA', unit: 'celsius' },
          },
        ],
        stop_reason: 'tool_use',
      },
      false,
    );
    expect(c.choices[0]!.finish_reason).toBe('tool_calls');
    expect(c.choices[0]!.message.content).toBe("I'll check the weather.");
    expect(c.choices[0]!.message.tool_calls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
      },
    ]);
  });

  it('turns the forced JSON tool back into content', () => {
    const c = fromAnthropicResponse(
      {
        ...textResponse,
        content: [{ type: 'tool_use', id: 'toolu_1', name: JSON_TOOL_NAME, input: { city: 'Paris' } }],
        stop_reason: 'tool_use',
      },
      true,
    );
    expect(c.choices[0]!.message).toEqual({ role: 'assistant', content: '{"city":"Paris"}', refusal: null });
    expect(c.choices[0]!.finish_reason).toBe('stop');
  });

  it('maps stop reasons', () => {
    expect(mapStopReason('end_turn')).toBe('stop');
    expect(mapStopReason('stop_sequence')).toBe('stop');
    expect(mapStopReason('max_tokens')).toBe('length');
    expect(mapStopReason('tool_use')).toBe('tool_calls');
    expect(mapStopReason('refusal')).toBe('content_filter');
  });
});

describe('anthropic stream translation', () => {
  // The basic streaming example from the Anthropic docs.
  const textStream = sse(`
event: message_start
data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-opus-4-1-20250805", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"output_tokens": 15}}

event: message_stop
data: {"type": "message_stop"}
`);

  it('translates a text stream', () => {
    const chunks = run(textStream);
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: 'Hello' },
      { content: '!' },
      {},
      undefined,
    ]);
    expect(chunks[2]!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks[3]!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 });
    for (const c of chunks) {
      expect(c.id).toBe('msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY');
      expect(c.model).toBe('claude-opus-4-1-20250805');
      expect(c.object).toBe('chat.completion.chunk');
    }
  });

  // The tool-use streaming example from the Anthropic docs.
  const toolStream = sse(`
event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", let's check the weather:"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \\"San Francisco, CA\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}
`);

  it('translates tool_use blocks into indexed tool-call deltas', () => {
    const chunks = run(toolStream);
    const deltas = chunks.map((c) => c.choices[0]?.delta);
    expect(deltas[0]).toEqual({ role: 'assistant', content: 'Okay' });
    expect(deltas[2]).toEqual({
      content: null,
      tool_calls: [
        {
          index: 0,
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    });
    expect(deltas[3]).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] });
    expect(deltas[4]).toEqual({ tool_calls: [{ index: 0, function: { arguments: ' "San Francisco, CA"}' } }] });
    expect(chunks[5]!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks[6]!.usage).toEqual({ prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 });
  });

  it('streams the forced JSON tool as content', () => {
    const events = sse(`
event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"${JSON_TOOL_NAME}","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\"Paris\\"}"}}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}

event: message_stop
data: {"type":"message_stop"}
`);
    const chunks = run(events, true);
    expect(chunks.map((c) => c.choices[0]?.delta.content).join('')).toBe('{"city":"Paris"}');
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks[2]!.choices[0]!.finish_reason).toBe('stop');
  });

  it('throws a ProviderError for an error event, with the status of its type', () => {
    const tr = new AnthropicStreamTranslator('anthropic', 'm', false);
    try {
      tr.push({
        event: 'error',
        data: '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).status).toBe(529);
      expect((e as ProviderError).retryable).toBe(true);
      expect((e as ProviderError).message).toContain('Overloaded');
    }
  });

  it('reports a stream that ends before message_stop as cut', () => {
    const tr = new AnthropicStreamTranslator('anthropic', 'm', false);
    for (const ev of textStream.slice(0, 4)) tr.push(ev);
    expect(() => tr.end()).toThrow(ProviderError);
    try {
      tr.end();
    } catch (e) {
      expect((e as ProviderError).kind).toBe('stream');
    }
  });
});
