// Wire-format details of the upstream simulator that clients (and the gateway's translations)
// depend on: token log probabilities, usage of several Gemini candidates, where a stream cut
// falls for tool calls, and JSON asked for in a system instruction alongside tools.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../server/simulator/index.js';
import { toAnthropicRequest } from '../../../server/providers/anthropic/request.js';
import { toGeminiRequest } from '../../../server/providers/gemini/request.js';
import type { ChatRequest } from '../../../server/providers/types.js';
import { readAll } from '../../support/read-body.js';

/** Data of each SSE frame (event names are not needed here). */
function sseData(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((b) => b.trim())
    .map((b) =>
      b
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    );
}

// Response bodies are inspected loosely; the assertions are the type checks.
const j = (res: Response): Promise<any> => res.json();
const OA = { authorization: 'Bearer sk-test', 'content-type': 'application/json' };
const AN = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
const GE = { 'x-goog-api-key': 'g-test', 'content-type': 'application/json' };

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 3 });
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => {
  sim.clearFaults();
});

const post = (url: string, headers: Record<string, string>, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
const openai = (body: unknown): Promise<Response> => post(sim.baseUrls.openai + '/chat/completions', OA, body);
const anthropic = (body: unknown): Promise<Response> => post(sim.baseUrls.anthropic + '/v1/messages', AN, body);
const gemini = (model: string, action: string, body: unknown): Promise<Response> =>
  post(`${sim.baseUrls.gemini}/models/${model}:${action}`, GE, body);

const hello = [{ role: 'user', content: 'Hello there, how are you today?' }];
const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const bytes = (s: string): number[] => [...Buffer.from(s, 'utf8')];

describe('openai logprobs', () => {
  it('answers logprobs: true with one entry per token, top_logprobs alternatives each, ranked', async () => {
    const body = await j(await openai({ model: 'gpt-4o', messages: hello, logprobs: true, top_logprobs: 3 }));
    const choice = body.choices[0];
    expect(choice.logprobs.refusal).toBeNull();
    const content = choice.logprobs.content as Array<{
      token: string;
      logprob: number;
      bytes: number[];
      top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
    }>;
    expect(content).toHaveLength(body.usage.completion_tokens);
    expect(content.map((t) => t.token).join('')).toBe(choice.message.content);
    for (const t of content) {
      expect(t.logprob).toBeLessThan(0);
      expect(t.bytes).toEqual(bytes(t.token));
      expect(t.top_logprobs).toHaveLength(3);
      expect(t.top_logprobs[0]).toEqual({ token: t.token, logprob: t.logprob, bytes: t.bytes });
      for (const alt of t.top_logprobs) expect(alt.bytes).toEqual(bytes(alt.token));
      const lps = t.top_logprobs.map((a) => a.logprob);
      expect([...lps].sort((a, b) => b - a)).toEqual(lps);
      expect(new Set(t.top_logprobs.map((a) => a.token)).size).toBe(3);
    }
    // Deterministic: the same request gets the same numbers.
    const again = await j(await openai({ model: 'gpt-4o', messages: hello, logprobs: true, top_logprobs: 3 }));
    expect(again.choices[0].logprobs).toEqual(choice.logprobs);
  });

  it('gives empty top_logprobs without top_logprobs, and logprobs: null unless asked', async () => {
    const plain = await j(await openai({ model: 'gpt-4o', messages: hello, logprobs: true }));
    expect(
      plain.choices[0].logprobs.content.every((t: { top_logprobs: unknown[] }) => t.top_logprobs.length === 0),
    ).toBe(true);
    expect((await j(await openai({ model: 'gpt-4o', messages: hello }))).choices[0].logprobs).toBeNull();
    const n2 = await j(await openai({ model: 'gpt-4o', messages: hello, logprobs: true, n: 2 }));
    expect(n2.choices[1].logprobs).toEqual(n2.choices[0].logprobs);
  });

  it('streams each token entry in the chunk that carries the token, null elsewhere', async () => {
    const req = { model: 'gpt-4o-mini', messages: hello, logprobs: true, top_logprobs: 2 };
    const full = await j(await openai(req));
    const chunks = sseData(await (await openai({ ...req, stream: true })).text())
      .slice(0, -1)
      .map((d) => JSON.parse(d));
    const entries: unknown[] = [];
    for (const c of chunks) {
      const ch = c.choices[0];
      expect(ch).toHaveProperty('logprobs');
      if (ch.delta.content) {
        expect(ch.logprobs.content).toHaveLength(1);
        expect(ch.logprobs.content[0].token).toBe(ch.delta.content);
        entries.push(...ch.logprobs.content);
      } else {
        expect(ch.logprobs).toBeNull();
      }
    }
    expect(entries).toEqual(full.choices[0].logprobs.content);
  });

  it('reports no content tokens for a tool call', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: weather } }];
    const body = await j(
      await openai({ model: 'gpt-4o', messages: hello, tools, tool_choice: 'required', logprobs: true }),
    );
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].logprobs).toEqual({ content: null, refusal: null });
  });
});

