import type { ServerResponse } from 'node:http';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { openaiFormatStandIn } from '../../support/openai-format-stand-in.js';
import { StandIns } from '../../support/stand-in.js';

// The same request answered whole and streamed (live, or replayed from the exact cache) must agree,
// as the official OpenAI client assembles a stream: its stream helper's finalChatCompletion, and the
// deltas added up by hand.

const standIns = new StandIns();
let c: ChatEnv;
const REFUSAL = "I'm sorry, I can't help with that request.";

/** An OpenAI-format host that reports no usage and refuses as OpenAI does (content null, the refusal beside it). */
function refusing(body: Record<string, unknown>, res: ServerResponse): void {
  const meta = { id: 'chatcmpl-9', created: 1764000000, model: body['model'] };
  if (body['stream'] !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...meta,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, refusal: REFUSAL },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
      }),
    );
    return;
  }
  const frame = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...meta, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame({ role: 'assistant', content: null, refusal: '' }));
  res.write(frame({ refusal: REFUSAL.slice(0, 20) }));
  res.write(frame({ refusal: REFUSAL.slice(20) }));
  res.write(frame({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

beforeAll(async () => {
  const together = await openaiFormatStandIn(
    standIns,
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo'],
    () => undefined,
    refusing,
  );
  c = await startChatEnv({ env: { TOGETHER_API_KEY: 'together-test', TOGETHER_BASE_URL: `${together.base}/v1` } });
  c.sim.configure({ chunkDelayMs: 0 });
  c.sim.setFaults([{ omitUsage: true, model: 'gpt-4.1-nano' }]);
});
afterAll(async () => {
  await c?.close();
  await standIns.closeAll();
});

let asked = 0;
const question = (text: string): OpenAI.ChatCompletionMessageParam[] => [
  { role: 'user', content: `${text} (${++asked})` },
];
type Params = OpenAI.ChatCompletionCreateParamsNonStreaming & Record<string, unknown>;
type Answer = OpenAI.ChatCompletion & { usage_estimated?: boolean; _gateway: Record<string, unknown> };
const whole = async (params: Params): Promise<Answer> => (await c.openai().chat.completions.create(params)) as Answer;

/** A streamed call, its chunks as they came and what the deltas add up to. */
async function streamed(params: Params) {
  const stream = await c
    .openai()
    .chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  const chunks: Array<OpenAI.ChatCompletionChunk & Record<string, unknown>> = [];
  let content: string | null = null;
  let refusal = '';
  for await (const chunk of stream) {
    chunks.push(chunk as OpenAI.ChatCompletionChunk & Record<string, unknown>);
    const delta = chunk.choices[0]?.delta;
    if (typeof delta?.content === 'string') content = (content ?? '') + delta.content;
    if (typeof delta?.refusal === 'string') refusal += delta.refusal;
  }
  const last = chunks.findLast((ch) => ch.usage);
  const meta = chunks.findLast((ch) => ch['_gateway'])?.['_gateway'] as Record<string, unknown>;
  return { chunks, content, refusal, usage: last?.usage, estimated: last?.['usage_estimated'], meta };
}

const costRowTokens = async (requestId: unknown): Promise<number> => {
  await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [requestId], 1);
  return (
    await c.query<{ output_tokens: number }>('select output_tokens from cost_logs where request_id = $1', [requestId])
  )[0]!.output_tokens;
};

describe('whole and streamed answers agree', () => {
  it("logprobs: a cached whole answer replayed streamed, and Gemini's live stream, give the stream helper each token once", async () => {
    const params = {
      model: 'openai/gpt-4o-mini',
      messages: question('Say hi'),
      logprobs: true,
      top_logprobs: 1,
    } as Params;
    const first = await whole(params);
    const replay = await c
      .openai()
      .chat.completions.stream(params as unknown as OpenAI.ChatCompletionCreateParamsStreaming)
      .finalChatCompletion();
    expect(replay.choices[0]!.logprobs!.content!.map((t) => t.token)).toEqual(
      first.choices[0]!.logprobs!.content!.map((t) => t.token),
    );

    const gemini = {
      model: 'gemini/gemini-2.5-flash',
      messages: question('Say hi'),
      logprobs: true,
      top_logprobs: 1,
      cache: false,
    } as Params;
    const answer = await whole(gemini);
    const live = await c
      .openai()
      .chat.completions.stream(gemini as unknown as OpenAI.ChatCompletionCreateParamsStreaming)
      .finalChatCompletion();
    expect(live.choices[0]!.logprobs!.content!.map((t) => t.token)).toEqual(
      answer.choices[0]!.logprobs!.content!.map((t) => t.token),
    );
  });

  it('a refusal from a provider that reports no usage is counted as output, whole as streamed', async () => {
    const params = {
      model: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo',
      messages: question('How do I pick a lock?'),
      cache: false,
    } as Params;
    const w = await whole(params);
    const s = await streamed(params);
    expect(w.choices[0]!.message.refusal).toBe(REFUSAL);
    expect(s.refusal).toBe(REFUSAL);
    expect(w.usage).toEqual(s.usage);
    expect(w.usage!.completion_tokens).toBeGreaterThan(0);
    expect(await costRowTokens(w._gateway['requestId'])).toBe(await costRowTokens(s.meta['requestId']));
  });

  it('a cache hit keeps usage_estimated, whichever way the answer was cached and is replayed', async () => {
    const one = { model: 'openai/gpt-4.1-nano', messages: question('Say hi') } as Params;
    const w = await whole(one);
    const replayed = await streamed(one);
    expect(w.usage_estimated).toBe(true);
    expect(replayed.meta['cached']).toBe(true);
    expect([replayed.usage, replayed.estimated]).toEqual([w.usage, true]);

    const two = { model: 'openai/gpt-4.1-nano', messages: question('Say hi') } as Params;
    const s = await streamed(two);
    const hit = await whole(two);
    expect(s.estimated).toBe(true);
    expect(hit._gateway['cached']).toBe(true);
    expect([hit.usage, hit.usage_estimated]).toEqual([s.usage, true]);
  });

  it('a cached tool-call answer replays with content null, as it came and as a live stream adds up', async () => {
    const weather = {
      type: 'function' as const,
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    };
    const params = {
      model: 'openai/gpt-4o-mini',
      messages: question('Weather in Oslo?'),
      tools: [weather],
      tool_choice: 'required',
    } as Params;
    const w = await whole(params);
    const replay = await streamed(params);
    expect(replay.meta['cached']).toBe(true);
    expect(w.choices[0]!.message.content).toBeNull();
    expect(replay.content).toBeNull();
    expect(replay.chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: null });
  });
});
