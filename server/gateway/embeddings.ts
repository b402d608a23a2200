import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { GatewayError } from '../lib/errors.js';
import { describeZodError } from '../lib/zod-errors.js';
import { forgetRawJson } from '../providers/raw-json.js';
import { countTokens } from '../providers/token-count.js';
import { withEstimatedUsage } from '../providers/usage.js';
import { ProviderError, type EmbeddingsRequest, type EmbeddingsResponse, type Usage } from '../providers/types.js';
import { buildMeta, costRow, logCall, logUnrouted, ZERO_USAGE, type Outcome } from './accounting.js';
import { classifyFailure, ClientClosedError, exhaustedError, rejectedError, type AttemptFailure } from './attempts.js';
import type { CostLogRow } from './log-writer.js';
import type { ChatPipeline } from './pipeline.js';
import { resolvePinned } from './routing/targets.js';
import { isPrimary, targetRole, withFallback } from './target-role.js';
import type { CallMeta, ChatCall, RoutingDecision, Target, UpstreamErrorSummary } from './types.js';

// POST /v1/embeddings: the OpenAI wire format, to any provider with an embeddings endpoint
// (OpenAI-compatible ones as they are, Gemini translated). The model is always named (there is no
// routing stage for embeddings); another provider serving the same model is tried when one fails.
// Logged like a chat call: a request row (routedBy user-override, no output tokens) and a cost row
// per upstream call. Not cached.

/** OpenAI's limits: 2048 inputs per request. */
const MAX_INPUTS = 2048;

const TokenArray = z.array(z.number().int().nonnegative()).min(1);

