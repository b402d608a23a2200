import type { ChatRequest } from '../providers/types.js';
import { GATEWAY_FIELDS } from './chat-body-schema.js';
import type { ChatCall } from './types.js';

/** The body sent upstream: the client's, without gateway-only fields, with the target's model id. */
export function upstreamBody(call: ChatCall, model: string, stream: boolean): ChatRequest {
  // Copied key by key rather than spread and pruned with delete: both of those are slow paths in
  // V8 that leave garbage the young-generation collector has to promote.
  const body: Record<string, unknown> = {};
  const source = call.body as Record<string, unknown>;
  for (const key in source) {
    if (!NOT_FORWARDED.has(key)) body[key] = source[key];
  }
  body.model = model;
  body.messages = call.messages;
  if (stream) body.stream = true;
  return body as ChatRequest;
}

/** Request fields the gateway consumes itself; the stream fields are set per attempt. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([...GATEWAY_FIELDS, 'stream', 'stream_options']);
