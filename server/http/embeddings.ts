import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { DataPlane } from '../gateway/data-plane.js';
import { embed, parseEmbeddingsBody } from '../gateway/embeddings.js';
import type { ChatCall } from '../gateway/types.js';
import type { Services } from '../services.js';
import type { CallGate } from './call-gate.js';
import { cancelledOnClose, serveCalls } from './call-handler.js';
import { gatewayHeaders, jsonWithGateway } from './gateway-meta.js';
import { embeddingsText } from '../gateway/guardrails/text.js';
import { screenCall } from './guardrail-screen.js';
import { readJsonBody } from './read-body.js';

// POST /v1/embeddings: the OpenAI wire format in and out, behind the same gate as chat completions
// (token, rate limit, spend limit), with `_gateway` and the X-Gateway-* headers on the answer.

export const EMBEDDINGS_PATH = '/v1/embeddings';

export function embeddingsHandler(services: Services, dataPlane: DataPlane, admit: CallGate) {
  const maxBody = services.config.GATEWAY_MAX_BODY_BYTES;

  const handle = async (req: IncomingMessage, res: ServerResponse, requestId: string) => {
    const startedAt = performance.now();
    const principal = await admit(req, res);
    const body = parseEmbeddingsBody(await readJsonBody(req, maxBody));
    // The call as the core's accounting knows it; its one message is the first input, which the
    // live tap previews.
    const first =
      typeof body.input === 'string' ? body.input : typeof body.input[0] === 'string' ? body.input[0] : '[tokens]';
    const call: ChatCall = {
      requestId,
      tenantId: principal.tenantId,
      tokenId: principal.tokenId,
      body: { model: body.model, messages: [] },
      messages: [{ role: 'user', content: first }],
      headerHints: {},
      signal: cancelledOnClose(res),
      startedAt,
      createdAt: new Date(),
      onCost: (usd) => {
        services.auth.addSpend(principal, usd);
        services.budgets.gate.addSpend(principal.tenantId, usd);
      },
      endpoint: 'embeddings',
    };
    screenCall(services, dataPlane, call, () => embeddingsText(body.input), res, false);
    const { response, meta } = await embed(dataPlane.pipeline, call, body);
    const payload = jsonWithGateway(response, meta, dataPlane.isSimulated(meta.provider, call.tenantId));
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      ...gatewayHeaders(meta, performance.now() - startedAt),
    });
    res.end(payload);
  };

  return serveCalls(services.logger, handle, services.metrics?.countError);
}
