import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StandIns } from './stand-in.js';

// An OpenAI-format provider played by a stand-in: it lists `models`, records every chat body, and
// refuses a body as the real provider documents when `check` returns [status, errorBody];
// otherwise `answer` replies (by default "ok", whole or streamed).

export type Refusal = [number, unknown] | undefined;

export interface OpenAIFormatStandIn {
  base: string;
  received: Array<Record<string, unknown>>;
  last(): Record<string, unknown>;
}

export type Answer = (body: Record<string, unknown>, res: ServerResponse) => void;

export async function openaiFormatStandIn(
  standIns: StandIns,
  models: string[],
  check: (body: Record<string, unknown>) => Refusal = () => undefined,
  answer: Answer = answerOk,
): Promise<OpenAIFormatStandIn> {
  const received: Array<Record<string, unknown>> = [];
  const base = await standIns.start((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'stand-in' })) }),
      );
      return;
    }
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      raw += d;
    });
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      received.push(body);
      const refusal = check(body);
      if (refusal) {
        res.writeHead(refusal[0], { 'content-type': 'application/json' });
        res.end(JSON.stringify(refusal[1]));
        return;
      }
      answer(body, res);
    });
  });
  return { base, received, last: () => received[received.length - 1]! };
}

/** "ok", whole or streamed (role, text, finish, usage), as OpenAI answers. */
function answerOk(body: Record<string, unknown>, res: ServerResponse): void {
  const meta = { id: 'chatcmpl-1', created: 1764000000, model: body['model'] };
  const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
  if (body['stream'] !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...meta,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage,
      }),
    );
    return;
  }
  const frame = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...meta, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame({ role: 'assistant', content: '' }));
  res.write(frame({ content: 'ok' }));
  res.write(frame({}, 'stop'));
  res.write(`data: ${JSON.stringify({ ...meta, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}
