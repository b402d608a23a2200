import type { StandIns } from './stand-in.js';

// An OpenAI-format provider that checks its API key as a real one does: a key it does not know gets
// 401 at every endpoint. It records which key each chat call came with, so a test can see whose
// credentials the gateway used.

export interface KeyedStandIn {
  base: string;
  /** Keys it accepts (changeable while it runs). */
  accepted: Set<string>;
  /** The key of every chat call, in order. */
  chatKeys: string[];
}

export async function keyedStandIn(standIns: StandIns, models: string[], accepted: string[]): Promise<KeyedStandIn> {
  const state: Omit<KeyedStandIn, 'base'> = { accepted: new Set(accepted), chatKeys: [] };
  const base = await standIns.start((req, res) => {
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d));
    req.on('end', () => {
      if (!state.accepted.has(key)) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
        return;
      }
      if (req.method === 'GET' && req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'x' })) }));
        return;
      }
      state.chatKeys.push(key);
      const body = JSON.parse(raw || '{}') as { model?: string };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-keyed',
          object: 'chat.completion',
          created: 1764000000,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
        }),
      );
    });
  });
  return { base, ...state };
}