describe('gemini logprobs and candidates', () => {
  const base = { contents: [{ role: 'user', parts: [{ text: 'Explain tides' }] }] };

  it('gives one chosen candidate per token, and top candidates per step when logprobs is set', async () => {
    const body = await j(
      await gemini('gemini-2.5-flash', 'generateContent', {
        ...base,
        generationConfig: { responseLogprobs: true, logprobs: 2 },
      }),
    );
    const cand = body.candidates[0];
    const r = cand.logprobsResult;
    expect(r.chosenCandidates).toHaveLength(body.usageMetadata.candidatesTokenCount);
    expect(r.chosenCandidates.map((c: { token: string }) => c.token).join('')).toBe(cand.content.parts[0].text);
    expect(r.topCandidates).toHaveLength(r.chosenCandidates.length);
    r.topCandidates.forEach((step: { candidates: Array<{ token: string; logProbability: number }> }, i: number) => {
      expect(step.candidates).toHaveLength(2);
      expect(step.candidates[0]).toEqual(r.chosenCandidates[i]);
      expect(step.candidates[1]!.logProbability).toBeLessThan(step.candidates[0]!.logProbability);
    });
    const sum = r.chosenCandidates.reduce((s: number, c: { logProbability: number }) => s + c.logProbability, 0);
    expect(r.logProbabilitySum).toBeCloseTo(sum, 3);
  });

  it('leaves out topCandidates without logprobs, and the whole result without responseLogprobs', async () => {
    const chosenOnly = await j(
      await gemini('gemini-2.5-flash', 'generateContent', { ...base, generationConfig: { responseLogprobs: true } }),
    );
    expect(chosenOnly.candidates[0].logprobsResult.chosenCandidates.length).toBeGreaterThan(1);
    expect(chosenOnly.candidates[0].logprobsResult.topCandidates).toBeUndefined();
    const none = await j(await gemini('gemini-2.5-flash', 'generateContent', base));
    expect(none.candidates[0].logprobsResult).toBeUndefined();
  });

  it('streams each frame with the logprobs of its own token, matching the whole answer', async () => {
    const req = { ...base, generationConfig: { responseLogprobs: true, logprobs: 1 } };
    const full = await j(await gemini('gemini-2.5-pro', 'generateContent', req));
    const frames = sseData(
      await (
        await fetch(`${sim.baseUrls.gemini}/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, {
          method: 'POST',
          headers: GE,
          body: JSON.stringify(req),
        })
      ).text(),
    ).map((d) => JSON.parse(d));
    const chosen = frames.flatMap((f) => f.candidates[0].logprobsResult.chosenCandidates);
    expect(chosen).toEqual(full.candidates[0].logprobsResult.chosenCandidates);
  });

  it('counts the tokens of every candidate in candidatesTokenCount, whole and streamed', async () => {
    const one = await j(await gemini('gemini-2.5-flash', 'generateContent', base));
    const perCandidate = one.usageMetadata.candidatesTokenCount;
    const two = await j(
      await gemini('gemini-2.5-flash', 'generateContent', { ...base, generationConfig: { candidateCount: 2 } }),
    );
    expect(two.candidates).toHaveLength(2);
    expect(two.usageMetadata.candidatesTokenCount).toBe(2 * perCandidate);
    expect(two.usageMetadata.totalTokenCount).toBe(two.usageMetadata.promptTokenCount + 2 * perCandidate);
    const frames = sseData(
      await (
        await fetch(`${sim.baseUrls.gemini}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
          method: 'POST',
          headers: GE,
          body: JSON.stringify({ ...base, generationConfig: { candidateCount: 2 } }),
        })
      ).text(),
    ).map((d) => JSON.parse(d));
    expect(frames.at(-1).usageMetadata).toEqual(two.usageMetadata);
  });
});

