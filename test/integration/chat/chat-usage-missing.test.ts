import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../../server/providers/token-count.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// A provider that reports no token usage (some OpenAI-compatible servers and proxies): the call is
// still costed, from a count of the prompt and of what was answered, whole and streamed, in every
// wire format. The stream translators for Anthropic and Gemini end every stream with a usage chunk,
// zeros when the provider sent none: those zeros must not be taken as "free".

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
  c.sim.setFaults([{ omitUsage: true }]);
});
afterAll(() => c.close());

interface CostRow {
  input_tokens: number;
  output_tokens: number;
  cost: number;
}
const costRow = async (id: string): Promise<CostRow> => {
  await c.waitForCount('select count(*) n from cost_logs where request_id = $1', [id], 1);
  return (
    await c.query<CostRow>(
      'select input_tokens, output_tokens, cost::float8 cost from cost_logs where request_id = $1',
      [id],
    )
  )[0]!;
};

// A question of its own per call: the same one again would be an exact-cache hit, which costs nothing.
let asked = 0;
const messages = () => [{ role: 'user' as const, content: `Count the tokens of question ${++asked}, please.` }];

describe('a provider that reports no usage', () => {
  it.each(['openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest', 'gemini/gemini-2.0-flash'])(
    '%s: a whole answer is costed from a count',
    async (model) => {
      const res = await c.openai().chat.completions.create({ model, messages: messages() });
      const { _gateway: meta, usage_estimated: estimated } = res as unknown as {
        _gateway: { requestId: string; cost: number };
        usage_estimated?: boolean;
      };
      const id = meta.requestId;
      expect(estimated).toBe(true);
      expect(meta.cost).toBeGreaterThan(0);
      expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
      expect(res.usage!.completion_tokens).toBeGreaterThan(0);
      const row = await costRow(id);
      expect(row).toMatchObject({
        input_tokens: res.usage!.prompt_tokens,
        output_tokens: res.usage!.completion_tokens,
        cost: meta.cost,
      });
    },
  );

  it.each(['openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest', 'gemini/gemini-2.0-flash'])(
    '%s: a stream is costed from a count too, and its last frame says so',
    async (model) => {
      const stream = await c.openai().chat.completions.create({
        model,
        messages: messages(),
        stream: true,
        stream_options: { include_usage: true },
      });
      let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
      let estimated: unknown;
      let id = '';
      for await (const chunk of stream) {
        if (chunk.usage) {
          usage = chunk.usage;
          estimated = (chunk as unknown as { usage_estimated?: boolean }).usage_estimated;
        }
        const meta = (chunk as unknown as { _gateway?: { requestId: string; cost: number } })._gateway;
        if (meta) {
          id = meta.requestId;
          expect(meta.cost).toBeGreaterThan(0);
        }
      }
      expect(usage!.prompt_tokens).toBeGreaterThan(0);
      expect(usage!.completion_tokens).toBeGreaterThan(0);
      expect(estimated).toBe(true);
      expect(await costRow(id)).toMatchObject({
        input_tokens: usage!.prompt_tokens,
        output_tokens: usage!.completion_tokens,
      });
    },
  );
});

describe('a provider that reports no usage, on an answer with reasoning (Claude thinking asked for)', () => {
  it('counts the reasoning_content as output, whole as streamed', async () => {
    const params = { model: 'anthropic/claude-sonnet-4-5', messages: messages(), reasoning_effort: 'medium' as const };
    const whole = await c.openai().chat.completions.create(params);
    const message = whole.choices[0]!.message as { content: string | null; reasoning_content?: string };
    expect(message.reasoning_content).toBeTruthy();
    expect(whole.usage!.completion_tokens).toBe(await countTokens((message.content ?? '') + message.reasoning_content));

    const stream = await c.openai().chat.completions.create({
      ...params,
      messages: messages(),
      stream: true,
      stream_options: { include_usage: true },
    });
    let produced = '';
    let completion = 0;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      produced += (delta?.reasoning_content ?? '') + (delta?.content ?? '');
      if (chunk.usage) completion = chunk.usage.completion_tokens;
    }
    expect(completion).toBe(await countTokens(produced));
  });
});

describe('a provider that reports usage', () => {
  it('is taken at its word, and nothing is marked estimated', async () => {
    c.sim.clearFaults();
    try {
      const res = await c.openai().chat.completions.create({ model: 'gemini/gemini-2.0-flash', messages: messages() });
      expect(res).not.toHaveProperty('usage_estimated');
      expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
    } finally {
      c.sim.setFaults([{ omitUsage: true }]);
    }
  });
});
