import type { CallMeta } from '../gateway/types.js';
import type { ChatChunk } from '../providers/types.js';
import { rawJsonOf } from '../providers/raw-json.js';
import type { GatewayMeta } from '../../contracts/gateway-meta.js';

// `_gateway` in responses and the X-Gateway-* headers (SPEC.md chat response and header tables).
// Hot path: no object spread here (see upstreamBody in gateway/upstream-body.ts), and the answer is
// not copied to add `_gateway`.

/**
 * `simulated`: the built-in simulator played the provider (no real key is set); the field is left
 * out otherwise, so real answers are as they were.
 */
export function gatewayMeta(meta: CallMeta, simulated = false): GatewayMeta {
  return {
    requestId: meta.requestId,
    provider: meta.provider,
    model: meta.model,
    latencyMs: meta.latencyMs,
    cached: meta.cached,
    // undefined is left out of the JSON: the field only appears on cache hits.
    cacheType: meta.cacheType ?? undefined,
    cost: meta.cost,
    routing: meta.routing,
    simulated: simulated || undefined,
  };
}

/**
 * The JSON of an answer object (a completion or the last stream chunk) with `_gateway` as its
 * last field, without copying the object: cached answers are shared and must not be changed.
 * An answer that still carries the upstream's own JSON text is not encoded again.
 */
export function jsonWithGateway(answer: object, meta: CallMeta, simulated = false): string {
  return withGatewayField(rawJsonOf(answer) ?? JSON.stringify(answer), meta, simulated);
}

/** A stream's last choice chunk (its finish) as chunkJson sends it, with `_gateway` as its last field. */
export function chunkWithGateway(chunk: ChatChunk, meta: CallMeta, simulated = false): string {
  return withGatewayField(chunkJson(chunk), meta, simulated);
}

/** The JSON text of an object with `"_gateway"` added before its closing brace. */
function withGatewayField(json: string, meta: CallMeta, simulated: boolean): string {
  const gateway = JSON.stringify(gatewayMeta(meta, simulated));
  const end = json.lastIndexOf('}');
  const head = json.slice(0, end).trimEnd();
  return end > 0 && head.length > 1 ? `${head},"_gateway":${gateway}}` : `{"_gateway":${gateway}}`;
}

/** How an upstream chunk with `"usage": null` ends (OpenAI's format once usage is asked for). */
const USAGE_NULL_TAIL = ',"usage":null}';

/**
 * The JSON of a content chunk, without usage: usage travels once, in the last frame. A chunk that
 * still carries the upstream's own text is sent as that text (less a trailing `"usage":null`).
 */
export function chunkJson(chunk: ChatChunk): string {
  const raw = rawJsonOf(chunk);
  if (raw !== undefined) {
    if (chunk.usage === undefined) return raw;
    if (chunk.usage === null && raw.endsWith(USAGE_NULL_TAIL)) return `${raw.slice(0, -USAGE_NULL_TAIL.length)}}`;
  }
  if (chunk.usage === undefined) return JSON.stringify(chunk);
  // Copied key by key, not with a rest pattern (V8's slow path; see the README's request-path rules).
  const rest: Record<string, unknown> = {};
  for (const key in chunk) if (key !== 'usage') rest[key] = chunk[key as keyof ChatChunk];
  return JSON.stringify(rest);
}

/**
 * Headers known when a response starts (a live stream learns cost and latency only at its end).
 * `elapsedMs`: time since the request arrived, split in Server-Timing into the providers' share
 * and the gateway's own.
 */
export function gatewayHeaders(
  meta: Pick<CallMeta, 'requestId' | 'provider' | 'model' | 'cacheType' | 'errors' | 'upstreamMs'> &
    Partial<Pick<CallMeta, 'cost' | 'latencyMs'>>,
  elapsedMs: number,
): Record<string, string> {
  const h: Record<string, string> = {
    'x-gateway-request-id': meta.requestId,
    // Read by the OpenAI SDKs as `_request_id` (see request-id.ts).
    'x-request-id': meta.requestId,
    'x-gateway-provider': headerSafe(meta.provider),
    'x-gateway-model': headerSafe(meta.model),
    'server-timing': `upstream;dur=${meta.upstreamMs.toFixed(2)}, gateway;dur=${Math.max(0, elapsedMs - meta.upstreamMs).toFixed(2)}`,
  };
  if (meta.cost !== undefined) h['x-gateway-cost'] = meta.cost.toFixed(8);
  // The same figure as `_gateway.latencyMs` (ms, one decimal).
  if (meta.latencyMs !== undefined) h['x-gateway-latency'] = String(meta.latencyMs);
  if (meta.cacheType) h['x-gateway-cache'] = meta.cacheType;
  if (meta.errors.length > 0)
    h['x-gateway-errors'] = asciiJson(
      meta.errors.map((e) => ({
        provider: e.provider,
        model: e.model,
        status: e.status,
        message: e.message.slice(0, 200),
      })),
    );
  return h;
}

/**
 * A name as a header value: model ids come from providers' model lists, and one with a character
 * Node refuses in a header (outside printable ASCII) made the response a 500 after the call was
 * made and billed. Such a name is percent-encoded; others (all real ones) pass as they are.
 */
function headerSafe(name: string): string {
  return NOT_HEADER_SAFE.test(name) ? encodeURIComponent(name) : name;
}

const NOT_HEADER_SAFE = /[^\x20-\x7e]/;

/** JSON that is safe in a header value: non-ASCII escaped, bounded length. */
function asciiJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .slice(0, 4000);
}
