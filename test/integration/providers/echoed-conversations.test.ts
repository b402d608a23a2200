import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODELS } from '../../../server/simulator/config.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { openaiFormatStandIn, type OpenAIFormatStandIn, type Refusal } from '../../support/openai-format-stand-in.js';
import { StandIns } from '../../support/stand-in.js';

// Conversations sent back as clients keep them, and reasoning_effort, on providers that check
// what they get. The simulator plays Anthropic and Gemini; stand-ins play OpenAI, Groq, xAI and
// Mistral, each refusing as the provider documents (or as its users have reported it refusing).

const standIns = new StandIns();
let c: ChatEnv;
let openai: OpenAIFormatStandIn;
let groq: OpenAIFormatStandIn;
let xai: OpenAIFormatStandIn;
let mistral: OpenAIFormatStandIn;

type Message = Record<string, unknown>;
const messagesOf = (body: Record<string, unknown>) => body['messages'] as Message[];

/** OpenAI: a present `tool_calls` needs a call (`empty_array`); non-reasoning models refuse `reasoning_effort`. */
function openaiCheck(body: Record<string, unknown>): Refusal {
  for (const [i, m] of messagesOf(body).entries()) {
    if (Array.isArray(m['tool_calls']) && m['tool_calls'].length === 0) {
      return [
        400,
        {
          error: {
            message: `Invalid 'messages[${i}].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
            type: 'invalid_request_error',
            param: `messages[${i}].tool_calls`,
            code: 'empty_array',
          },
        },
      ];
    }
  }
  if (/^gpt-4/.test(String(body['model'])) && body['reasoning_effort'] !== undefined) {
    return [
      400,
      {
        error: {
          message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'reasoning_effort',
          code: 'unsupported_parameter',
        },
      },
    ];
  }
  const effort = body['reasoning_effort'];
  if (
    /^o\d/.test(String(body['model'])) &&
    effort !== undefined &&
    !['low', 'medium', 'high'].includes(String(effort))
  ) {
    return [
      400,
      {
        error: {
          message: `Unsupported value: '${String(effort)}' is not supported with the '${String(body['model'])}' model. Supported values are: 'low', 'medium', and 'high'.`,
          type: 'invalid_request_error',
          param: 'reasoning_effort',
          code: 'unsupported_value',
        },
      },
    ];
  }
  return undefined;
}

/** Groq's message fields (its SDK's types), any other refused as Groq does. */
const GROQ_MESSAGE_FIELDS: Record<string, Set<string>> = {
  system: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'function_call', 'name', 'reasoning', 'tool_calls']),
  tool: new Set(['role', 'content', 'tool_call_id', 'name']),
};
function groqCheck(body: Record<string, unknown>): Refusal {
  for (const [i, m] of messagesOf(body).entries()) {
    const allowed = GROQ_MESSAGE_FIELDS[String(m['role'])];
    const extra = Object.keys(m).find((k) => allowed && !allowed.has(k));
    if (extra)
      return [
        400,
        {
          error: {
            message: `'messages.${i}' : for 'role:${String(m['role'])}' the following must be satisfied[('messages.${i}' : property '${extra}' is unsupported)]`,
            type: 'invalid_request_error',
          },
        },
      ];
  }
  return undefined;
}

/** xAI's reasoning guide: grok-3-mini takes "low" or "high"; Grok 4.3 "none", "low", "medium" or "high". */
function xaiCheck(body: Record<string, unknown>): Refusal {
  const effort = body['reasoning_effort'];
  if (effort === undefined) return undefined;
  const model = String(body['model']);
  const allowed = model.startsWith('grok-3-mini') ? ['low', 'high'] : ['none', 'low', 'medium', 'high'];
  return allowed.includes(String(effort))
    ? undefined
    : [
        400,
        {
          code: 'Client specified an invalid argument',
          error: `reasoning_effort: unsupported value '${String(effort)}' for model ${model}`,
        },
      ];
}

/** Mistral: an assistant message needs content or tool calls. */
function mistralCheck(body: Record<string, unknown>): Refusal {
  const empty = messagesOf(body).find(
    (m) =>
      m['role'] === 'assistant' &&
      (m['content'] == null || m['content'] === '') &&
      !(Array.isArray(m['tool_calls']) && m['tool_calls'].length > 0),
  );
  return empty
    ? [
        400,
        {
          object: 'error',
          message: 'Assistant message must have either content or tool_calls, but not none.',
          type: 'invalid_request_message_error',
          param: null,
          code: '3230',
        },
      ]
    : undefined;
}

beforeAll(async () => {
  openai = await openaiFormatStandIn(standIns, ['gpt-4o-mini', 'o4-mini'], openaiCheck);
  groq = await openaiFormatStandIn(standIns, ['llama-3.3-70b-versatile'], groqCheck);
  xai = await openaiFormatStandIn(standIns, ['grok-3-mini', 'grok-4.3'], xaiCheck);
  mistral = await openaiFormatStandIn(standIns, ['mistral-small-2506'], mistralCheck);
  c = await startChatEnv({
    sim: {
      models: { anthropic: [...DEFAULT_MODELS.anthropic, 'claude-sonnet-4-6', 'claude-opus-4-5', 'claude-opus-4-7'] },
    },
    env: {
      OPENAI_BASE_URL: `${openai.base}/v1`,
      GROQ_API_KEY: 'gsk-test',
      GROQ_BASE_URL: `${groq.base}/v1`,
      XAI_API_KEY: 'xai-test',
      XAI_BASE_URL: `${xai.base}/v1`,
      MISTRAL_API_KEY: 'mistral-test',
      MISTRAL_BASE_URL: `${mistral.base}/v1`,
      GATEWAY_CACHE_ENABLED: 'false',
    },
  });
  c.sim.configure({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await c?.close();
  await standIns.closeAll();
});

const question = { role: 'user', content: 'Weather in Oslo?' };
const followUp = { role: 'user', content: 'And in Bergen?' };
const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const lastSimBody = () => c.sim.requests[c.sim.requests.length - 1]!.body as Record<string, any>;
const ask = (model: string, messages: unknown[], extra: Record<string, unknown> = {}) =>
  c.openai().chat.completions.create({
    model,
    messages: messages as OpenAI.ChatCompletionMessageParam[],
    ...extra,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming);

describe('answers sent back as clients keep them', () => {
  it("reach Groq with only the message fields it takes: a Python SDK dump, OpenAI's own fields, a framework's id", async () => {
    const answers = [
      {
        role: 'assistant',
        content: 'It is -3 C.',
        refusal: null,
        annotations: [],
        audio: null,
        function_call: null,
        tool_calls: null,
      },
      { role: 'assistant', content: 'It is -3 C.', refusal: null, annotations: [] },
      { role: 'assistant', id: 'msg_01', content: [{ type: 'text', text: 'It is -3 C.' }] },
    ];
    for (const answer of answers) {
      const res = await ask('groq/llama-3.3-70b-versatile', [question, answer, followUp]);
      expect(res.choices[0]!.message.content).toBe('ok');
      expect(Object.keys(messagesOf(groq.last())[1]!).sort()).toEqual(['content', 'role']);
    }
  });

  it('send OpenAI no empty tool_calls list, which it refuses', async () => {
    await ask('openai/gpt-4o-mini', [question, { role: 'assistant', content: 'Hello!', tool_calls: [] }, followUp]);
    expect(messagesOf(openai.last())[1]).toEqual({ role: 'assistant', content: 'Hello!' });
  });

  it("keep a refused answer (content null, refusal beside it) as the assistant's text, for Anthropic, Gemini and Mistral", async () => {
    const refused = { role: 'assistant', content: null, refusal: "I can't help with that." };
    const history = [
      { role: 'user', content: 'How do I pick a lock?' },
      refused,
      { role: 'user', content: 'Why not?' },
    ];
    await ask('anthropic/claude-sonnet-4-5', history);
    expect(lastSimBody()['messages'][1]).toEqual({ role: 'assistant', content: "I can't help with that." });
    await ask('gemini/gemini-2.5-flash', history);
    expect(lastSimBody()['contents'][1]).toEqual({ role: 'model', parts: [{ text: "I can't help with that." }] });
    await ask('mistral/mistral-small-2506', history);
    expect(messagesOf(mistral.last())[1]).toEqual({ role: 'assistant', content: "I can't help with that." });
  });

  it('send Anthropic no text of whitespace only, which it refuses', async () => {
    const call = { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } };
    await ask(
      'anthropic/claude-sonnet-4-5',
      [
        question,
        { role: 'assistant', content: '\n\n', tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_w1', content: '{"temp_c":-3}' },
      ],
      { tools: [weather] },
    );
    expect(lastSimBody()['messages'][1]['content'].map((b: { type: string }) => b.type)).toEqual(['tool_use']);
    await ask('anthropic/claude-sonnet-4-5', [
      question,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: ' ' },
          { type: 'text', text: 'It is -3 C.' },
        ],
      },
      followUp,
    ]);
    expect(lastSimBody()['messages'][1]).toEqual({ role: 'assistant', content: 'It is -3 C.' });
  });
});

describe('reasoning_effort', () => {
  it('is left out for an OpenAI model that does not reason (the router may pick one), and sent as a value it takes to one that does', async () => {
    await ask('openai/gpt-4o-mini', [question], { reasoning_effort: 'low' });
    expect(openai.last()).not.toHaveProperty('reasoning_effort');
    await ask('openai/o4-mini', [question], { reasoning_effort: 'medium' });
    expect(openai.last()['reasoning_effort']).toBe('medium');
    // A value this model lacks (a request written for GPT-5.1) goes as the nearest it takes.
    await ask('openai/o4-mini', [question], { reasoning_effort: 'none' });
    expect(openai.last()['reasoning_effort']).toBe('low');
  });

  it('goes to xAI as the values each model takes', async () => {
    const sent = async (model: string, effort: string) => {
      await ask(`xai/${model}`, [question], { reasoning_effort: effort });
      return xai.last()['reasoning_effort'];
    };
    expect([
      await sent('grok-3-mini', 'minimal'),
      await sent('grok-3-mini', 'medium'),
      await sent('grok-3-mini', 'xhigh'),
    ]).toEqual(['low', 'high', 'high']);
    expect([
      await sent('grok-4.3', 'minimal'),
      await sent('grok-4.3', 'none'),
      await sent('grok-4.3', 'medium'),
      await sent('grok-4.3', 'xhigh'),
    ]).toEqual(['low', 'none', 'medium', 'high']);
  });

  it('goes to Anthropic as an effort the model has, and a value OpenAI does not have is a 400 before sending', async () => {
    for (const model of ['claude-sonnet-4-6', 'claude-opus-4-5']) {
      await ask(`anthropic/${model}`, [question], { reasoning_effort: 'xhigh' });
      expect(lastSimBody()['output_config']).toEqual({ effort: 'high' });
    }
    await ask('anthropic/claude-opus-4-7', [question], { reasoning_effort: 'xhigh' });
    expect(lastSimBody()['output_config']).toEqual({ effort: 'xhigh' });
    const before = c.sim.requests.length;
    await expect(ask('anthropic/claude-sonnet-4-6', [question], { reasoning_effort: 'banana' })).rejects.toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error' },
    });
    expect(c.sim.requests.length).toBe(before);
  });
});
