import { describe, expect, it } from 'vitest';
import { sampleSchema } from '../../server/simulator/schema-sample.js';
import { plan, splitPieces, type GenRequest } from '../../server/simulator/text.js';
import { FaultEngine } from '../../server/simulator/faults.js';

const gen = (over: Partial<GenRequest> = {}): GenRequest => ({
  model: 'm',
  promptChars: 40,
  messageCount: 1,
  imageCount: 0,
  toolsChars: 0,
  lastText: 'one two three',
  lastIsToolResult: false,
  stop: [],
  tools: [],
  toolMode: 'auto',
  ...over,
});

describe('schema sampling', () => {
  it('follows refs, unions, allOf, nullable types and bounds', () => {
    const v = sampleSchema({
      type: 'object',
      $defs: { Pt: { type: 'object', properties: { x: { type: 'number', minimum: 3 } } } },
      properties: {
        p: { $ref: '#/$defs/Pt' },
        u: { anyOf: [{ type: 'null' }, { type: 'integer', exclusiveMinimum: 5 }] },
        a: {
          allOf: [{ type: 'object', properties: { q: { type: 'boolean' } } }, { properties: { r: { const: 'k' } } }],
        },
        n: { type: ['null', 'string'], format: 'date-time' },
        l: { type: 'array', items: { type: 'string', maxLength: 3 }, minItems: 2 },
        self: { $ref: '#' },
      },
    }) as Record<string, unknown>;
    expect(v.p).toEqual({ x: 3 });
    expect(v.u).toBe(6);
    expect(v.a).toEqual({ q: true, r: 'k' });
    expect(v.n).toBe('2025-01-01T00:00:00Z');
    expect(v.l).toEqual(['sam', 'sam']);
    expect(typeof v.self).toBe('object'); // recursion is cut off at a fixed depth
  });
});

describe('reply planning', () => {
  it('is deterministic and respects the natural length and max tokens', () => {
    const a = plan(gen(), 10);
    expect(a).toEqual(plan(gen(), 10));
    expect(a.pieces).toHaveLength(10);
    expect(a.outputTokens).toBe(10);
    expect(a.text.startsWith('Simulated reply from m to: one two three')).toBe(true);
    const b = plan(gen({ maxTokens: 4 }), 10);
    expect(b).toMatchObject({ outputTokens: 4, finish: 'length' });
  });

  it('stops before the earliest stop sequence, mid-piece if needed', () => {
    const p = plan(gen({ stop: ['ly fr', 'two'] }), 10);
    expect(p.text).toBe('Simulated rep');
    expect(p).toMatchObject({ finish: 'stop_sequence', stopSequence: 'ly fr', outputTokens: 2 });
  });

  it('never splits a surrogate pair', () => {
    expect(splitPieces('ab\u{1F600}cd', 3)).toEqual(['ab\u{1F600}', 'cd']);
  });
});

describe('fault engine', () => {
  it('skips non-firing rules and honours times', () => {
    const f = new FaultEngine(1);
    f.set([
      { rate: 0, status: 500 },
      { status: 429, times: 1 },
      { status: 503, format: 'gemini' },
    ]);
    expect(f.match('openai', 'chat', 'x')?.status).toBe(429);
    expect(f.match('openai', 'chat', 'x')).toBeUndefined();
    expect(f.match('gemini', 'stream', 'x')?.status).toBe(503);
    expect(f.match('gemini', 'models', undefined)).toBeUndefined();
  });
});
