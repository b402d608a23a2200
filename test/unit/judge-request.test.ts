// The judge asks for a one-number grade. A reasoning model's hidden tokens count against the
// answer's limit, so it gets room to think instead of 16 tokens.
import { describe, expect, it } from 'vitest';
import { judgeRequest } from '../../server/modules/feedback/judge-job.js';

const messages = [{ role: 'user' as const, content: 'grade this' }];

describe('judgeRequest', () => {
  it('asks a plain model for 16 tokens at temperature 0', () => {
    expect(judgeRequest('openai/gpt-4.1-nano', messages)).toEqual({
      model: 'openai/gpt-4.1-nano',
      messages,
      temperature: 0,
      max_tokens: 16,
    });
  });

  it('gives a reasoning model 1,024 tokens, at low effort where its provider takes one', () => {
    expect(judgeRequest('openai/o3-mini', messages)).toEqual({
      model: 'openai/o3-mini',
      messages,
      max_tokens: 1024,
      reasoning_effort: 'low',
    });
    expect(judgeRequest('xai/grok-3-mini', messages)).toEqual({
      model: 'xai/grok-3-mini',
      messages,
      max_tokens: 1024,
      reasoning_effort: 'low',
    });
    expect(judgeRequest('gemini/gemini-3.8-flash', messages)).toEqual({
      model: 'gemini/gemini-3.8-flash',
      messages,
      max_tokens: 1024,
      reasoning_effort: 'low',
    });
    expect(judgeRequest('deepseek/deepseek-reasoner', messages)).toEqual({
      model: 'deepseek/deepseek-reasoner',
      messages,
      max_tokens: 1024,
    });
  });
});
