import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';

// A stream with several choices, whose role-only openings all come before any content (as vLLM
// sends them, and OpenAI sometimes): the official client's stream helper needs every choice's role.

let c: ChatEnv;
beforeAll(async () => {
  c = await startChatEnv();
  c.sim.configure({ chunkDelayMs: 0 });
});
afterAll(() => c.close());

describe('n > 1 through the OpenAI stream helper', () => {
  it('hands on the opening of every choice, so finalChatCompletion() has a role for each', async () => {
    const stream = c.openai().chat.completions.stream({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: 'Two answers please' }],
      n: 2,
      temperature: 0.7,
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices).toHaveLength(2);
    for (const [i, choice] of completion.choices.entries()) {
      expect(choice.index).toBe(i);
      expect(choice.message.role).toBe('assistant');
      expect(choice.message.content).toContain('Two answers please');
      expect(choice.finish_reason).toBe('stop');
    }
    expect(completion.choices[1]!.message.content).toBe(completion.choices[0]!.message.content);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
  });
});
