import type { CallMeta } from '../gateway/types.js';

// `_gateway` in responses and the X-Gateway-* headers (SPEC.md chat response and header tables).

export function gatewayMeta(meta: CallMeta) {
  return {
    requestId: meta.requestId,
    provider: meta.provider,
    model: meta.model,
    latencyMs: meta.latencyMs,
    cached: meta.cached,
    ...(meta.cacheType ? { cacheType: meta.cacheType } : {}),
    cost: meta.cost,
    routing: meta.routing,
  };
}

/** Headers known when a response starts (streams learn cost and latency only at the end). */
export function gatewayHeaders(meta: Pick<CallMeta, 'requestId' | 'provider' | 'model' | 'cacheType' | 'errors'> & Partial<Pick<CallMeta, 'cost' | 'latencyMs'>>): Record<string, string> {
  const h: Record<string, string> = {
    'x-gateway-request-id': meta.requestId,
    'x-gateway-provider': meta.provider,
    'x-gateway-model': meta.model,
  };
  if (meta.cost !== undefined) h['x-gateway-cost'] = meta.cost.toFixed(8);
  if (meta.latencyMs !== undefined) h['x-gateway-latency'] = String(Math.round(meta.latencyMs));
  if (meta.cacheType) h['x-gateway-cache'] = meta.cacheType;
  if (meta.errors.length > 0) h['x-gateway-errors'] = asciiJson(meta.errors.map((e) => ({ provider: e.provider, model: e.model, status: e.status, message: e.message.slice(0, 200) })));
  return h;
}

/** JSON that is safe in a header value: non-ASCII escaped, bounded length. */
function asciiJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .slice(0, 4000);
}