export const EmbeddingsBodySchema = z.looseObject({
  model: z.string().min(1, 'model is required for embeddings (provider/model or a bare model id)'),
  input: z.union([
    z.string().min(1, 'input must not be empty'),
    z.array(z.string().min(1, 'input strings must not be empty')).min(1, 'input must not be empty').max(MAX_INPUTS),
    TokenArray,
    z.array(TokenArray).min(1, 'input must not be empty').max(MAX_INPUTS),
  ]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

export type EmbeddingsBody = z.infer<typeof EmbeddingsBodySchema>;

export function parseEmbeddingsBody(raw: unknown): EmbeddingsBody {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError('invalid_request_error', 'Request body must be a JSON object');
  }
  const parsed = EmbeddingsBodySchema.safeParse(raw);
  if (!parsed.success) throw new GatewayError('invalid_request_error', describeZodError(parsed.error));
  return parsed.data;
}

export interface EmbeddingsResult {
  response: EmbeddingsResponse;
  meta: CallMeta;
}

/**
 * One embeddings call: resolve the model, try the providers that serve it, log and cost it.
 * `call` carries the request's identity, cancellation and timing (its messages hold the first input,
 * for the live tap's preview).
 */
export async function embed(pipeline: ChatPipeline, call: ChatCall, body: EmbeddingsBody): Promise<EmbeddingsResult> {
  const { logWriter, upstreamTimeoutMs } = pipeline.opts;
  const { registry, breakers } = pipeline.providersOf(call.tenantId);
  let primary: Target;
  try {
    primary = resolvePinned(registry, body.model);
  } catch (err) {
    // A model no provider serves still gets its request row, as a chat call's does.
    if (err instanceof GatewayError && err.type !== 'invalid_request_error')
      logUnrouted(logWriter, call, 'user-override', err.type, false);
    throw err;
  }
  const decision: RoutingDecision = {
    provider: primary.provider,
    model: primary.model,
    routedBy: 'user-override',
    taskType: null,
    complexity: null,
    usedFallback: false,
    usedLlmFallback: false,
  };
  const candidates = pipeline.ordered(
    [
      primary,
      ...registry
        .providersFor(primary.model)
        .filter((p) => p.name !== primary.provider)
        .map((p) => ({ provider: p.name, model: primary.model })),
    ],
    call.tenantId,
  );

  const errors: UpstreamErrorSummary[] = [];
  const costs: CostLogRow[] = [];
  let upstreamMs = 0;
  // A failed call is logged with the plan's decision: used_fallback marks only a call a fallback served.
  const log = (served: Target, usage: Usage, status: Outcome['status'], errorType: string | null) =>
    logCall(
      logWriter,
      call,
      {
        decision,
        served,
        latencyMs: performance.now() - call.startedAt,
        usage,
        cached: false,
        cacheType: null,
        streamed: false,
        status,
        errorType,
      },
      costs,
    );

  const tokenInput = typeof body.input !== 'string' && typeof body.input[0] !== 'string';
  for (let i = 0; i < candidates.length; i++) {
    const target = candidates[i]!;
    const adapter = registry.get(target.provider)?.adapter;
    if (!adapter?.embeddings || (tokenInput && adapter.family !== 'openai-compatible')) {
      if (target !== primary) continue;
      if (!adapter?.embeddings)
        throw new GatewayError('invalid_request_error', `Provider '${target.provider}' has no embeddings endpoint`);
      throw new GatewayError(
        'invalid_request_error',
        `Provider '${target.provider}' takes text input only, not token arrays`,
      );
    }
    const permit = pipeline.permit(target, errors.length === 0 && i === candidates.length - 1, call.tenantId);
    if (permit === 'denied') continue;
    const request: EmbeddingsRequest = { ...body, model: target.model } as EmbeddingsRequest;
    const sent = performance.now();
    try {
      const response = await adapter.embeddings(request, { signal: call.signal, timeoutMs: upstreamTimeoutMs });
      upstreamMs += performance.now() - sent;
      breakers.success(target.provider);
      if (body.encoding_format === 'base64') encodeBase64(response);
      const reported = response.usage?.prompt_tokens ?? 0;
      let usage: Usage;
      if (reported > 0) {
        usage = { prompt_tokens: reported, completion_tokens: 0, total_tokens: reported };
      } else {
        usage = await countedUsage(body.input);
        withEstimatedUsage(response, usage);
      }
      costs.push(costRow(call, target, usage, 'ok'));
      // Decided by target, not by position: the breakers may have dropped the primary from the list.
      const outcome: Outcome = {
        decision: withFallback(decision, !isPrimary(decision, target)),
        served: target,
        latencyMs: performance.now() - call.startedAt,
        usage,
        cached: false,
        cacheType: null,
        streamed: false,
        status: 'ok',
        errorType: null,
      };
      const cost = logCall(logWriter, call, outcome, costs);
      return { response, meta: buildMeta(call, outcome, cost, errors, upstreamMs) };
    } catch (err) {
      upstreamMs += performance.now() - sent;
      // Part of a call sent in several requests may have been answered, and billed, before it failed.
      const billed = err instanceof ProviderError && err.billedInputs ? await countedUsage(err.billedInputs) : null;
      if (billed) costs.push(costRow(call, target, billed, 'error'));
      let failure: AttemptFailure;
      try {
        failure = classifyFailure(err, target, breakers, call.signal, permit, targetRole(decision, target));
      } catch (e) {
        if (e instanceof ClientClosedError) log(target, billed ?? ZERO_USAGE, 'client_closed', 'client_closed');
        throw e;
      }
      errors.push(failure.summary);
      pipeline.opts.onUpstreamFailure?.(failure.summary);
      if (failure.answered && !billed) costs.push(costRow(call, target, ZERO_USAGE, 'error'));
      if (!failure.fallBack) {
        const rejected = rejectedError(failure.summary);
        log(target, ZERO_USAGE, 'error', rejected.type);
        throw rejected;
      }
    }
  }
  const exhausted = exhaustedError(errors);
  log(candidates[candidates.length - 1] ?? primary, ZERO_USAGE, 'error', exhausted.type);
  throw exhausted;
}

/** A count of the input, for a provider that reports no usage (embeddings have no output). */
async function countedUsage(input: EmbeddingsBody['input']): Promise<Usage> {
  const items: Array<string | number[]> =
    typeof input === 'string'
      ? [input]
      : typeof input[0] === 'number'
        ? [input as number[]]
        : (input as Array<string | number[]>);
  let prompt = 0;
  for (const item of items) prompt += typeof item === 'string' ? await countTokens(item) : item.length;
  return { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt };
}

/**
 * OpenAI clients ask for base64 (the official SDK does by default) and decode little-endian float32.
 * A provider that answered with number arrays (Gemini, or one that ignores encoding_format) gets
 * its vectors encoded here.
 */
export function encodeBase64(response: EmbeddingsResponse): void {
  for (const item of response.data) {
    if (!Array.isArray(item.embedding)) continue;
    item.embedding = Buffer.from(new Float32Array(item.embedding).buffer).toString('base64');
    // The upstream's JSON text no longer says what the answer holds.
    forgetRawJson(response);
  }
}
