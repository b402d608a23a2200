import { describe, expect, it } from 'vitest';
import { jsonFromHint } from '../../server/simulator/json-hint.js';

const ask = (schema?: unknown): string =>
  'Be brief.\n\nWhen you give your final answer, reply with a single valid JSON object' +
  (schema === undefined ? '' : ` matching this JSON schema: ${JSON.stringify(schema)}`) +
  ', and nothing else: no prose, no code fences.';

describe('JSON asked for in a system instruction', () => {
  it('finds no request in an ordinary instruction', () => {
    expect(jsonFromHint('Be brief. Answer in JSON if you like.')).toBeUndefined();
    expect(jsonFromHint('')).toBeUndefined();
  });

  it('asks for any JSON object when the instruction gives no schema', () => {
    expect(jsonFromHint(ask())).toEqual({});
  });

  it('reads the schema, whose strings may hold braces, quotes and the words that follow it', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'a "quoted" {brace}, and nothing else: }' },
        b: { type: 'array', items: { type: 'integer' } },
      },
      required: ['a'],
    };
    expect(jsonFromHint(ask(schema))).toEqual({ schema });
  });

  it('falls back to any JSON object when the schema text is cut short', () => {
    expect(jsonFromHint('reply with a single valid JSON object matching this JSON schema: {"type":"obj')).toEqual({});
  });
});
