// Anthropic refuses tool_use/tool_result blocks in a request that defines no tools, and a tool
// schema without a top-level `type`; OpenAI takes both. The translation defines the functions the
// history called (callable by no one: tool_choice 'none') and gives a typeless schema type 'object'.
import { describe, expect, it } from 'vitest';
import {
  HISTORY_TOOL_DESCRIPTION,
  JSON_TOOL_NAME,
  toAnthropicRequest,
} from '../../server/providers/anthropic/request.js';
import type { ChatRequest } from '../../server/providers/types.js';

const history: ChatRequest['messages'] = [
  { role: 'user', content: 'Weather in Paris and Oslo, and the time in Oslo?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      { id: 'call_3', type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '18C' },
  { role: 'tool', tool_call_id: 'call_2', content: '9C' },
  { role: 'tool', tool_call_id: 'call_3', content: '14:05' },
  { role: 'user', content: 'Summarise in one line.' },
];

const historyTool = (name: string) => ({
  name,
  description: HISTORY_TOOL_DESCRIPTION,
  input_schema: { type: 'object' },
});

describe('anthropic: a tool history sent without tools', () => {
  it('defines the distinct functions the history called, and lets the model call none of them', () => {
    const { body, jsonTool } = toAnthropicRequest({ model: 'claude-sonnet-4-5', messages: history });
    expect(jsonTool).toBe(false);
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      messages: [
        { role: 'user', content: 'Weather in Paris and Oslo, and the time in Oslo?' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'call_3', name: 'get_time', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
            { type: 'tool_result', tool_use_id: 'call_2', content: '9C' },
            { type: 'tool_result', tool_use_id: 'call_3', content: '14:05' },
            { type: 'text', text: 'Summarise in one line.' },
          ],
        },
      ],
      tools: [historyTool('get_weather'), historyTool('get_time')],
      tool_choice: { type: 'none' },
    });
  });

  it('does the same for an empty tools list, whatever tool_choice or parallel_tool_calls say', () => {
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: history,
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(body.tools).toEqual([historyTool('get_weather'), historyTool('get_time')]);
    expect(body.tool_choice).toEqual({ type: 'none' });
  });

  it("keeps the caller's tools and tool_choice when there are any", () => {
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: history,
      tool_choice: 'auto',
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
    });
    expect(body.tools).toEqual([
      { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
  });

  it('defines no tools for a conversation without tool calls', () => {
    const { body } = toAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  it("in JSON mode, defines the history's functions next to the forced answer tool", () => {
    const schema = { type: 'object', properties: { line: { type: 'string' } } };
    const { body, jsonTool } = toAnthropicRequest({
      model: 'm',
      messages: history,
      response_format: { type: 'json_schema', json_schema: { name: 'summary', schema } },
    });
    expect(jsonTool).toBe(true);
    expect(body.tools).toEqual([
      historyTool('get_weather'),
      historyTool('get_time'),
      {
        name: JSON_TOOL_NAME,
        description: 'Return the final answer as JSON matching this schema.',
        input_schema: schema,
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: JSON_TOOL_NAME });
  });
});

describe('anthropic: tool schemas without a top-level type', () => {
  it('sends `parameters: {}` as an object schema', () => {
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'ping', description: 'Ping', parameters: {} } }],
    });
    expect(body.tools).toEqual([{ name: 'ping', description: 'Ping', input_schema: { type: 'object' } }]);
  });

  it("adds type object to a schema that lacks it, without changing the caller's object", () => {
    const parameters = { properties: { city: { type: 'string' } }, required: ['city'] };
    const schema = { properties: { line: { type: 'string' } } };
    const req: ChatRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters } }],
    };
    expect(toAnthropicRequest(req).body.tools).toEqual([
      {
        name: 'weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
    const json = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
    });
    expect(json.body.tools?.[0]?.['input_schema']).toEqual({
      type: 'object',
      properties: { line: { type: 'string' } },
    });
    expect(parameters).toEqual({ properties: { city: { type: 'string' } }, required: ['city'] });
    expect(schema).toEqual({ properties: { line: { type: 'string' } } });
  });

  it('sends a schema with a type as it is', () => {
    const parameters = { type: 'object', properties: {} };
    const { body } = toAnthropicRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'f', parameters } }],
    });
    expect(body.tools?.[0]?.['input_schema']).toBe(parameters);
  });
});
