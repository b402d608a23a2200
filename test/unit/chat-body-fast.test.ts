import { describe, expect, it } from 'vitest';
import { CHAT_BODY_SCHEMA_KEYS, fastChatBody, MAX_BODY_DEPTH } from '../../server/gateway/chat-body-fast.js';
import { ChatBodySchema, parseChatBody } from '../../server/gateway/validate.js';
import { ExactCache } from '../../server/gateway/cache/exact-cache.js';
import { CallScope } from '../../server/providers/call-scope.js';
import { toProviderError } from '../../server/providers/http-errors.js';
import { GatewayError } from '../../server/lib/errors.js';
import { Cancellation } from '../../server/lib/cancel-signal.js';

// The zod-free path must agree with ChatBodySchema wherever it answers: checked on hand-picked
// bodies and on a few thousand generated ones.

/** Top-level keys sorted (their order differs between the two paths and nothing reads it); nested order kept. */
function canonical(body: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b))));
}

/** What validate.ts accepts through zod alone (its schema plus its message rules), or undefined. */
function throughZod(raw: unknown): Record<string, unknown> | undefined {
  const parsed = ChatBodySchema.safeParse(raw);
  if (!parsed.success) return undefined;
  for (const m of parsed.data.messages) {
    if (m.role !== 'assistant' && (m.content === undefined || m.content === null)) return undefined;
    if (m.role === 'tool' && !m.tool_call_id) return undefined;
  }
  return parsed.data as Record<string, unknown>;
}

function expectAgreement(body: unknown): 'fast' | 'zod' {
  const fast = fastChatBody(structuredClone(body) as Record<string, unknown>);
  if (fast === undefined) return 'zod';
  const zod = throughZod(structuredClone(body));
  expect(zod, `zod refuses what the fast path took: ${JSON.stringify(body)}`).toBeDefined();
  expect(canonical(fast as Record<string, unknown>)).toBe(canonical(zod!));
  return 'fast';
}

describe('chat body fast path', () => {
  it('knows every field of ChatBodySchema', () => {
    expect([...CHAT_BODY_SCHEMA_KEYS].sort()).toEqual(Object.keys(ChatBodySchema.shape).sort());
  });

  it('takes the common body and agrees with zod on it, model default included', () => {
    const body = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi', name: 'ann' },
      ],
      temperature: 0.7,
      stream: true,
      user: 'u1',
      seed: 3,
    };
    expect(expectAgreement(body)).toBe('fast');
    expect(parseChatBody(structuredClone(body)).model).toBe('');
  });

  it('leaves to zod what it does not check itself', () => {
    const msgs = [{ role: 'user', content: 'x' }];
    for (const body of [
      { messages: msgs, tools: [] },
      { messages: msgs, stop: 'x' },
      { messages: msgs, stream_options: { include_usage: true } },
      { messages: msgs, prompt_version_id: 'v1' },
      { messages: [{ content: 'x', role: 'user' }] },
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] },
      { messages: [{ role: 'tool', content: 'x' }] },
      { messages: [{ role: 'user', content: 'x', tool_call_id: 'c' }] },
      { messages: [] },
      { model: 'm' },
      { messages: msgs, temperature: 3 },
      { messages: msgs, n: 17 },
      { messages: msgs, max_tokens: 1.5 },
      JSON.parse('{"messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":true}}'),
    ]) {
      expect(expectAgreement(body), JSON.stringify(body)).toBe('zod');
    }
  });

  it('agrees with zod on ten thousand generated bodies', () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const values = [0, -0, 0.5, 1, 2, 2.5, -1, 16, 17, 1e300, 3.7, null, true, false, '', 'x', [], {}, [1]] as const;
    const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'bot', 1];
    const message = () => {
      const m: Record<string, unknown> = {};
      const roleOf = () => (rand() < 0.8 ? pick(['system', 'user', 'assistant']) : pick(roles));
      const keys =
        rand() < 0.9
          ? ['role', 'content']
          : pick([
              ['content', 'role'],
              ['role', 'content', 'name'],
              ['role'],
              ['role', 'content', 'extra'],
              ['role', 'name', 'content'],
            ]);
      for (const k of keys)
        m[k] =
          k === 'role'
            ? roleOf()
            : k === 'content'
              ? rand() < 0.8
                ? 'hello'
                : pick(['', null, 3, [{ type: 'text', text: 'x' }]])
              : pick(['n', 1, null]);
      return m;
    };
    // Each field's likely values, with the ones just past its limits.
    const near: Record<string, readonly unknown[]> = {
      model: ['openai/gpt-4o-mini', ''],
      stream: [true, false],
      temperature: [0, 0.7, 2, 2.0001, 2.5, -0.1, null],
      top_p: [0, 1, 1.01, -0.01, null],
      max_tokens: [1, 100, 0, 1.5, 2 ** 53, null],
      max_completion_tokens: [5, 0, null],
      n: [1, 16, 17, 0, null],
      cache: [true, false],
      user: ['u'],
      seed: [7],
      stop: ['x', ['a', 'b']],
      routing_hint: ['coding', 'qa'],
    };
    const fields = [
      'model',
      'stream',
      'temperature',
      'top_p',
      'max_tokens',
      'max_completion_tokens',
      'n',
      'cache',
      'user',
      'seed',
      'stop',
      'routing_hint',
    ];
    let fast = 0;
    for (let i = 0; i < 10_000; i++) {
      const body: Record<string, unknown> = {};
      if (rand() < 0.95)
        body['messages'] = rand() < 0.05 ? pick(values) : Array.from({ length: 1 + Math.floor(rand() * 3) }, message);
      for (const f of fields) if (rand() < 0.3) body[f] = rand() < 0.8 ? pick(near[f]!) : pick(values);
      if (expectAgreement(body) === 'fast') fast++;
    }
    // Enough of the generated bodies take the fast path for the comparison to mean something.
    expect(fast).toBeGreaterThan(500);
  });
});

