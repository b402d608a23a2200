import { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// The official OpenAI SDK against every provider family, where it relies on details of OpenAI's
// format: its stream helper (ChatCompletionStream) builds its events from OpenAI's chunk sequence
// (a finish in a chunk of its own), and its types say a choice's `logprobs` and a message's
// `refusal` are always present (null when unused).

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
});
afterAll(() => c.close());

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('the OpenAI SDK', () => {
  for (const model of ['openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest', 'gemini/gemini-2.0-flash']) {
    it(`gives every tool-call and content event for ${model}`, async () => {
      const done: Array<{ name: string; arguments: string }> = [];
      const stream = c.openai().chat.completions.stream({
        model,
        messages: [{ role: 'user', content: `Weather in Oslo? (${model})` }],
        tools: [weather],
        tool_choice: 'required',
        temperature: 0.5,
      });
      stream.on('tool_calls.function.arguments.done', (e) => done.push({ name: e.name, arguments: e.arguments }));
      const final = await stream.finalChatCompletion();
      const calls = final.choices[0]!.message.tool_calls ?? [];
      expect(final.choices[0]!.finish_reason).toBe('tool_calls');
      expect(calls.length).toBeGreaterThan(0);
      expect(done).toEqual(
        calls.map((tc) => ({
          name: (tc as { function: { name: string } }).function.name,
          arguments: (tc as { function: { arguments: string } }).function.arguments,
        })),
      );

      let contentDone: string | undefined;
      const text = c.openai().chat.completions.stream({
        model,
        messages: [{ role: 'user', content: `Say hello (${model})` }],
        temperature: 0.5,
      });
      text.on('content.done', (e) => (contentDone = e.content));
      const answer = await text.finalChatCompletion();
      expect(answer.choices[0]!.finish_reason).toBe('stop');
      expect(contentDone).toBe(answer.choices[0]!.message.content);
    });
  }

  for (const model of ['openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest', 'gemini/gemini-2.0-flash']) {
    it(`gets refusal and logprobs as null, not missing, from ${model}`, async () => {
      const answer = await c.openai().chat.completions.create({
        model,
        messages: [{ role: 'user', content: `Shape check (${model})` }],
        temperature: 0.5,
      });
      expect(answer.choices[0]!.message.refusal).toBeNull();
      expect(answer.choices[0]!.logprobs).toBeNull();
    });
  }

  it("gives the gateway request id as _request_id and as an error's requestID", async () => {
    const answer = await c
      .openai()
      .chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Request id?' }] });
    expect(answer._request_id).toBe((answer as unknown as { _gateway: { requestId: string } })._gateway.requestId);
    const streamed = await c
      .openai()
      .chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Streamed request id?' }],
        stream: true,
      })
      .withResponse();
    expect(streamed.request_id).toMatch(/^req_/);
    for await (const _ of streamed.data);
    const failed = await c
      .openai()
      .chat.completions.create({ model: 'nobody/serves-this', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(NotFoundError);
    expect((failed as NotFoundError).requestID).toMatch(/^req_/);
    expect((failed as NotFoundError).requestID).toBe((failed as NotFoundError).headers?.get('x-gateway-request-id'));
    const models = await c.openai().models.list().withResponse();
    expect(models.request_id).toBe(models.response.headers.get('x-gateway-request-id'));
  });

  for (const model of ['anthropic/claude-3-5-haiku-latest', 'gemini/gemini-2.0-flash']) {
    it(`narrows the tools to tool_choice allowed_tools for ${model}`, async () => {
      const danger = {
        type: 'function' as const,
        function: { name: 'delete_everything', parameters: { type: 'object', properties: {} } },
      };
      const answer = await c.openai().chat.completions.create({
        model,
        messages: [{ role: 'user', content: `Weather in Oslo, allowed tools only (${model})` }],
        tools: [danger, weather],
        tool_choice: {
          type: 'allowed_tools',
          allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_weather' } }] },
        },
      });
      const calls = answer.choices[0]!.message.tool_calls ?? [];
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every((tc) => (tc as { function: { name: string } }).function.name === 'get_weather')).toBe(true);
      const sent = c.sim.requests.filter((r) => r.method === 'POST').at(-1)!.body as Record<string, unknown>;
      expect(JSON.stringify(sent)).not.toContain('delete_everything');
    });
  }
});
