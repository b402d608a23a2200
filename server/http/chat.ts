import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { DataPlane } from '../gateway/data-plane.js';
import type { ChatCall } from '../gateway/types.js';
import { COMPLEXITIES } from '../gateway/types.js';
import {
  COMPLEXITY_HEADER,
  parseChatBody,
  parseHintHeader,
  ROUTING_HINTS,
  TASK_TYPE_HEADER,
} from '../gateway/validate.js';
import type { Services } from '../services.js';
import type { CallGate } from './call-gate.js';
import { cancelledOnClose, serveCalls } from './call-handler.js';
import { gatewayHeaders, jsonWithGateway } from './gateway-meta.js';
import { chatText } from '../gateway/guardrails/text.js';
import { screenCall } from './guardrail-screen.js';
import { readJsonBody } from './read-body.js';
import { sseSink } from './sse-sink.js';

// POST /v1/chat/completions: the OpenAI wire format in and out. It is served on the plain node
// request listener, ahead of Express (see app.ts): the hot path pays for no router or middleware
// chain. Authenticate (cached), limit, read and validate the body, then hand the call to the core,
// which logs it.

export const CHAT_PATH = '/v1/chat/completions';

export function chatHandler(services: Services, dataPlane: DataPlane, admit: CallGate) {
  const maxBody = services.config.GATEWAY_MAX_BODY_BYTES;

  const handle = async (req: IncomingMessage, res: ServerResponse, requestId: string) => {
    const startedAt = performance.now();
    const principal = await admit(req, res);
    const body = parseChatBody(await readJsonBody(req, maxBody));
    const call: ChatCall = {
      requestId,
      tenantId: principal.tenantId,
      tokenId: principal.tokenId,
      body,
      messages: body.messages as ChatCall['messages'],
      headerHints: {
        taskType: parseHintHeader(header(req, TASK_TYPE_HEADER), ROUTING_HINTS, TASK_TYPE_HEADER, 'routing_hint'),
        complexity: parseHintHeader(header(req, COMPLEXITY_HEADER), COMPLEXITIES, COMPLEXITY_HEADER, 'complexity_hint'),
        noCache: header(req, 'x-gateway-no-cache'),
      },
      signal: cancelledOnClose(res),
      startedAt,
      createdAt: new Date(),
      // Every cost row of the call counts against the token here at once: failed attempts that
      // cost something, the classifier's call, a stream that broke after its first byte.
      onCost: (usd) => {
        services.auth.addSpend(principal, usd);
        services.budgets.gate.addSpend(principal.tenantId, usd);
      },
    };
    screenCall(services, dataPlane, call, () => chatText(call.messages), res, body.stream === true);

    if (body.stream) {
      const isSimulated = (provider: string) => dataPlane.isSimulated(provider, call.tenantId);
      await dataPlane.pipeline.stream(call, sseSink(res, startedAt, services.metrics?.countError, isSimulated));
      return;
    }
    const { completion, meta } = await dataPlane.pipeline.complete(call);
    const payload = jsonWithGateway(completion, meta, dataPlane.isSimulated(meta.provider, call.tenantId));
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      ...gatewayHeaders(meta, performance.now() - startedAt),
    });
    res.end(payload);
  };

  return serveCalls(services.logger, handle, services.metrics?.countError);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