/** A value whose objects nest `levels` deep: 1 is `{"a":0}`. */
function nested(levels: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('chat body depth bound', () => {
  const msgs = [{ role: 'user', content: 'x' }];
  const refusal = (body: unknown) => {
    try {
      parseChatBody(body);
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it(`takes a body ${MAX_BODY_DEPTH} levels deep on either path, and refuses one level more`, () => {
    // The body is the first level, so a top-level field may nest one level less.
    const fits = MAX_BODY_DEPTH - 1;
    for (const body of [
      { messages: msgs, metadata: nested(fits) },
      { messages: msgs, tools: [{ type: 'function', function: { name: 'f', parameters: nested(fits - 3) } }] },
    ]) {
      expect(refusal(structuredClone(body))).toBeUndefined();
    }
    for (const [field, body] of [
      ['metadata', { messages: msgs, metadata: nested(fits + 1) }],
      [
        'tools',
        { messages: msgs, tools: [{ type: 'function', function: { name: 'f', parameters: nested(fits - 2) } }] },
      ],
      ['messages', { messages: [{ role: 'user', content: 'x', extra: nested(fits - 1) }] }],
    ] as const) {
      const err = refusal(structuredClone(body));
      expect(err, field).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({ type: 'invalid_request_error' });
      expect((err as Error).message).toBe(
        `${field}: nested more than ${MAX_BODY_DEPTH} levels deep (objects and arrays, the body included)`,
      );
    }
  });

  it('leaves an over-deep pass-through field to the zod path, which refuses it', () => {
    expect(fastChatBody({ messages: msgs, metadata: nested(MAX_BODY_DEPTH) })).toBeUndefined();
    expect(fastChatBody({ messages: msgs, metadata: nested(MAX_BODY_DEPTH - 1) })).toBeDefined();
  });

  it('refuses 20,000 levels without overflowing the stack itself', () => {
    expect(refusal({ messages: msgs, metadata: nested(20_000) })).toBeInstanceOf(GatewayError);
    expect(
      refusal({ messages: msgs, response_format: { type: 'json_schema', json_schema: { schema: nested(20_000) } } }),
    ).toBeInstanceOf(GatewayError);
  });
});

describe('safety nets for a body that cannot be serialised', () => {
  it("a stack overflow while building the upstream request is the request's fault, not a connection failure", () => {
    let overflow: unknown;
    try {
      JSON.stringify(nested(200_000));
    } catch (err) {
      overflow = err;
    }
    expect(overflow).toBeInstanceOf(RangeError);
    const scope = new CallScope(new Cancellation(), 1_000);
    try {
      const e = toProviderError(overflow, scope, 'openai');
      // The request's fault, which the provider never saw: attempts.ts answers 400 with no fallback, no breaker count, no upstream call logged.
      expect(e).toMatchObject({ provider: 'openai', status: 0, retryable: false, kind: 'request' });
      // A network error keeps its meaning.
      const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      expect(toProviderError(reset, scope, 'openai')).toMatchObject({ status: 0, retryable: true, kind: 'connection' });
    } finally {
      scope.dispose();
    }
  });

  it('the exact-cache key of such a body is null (not cached) rather than a thrown RangeError', () => {
    expect(ExactCache.key('t', 'openai', 'gpt-4o-mini', { messages: [], tools: [nested(200_000)] })).toBeNull();
    expect(ExactCache.key('t', 'openai', 'gpt-4o-mini', { messages: [] })).toEqual(expect.any(String));
  });
});
