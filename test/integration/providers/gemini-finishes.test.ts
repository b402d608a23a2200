import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdapter } from '../../../server/providers/factory.js';
import { closeHttp } from '../../../server/providers/http.js';
import { ProviderError, type ProviderAdapter } from '../../../server/providers/types.js';
import { callOptions as opts, failureOf as failure, streamed } from '../../support/adapter-calls.js';
import { StandIns } from '../../support/stand-in.js';

// Gemini finishes that are not an answer, from a stand-in server answering as Google documents:
// MALFORMED_RESPONSE ("finished due to malformed response") is a failed call (the gateway falls
// back, nothing is cached), whole and streamed; Vertex's MODEL_ARMOR is a content filter.

const standIns = new StandIns();
let candidate: Record<string, unknown> = {};
let adapter: ProviderAdapter;
const ask = { model: 'gemini-3.5-flash', messages: [{ role: 'user' as const, content: 'hi' }] };
const usageMetadata = { promptTokenCount: 4, candidatesTokenCount: 0, totalTokenCount: 4 };

beforeAll(async () => {
  const baseUrl = await standIns.start((req, res) => {
    req.resume();
    req.on('end', () => {
      const frame = { candidates: [{ index: 0, ...candidate }], usageMetadata, modelVersion: 'gemini-3.5-flash' };
      if (req.url?.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(frame)}\r\n\r\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(frame));
    });
  });
  adapter = createAdapter({
    name: 'gemini',
    family: 'gemini',
    baseUrl,
    apiKey: 'gem-test-key-0123456789',
    builtinModels: ['gemini-3.5-flash'],
  });
});
afterAll(async () => {
  await closeHttp();
  await standIns.closeAll();
});

const collect = () => streamed(adapter, ask);

describe('Gemini finishes', () => {
  it('fails a MALFORMED_RESPONSE answer instead of passing it as an empty success, whole and streamed', async () => {
    candidate = { content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_RESPONSE' };
    const whole = await failure(adapter.chat(ask, opts()));
    expect(whole).toBeInstanceOf(ProviderError);
    expect(whole.message).toContain('MALFORMED_RESPONSE');
    const streamed = await failure(collect());
    expect(streamed).toBeInstanceOf(ProviderError);
    expect(streamed.message).toContain('MALFORMED_RESPONSE');
  });

  it("reads Vertex's MODEL_ARMOR as a content filter", async () => {
    candidate = { content: { role: 'model', parts: [] }, finishReason: 'MODEL_ARMOR' };
    expect((await adapter.chat(ask, opts())).choices[0]!.finish_reason).toBe('content_filter');
    expect((await collect()).some((c) => c.choices[0]?.finish_reason === 'content_filter')).toBe(true);
  });
});
