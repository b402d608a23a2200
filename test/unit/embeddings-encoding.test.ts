import { describe, expect, it } from 'vitest';
import { encodeBase64 } from '../../server/gateway/embeddings.js';
import { jsonWithGateway } from '../../server/http/gateway-meta.js';
import type { CallMeta } from '../../server/gateway/types.js';
import { keepRawJson, rawJsonOf } from '../../server/providers/raw-json.js';
import type { EmbeddingsResponse } from '../../server/providers/types.js';

const meta: CallMeta = {
  requestId: 'req_1',
  provider: 'p',
  model: 'm',
  latencyMs: 1,
  cached: false,
  cacheType: null,
  cost: 0,
  usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 },
  routing: { taskType: null, complexity: null, routedBy: 'user-override', usedFallback: false, usedLlmFallback: false },
  errors: [],
  upstreamMs: 0,
};

describe('embeddings asked for as base64', () => {
  it('encodes number vectors as little-endian float32, and stops sending the upstream text it no longer matches', () => {
    const text =
      '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,-1.25,3]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}';
    const response = keepRawJson(JSON.parse(text) as EmbeddingsResponse, text);
    encodeBase64(response);
    expect(rawJsonOf(response)).toBeUndefined();
    const sent = JSON.parse(jsonWithGateway(response, meta));
    const bytes = Buffer.from(sent.data[0].embedding as string, 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))).toEqual([0.5, -1.25, 3]);
  });

  it('leaves vectors that are base64 already, and their upstream text, alone', () => {
    const text =
      '{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AAAAPw=="}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}';
    const response = keepRawJson(JSON.parse(text) as EmbeddingsResponse, text);
    encodeBase64(response);
    expect(rawJsonOf(response)).toBe(text);
    expect(jsonWithGateway(response, meta).startsWith(text.slice(0, -1))).toBe(true);
  });
});
