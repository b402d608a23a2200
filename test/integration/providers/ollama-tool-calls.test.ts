import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { StandIns } from '../../support/stand-in.js';

// A local Ollama server streams parallel tool calls its own way: several whole calls, each with its
// own id, all under index 0. Through the gateway the official client's stream helper gets them as
// OpenAI numbers them, one index per call: before, it glued them into one call named
// "file_writefile_write" with both arguments run together.

const MODEL = 'qwen2.5-coder:7b';
const standIns = new StandIns();
let c: ChatEnv;

const frame = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-451', object: 'chat.completion.chunk', created: 1735000000, model: MODEL, system_fingerprint: 'fp_ollama', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const ollamaCall = (id: string, name: string, args: string) => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, index: 0, type: 'function', function: { name, arguments: args } }],
});

function ollama(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'GET' && req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: [{ id: MODEL, object: 'model', created: 1735000000, owned_by: 'library' }],
      }),
    );
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame(ollamaCall('call_a1b2c3d4', 'file_write', '{"filePath":"hello.py","content":"print(1)"}')));
    res.write(frame(ollamaCall('call_e5f6g7h8', 'file_write', '{"filePath":"world.py","content":"print(2)"}')));
    res.write(frame({ role: 'assistant', content: '' }, 'tool_calls'));
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-451', object: 'chat.completion.chunk', created: 1735000000, model: MODEL, choices: [], usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
}

beforeAll(async () => {
  const base = await standIns.start(ollama);
  c = await startChatEnv({ env: { OLLAMA_BASE_URL: `${base}/v1` } });
});
afterAll(async () => {
  await c?.close();
  await standIns.closeAll();
});

describe('Ollama parallel tool calls through the OpenAI stream helper', () => {
  it('arrive as two calls, each with its own index, name and arguments', async () => {
    const doneArguments: string[] = [];
    const stream = c.openai().chat.completions.stream({
      model: `ollama/${MODEL}`,
      messages: [{ role: 'user', content: 'Write hello.py and world.py' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'file_write',
            parameters: { type: 'object', properties: { filePath: { type: 'string' }, content: { type: 'string' } } },
          },
        },
      ],
    });
    stream.on('tool_calls.function.arguments.done', (e) => doneArguments.push(e.arguments));
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      {
        id: 'call_a1b2c3d4',
        type: 'function',
        function: { name: 'file_write', arguments: '{"filePath":"hello.py","content":"print(1)"}' },
      },
      {
        id: 'call_e5f6g7h8',
        type: 'function',
        function: { name: 'file_write', arguments: '{"filePath":"world.py","content":"print(2)"}' },
      },
    ]);
    expect(doneArguments).toEqual([
      '{"filePath":"hello.py","content":"print(1)"}',
      '{"filePath":"world.py","content":"print(2)"}',
    ]);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });
});
