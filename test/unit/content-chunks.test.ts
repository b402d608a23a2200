// Mistral's content lists (thinking and text chunks) become OpenAI's content string and
// reasoning_content; lists holding anything else are left as they came.
import { describe, expect, it } from 'vitest';
import { flattenContentChunks } from '../../server/providers/openai-compatible/content-chunks.js';

const thinking = (...texts: string[]) => ({
  type: 'thinking',
  thinking: texts.map((text) => ({ type: 'text', text })),
});

describe('flattenContentChunks', () => {
  it("joins a message's text chunks into content and its thinking into reasoning_content", () => {
    const m: Record<string, unknown> = {
      role: 'assistant',
      content: [thinking('a', 'b'), { type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }],
    };
    expect(flattenContentChunks(m, false)).toBe(true);
    expect(m).toEqual({ role: 'assistant', content: 'Hello', reasoning_content: 'ab' });
  });

  it('gives a message without text null content, and a delta without text no content', () => {
    const m: Record<string, unknown> = { role: 'assistant', content: [thinking('x')], tool_calls: [] };
    expect(flattenContentChunks(m, false)).toBe(true);
    expect(m).toEqual({ role: 'assistant', content: null, reasoning_content: 'x', tool_calls: [] });
    const d: Record<string, unknown> = { content: [thinking('y')], reasoning_content: 'x' };
    expect(flattenContentChunks(d, true)).toBe(true);
    expect(d).toEqual({ reasoning_content: 'xy' });
  });

  it('leaves strings, and lists with chunks of other kinds, as they came', () => {
    const plain: Record<string, unknown> = { content: 'hi' };
    expect(flattenContentChunks(plain, false)).toBe(false);
    expect(plain).toEqual({ content: 'hi' });
    for (const content of [
      [
        { type: 'text', text: 'a' },
        { type: 'reference', reference_ids: [1] },
      ],
      [{ type: 'thinking', thinking: 'not a list' }],
      ['bare'],
    ]) {
      const m: Record<string, unknown> = { content };
      expect(flattenContentChunks(m, false)).toBe(false);
      expect(m).toEqual({ content });
    }
  });
});