describe('stream cuts with tool calls', () => {
  const oaTools = {
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }],
    tool_choice: 'required',
  };
  const anTools = { tools: [{ name: 'get_weather', input_schema: weather }], tool_choice: { type: 'any' } };

  it('cutStreamAfterChunks: 0 sends no part of the call in any format', async () => {
    sim.setFaults([{ cutStreamAfterChunks: 0 }]);
    const o = await readAll(await openai({ model: 'gpt-4o', messages: hello, stream: true, ...oaTools }));
    expect(o.broke).toBe(true);
    expect(o.text).not.toContain('get_weather');

    const a = await readAll(
      await anthropic({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: hello, stream: true, ...anTools }),
    );
    expect(a.broke).toBe(true);
    expect(a.text).toContain('message_start');
    expect(a.text).not.toContain('get_weather');

    const g = await readAll(
      await fetch(`${sim.baseUrls.gemini}/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers: GE,
        body: JSON.stringify({
          contents: [{ parts: [{ text: 'x' }] }],
          tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: weather }] }],
          toolConfig: { functionCallingConfig: { mode: 'ANY' } },
        }),
      }),
    );
    expect(g.broke).toBe(true);
    expect(g.text).not.toContain('get_weather');
  });

  it('cutStreamAfterChunks: N counts the opening of a call as one of the N', async () => {
    sim.setFaults([{ cutStreamAfterChunks: 2 }]);
    const o = await readAll(await openai({ model: 'gpt-4o', messages: hello, stream: true, ...oaTools }));
    expect(o.broke).toBe(true);
    const deltas = sseData(o.text)
      .map((d) => JSON.parse(d))
      .filter((c) => c.choices[0]?.delta?.tool_calls);
    expect(deltas).toHaveLength(2);
    expect(deltas[0].choices[0].delta.tool_calls[0].function.name).toBe('get_weather');

    const a = await readAll(
      await anthropic({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: hello, stream: true, ...anTools }),
    );
    expect(a.broke).toBe(true);
    const events = sseData(a.text).map((d) => JSON.parse(d).type as string);
    expect(events.filter((e) => e === 'content_block_start' || e === 'content_block_delta')).toEqual([
      'content_block_start',
      'content_block_delta',
    ]);
  });
});

describe('JSON asked for in the system instruction next to tools', () => {
  const schema = {
    type: 'object',
    properties: {
      answer: { type: 'string' },
      confidence: { type: 'number', minimum: 0 },
      note: { type: 'string', description: 'may hold "}, and" text' },
    },
    required: ['answer', 'confidence'],
  };
  // The final turn of a tool loop: the model answers in text, so the hint applies.
  const afterTool: ChatRequest = {
    model: 'm',
    messages: [
      { role: 'user', content: 'Weather in Paris, as JSON?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 24C' },
    ],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }],
  };
  const withSchema: ChatRequest = {
    ...afterTool,
    response_format: { type: 'json_schema', json_schema: { name: 'a', schema } },
  };
  const anyObject: ChatRequest = { ...afterTool, response_format: { type: 'json_object' } };

  it('anthropic: the final text answer is JSON, matching the schema when the hint gives one', async () => {
    const ask = async (req: ChatRequest) => {
      const body = await j(await anthropic({ ...toAnthropicRequest({ ...req, model: 'claude-sonnet-4-5' }).body }));
      expect(body.stop_reason).toBe('end_turn');
      return JSON.parse(body.content[0].text);
    };
    const v = await ask(withSchema);
    expect(Object.keys(v)).toEqual(['answer', 'confidence', 'note']);
    expect(typeof v.answer).toBe('string');
    expect(typeof v.confidence).toBe('number');
    const o = await ask(anyObject);
    expect(typeof o).toBe('object');
    expect(Array.isArray(o)).toBe(false);
  });

  it('anthropic streams the same JSON', async () => {
    const body = toAnthropicRequest({ ...withSchema, model: 'claude-sonnet-4-5' }).body;
    const full = await j(await anthropic(body));
    const text = sseData(await (await anthropic({ ...body, stream: true })).text())
      .map((d) => JSON.parse(d))
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => e.delta.text)
      .join('');
    expect(text).toBe(full.content[0].text);
    expect(Object.keys(JSON.parse(text))).toEqual(['answer', 'confidence', 'note']);
  });

  it('gemini: the final text answer is JSON, matching the schema when the hint gives one', async () => {
    const ask = async (req: ChatRequest) => {
      const body = await j(
        await gemini('gemini-2.5-flash', 'generateContent', toGeminiRequest({ ...req, model: 'gemini-2.5-flash' })),
      );
      return JSON.parse(body.candidates[0].content.parts.map((p: { text?: string }) => p.text ?? '').join(''));
    };
    const v = await ask(withSchema);
    expect(Object.keys(v)).toEqual(['answer', 'confidence', 'note']);
    expect(v.confidence).toBe(0);
    expect(typeof (await ask(anyObject))).toBe('object');
  });

  it('still calls the tool when the turn asks for one, and answers prose without the hint', async () => {
    const first: ChatRequest = { ...withSchema, messages: [{ role: 'user', content: 'Weather in Paris, as JSON?' }] };
    const call = await j(await anthropic(toAnthropicRequest({ ...first, model: 'claude-sonnet-4-5' }).body));
    expect(call.stop_reason).toBe('tool_use');
    const { response_format: _rf, ...plain } = afterTool;
    const prose = await j(await anthropic(toAnthropicRequest({ ...plain, model: 'claude-sonnet-4-5' }).body));
    expect(prose.content[0].text).toMatch(/^Simulated reply from/);
  });
});
